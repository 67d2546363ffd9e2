// Shared pieces of one episode: model calls with usage/cost bookkeeping, and the notebook's llm().
import { InfraError } from '../errors.js';
import {
  PAPER_SAMPLING,
  type CompletionChoice,
  type CompletionModel,
  type CompletionRequest,
  type TokenUsage,
} from '../llm/types.js';
import type { StepRecord } from './types.js';
import { totalOfResult } from '../run/record.js';

/** A step record with the suite's extra flag for an empty action (§4 step 3). */
export interface QaStepRecord extends StepRecord {
  /** The model gave an empty action; it was sent to the environment as an invalid action. */
  emptyAction?: boolean;
}

/**
 * Counts calls and sums usage and cost over an episode. `usage`/`costUsd` count every call, cache hits
 * included (the cache reports a hit's stored usage as `total`; issue 10: a replayed run is not "0
 * tokens"); `spentUsage`/`spentCostUsd` only the calls that went to the model.
 */
export class CallLedger {
  calls = 0;
  usage: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  costUsd = 0;
  spentUsage: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  spentCostUsd = 0;

  constructor(
    private readonly model: CompletionModel,
    private readonly signal?: AbortSignal,
  ) {}

  async complete(req: CompletionRequest): Promise<CompletionChoice[]> {
    this.signal?.throwIfAborted();
    const res = await this.model.complete(req, this.signal ? { signal: this.signal } : undefined);
    this.calls++;
    const total = totalOfResult(res);
    addUsage(this.usage, total.usage);
    this.costUsd += total.costUsd;
    addUsage(this.spentUsage, res.usage);
    this.spentCostUsd += res.costUsd;
    if (res.choices.length < req.n) {
      throw new InfraError(`completion returned ${res.choices.length} choice(s), expected ${req.n}`, 'llm');
    }
    return [...res.choices].sort((a, b) => a.index - b.index);
  }

  /** The notebook's llm(prompt, stop): greedy paper sampling (§3), choices[0].text. */
  async llm(prompt: string, stop: string[]): Promise<string> {
    const choices = await this.complete(greedyRequest(prompt, stop));
    return choices[0].text;
  }
}

function addUsage(a: TokenUsage, b: TokenUsage): void {
  a.promptTokens += b.promptTokens;
  a.completionTokens += b.completionTokens;
  a.totalTokens += b.totalTokens;
}

export function greedyRequest(prompt: string, stop: string[]): CompletionRequest {
  return { ...PAPER_SAMPLING, prompt, stop };
}

/** Numeric value of a wrapper info field (Python bools become 0/1; absent is 0). */
export function infoNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return 0;
}

/** info.answer as the outcome's answer: null when the env holds none. */
export function infoAnswer(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}
