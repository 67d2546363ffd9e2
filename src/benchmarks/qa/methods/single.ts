// Standard and CoT (§4): one greedy completion of exemplars + question line + cue; the answer is the
// first line after the last "Answer:" (parseQaAnswer). The released code has no runner for these:
// the framing (prefix, separator, cue, stop) is ours, explicit in prompts/framings.json.
import type { Item } from '../../types.js';
import type { EpisodeResult, Method, MethodContext } from '../../../methods/types.js';
import { PAPER_SAMPLING } from '../../../llm/types.js';
import { CallLedger, greedyRequest } from '../../../methods/episode.js';
import type { Task } from '../types.js';
import type { ResolvedMethodOptions } from './options.js';
import { buildMethodPrompt, getFraming, parseQaAnswer, qaPrompt, type MethodPrompt, type PromptLibrary } from './prompts.js';
import { describePrompts } from './describe.js';

export class SingleCompletionMethod implements Method {
  readonly needsEnv = false;
  private readonly prompt: MethodPrompt;
  private readonly framingName: string;

  constructor(
    readonly name: 'standard' | 'cot',
    private readonly task: Pick<Task, 'name' | 'observationLabel'>,
    opts: ResolvedMethodOptions,
    lib: PromptLibrary,
  ) {
    this.framingName = getFraming(lib, opts.framing).name;
    this.prompt = buildMethodPrompt(lib, name, task.name, this.framingName);
  }

  describe(): Record<string, unknown> {
    return {
      method: this.name,
      framing: this.framingName,
      sampling: { ...PAPER_SAMPLING },
      answer: 'first line after the last "Answer:" in cue + completion, Python-stripped; none -> null',
      prompts: describePrompts({ [this.task.name]: this.prompt }),
    };
  }

  async run(item: Item, ctx: MethodContext): Promise<EpisodeResult> {
    const p = this.prompt;
    const prompt = qaPrompt(p, this.task.observationLabel, item.input);
    const ledger = new CallLedger(ctx.model, ctx.signal);
    const [choice] = await ledger.complete(greedyRequest(prompt, p.stop!));
    return {
      answer: parseQaAnswer(p.cue + choice.text),
      traj: prompt + choice.text,
      steps: [],
      n_calls: ledger.calls,
      n_badcalls: 0,
    };
  }
}
