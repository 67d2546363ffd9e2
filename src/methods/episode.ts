// Shared pieces of one episode: model calls as the notebook makes them (llm()), and the checks on them.
// Tokens and cost are not counted here: the runner's per-episode chain meters every call (src/run/meter.ts).
import { InfraError } from '../errors.js';
import { PAPER_SAMPLING, type CompletionChoice, type CompletionModel, type CompletionRequest } from '../llm/types.js';

/** An episode's model calls: how many returned, and how many choices stopped at max_tokens. */
export class CallLedger {
  calls = 0;
  /** Choices that ended on max_tokens (finish_reason "length"): recorded on their step, never silent (README "Reliability"). */
  lengthStops = 0;

  constructor(
    private readonly model: CompletionModel,
    private readonly signal?: AbortSignal,
  ) {}

  async complete(req: CompletionRequest): Promise<CompletionChoice[]> {
    this.signal?.throwIfAborted();
    const res = await this.model.complete(req, this.signal ? { signal: this.signal } : undefined);
    this.calls++;
    if (res.choices.length < req.n) {
      throw new InfraError(`completion returned ${res.choices.length} choice(s), expected ${req.n}`, 'llm');
    }
    this.lengthStops += res.choices.filter((c) => c.finishReason === 'length').length;
    return [...res.choices].sort((a, b) => a.index - b.index);
  }

  /** The notebook's llm(prompt, stop): greedy paper sampling (§3), choices[0].text. */
  async llm(prompt: string, stop: string[]): Promise<string> {
    const choices = await this.complete(greedyRequest(prompt, stop));
    return choices[0].text;
  }
}

export function greedyRequest(prompt: string, stop: string[]): CompletionRequest {
  return { ...PAPER_SAMPLING, prompt, stop };
}
