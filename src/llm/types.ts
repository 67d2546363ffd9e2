// The completion interface every backend (OpenAI-compatible HTTP, chat-carried, embedded llama.cpp,
// cache) implements. ReAct is text completion with stop sequences (docs/protocol.md §3).
import type { ModelPrices } from './pricing.js';

export interface CompletionRequest {
  prompt: string;
  stop?: string[];
  /** Paper: 100. */
  maxTokens: number;
  /** Paper: 0 (greedy); CoT-SC 0.7. */
  temperature: number;
  /** Paper: 1. */
  topP: number;
  /** Number of samples; the cache stores each as its own entry (sample index 0..n-1). */
  n: number;
  seed?: number;
  frequencyPenalty: number;
  presencePenalty: number;
}

/** Paper defaults (docs/protocol.md §3). */
export const PAPER_SAMPLING: Omit<CompletionRequest, 'prompt' | 'stop'> = {
  maxTokens: 100,
  temperature: 0,
  topP: 1,
  n: 1,
  frequencyPenalty: 0,
  presencePenalty: 0,
};

export interface CompletionChoice {
  index: number;
  text: string;
  /** 'stop' | 'length' | backend-specific. */
  finishReason: string;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** Options of one call; every layer passes them on unchanged (src/llm/layer.ts). */
export type CompleteOptions = {
  signal?: AbortSignal;
  /**
   * Called with each request just before it goes to the backend, below the cache (the budget's
   * admission, src/run/model-chain.ts): a call the cache answers is never admitted, as it costs nothing.
   * The request waits until it settles; it may reject to refuse the request. The admission layer calls it
   * and does not pass it on: a backend never receives it.
   */
  admit?: (sent: CompletionRequest) => void | Promise<void>;
};

export interface CompletionResult {
  choices: CompletionChoice[];
  /** Tokens billed by this call (0 for choices served from the cache). */
  usage: TokenUsage;
  /** Cost in USD of this call under the configured prices (0 when cached or local). */
  costUsd: number;
  /** How many of the choices came from the cache. */
  cachedChoices: number;
  latencyMs: number;
  /**
   * What the call stands for with the cache's samples counted (src/llm/cache/store.ts): a hit's stored usage
   * at the run's prices. Absent: the same as usage/costUsd (README "Reports": a replayed run is not "0 tokens").
   * `usageUnknown`: some sample's call was answered without usage, which these figures leave out.
   */
  total?: { usage: TokenUsage; costUsd: number; usageUnknown?: true };
  /**
   * The server answered without reporting usage (no `usage` in a response): usage and costUsd are 0
   * but what the call was billed is unknown. The meter counts it as paid-unknown, the budget at its
   * estimate (README "Reliability").
   */
  usageUnknown?: true;
  /**
   * Answered from a bundle's recording (run --from-bundle): usage and costUsd are what the original
   * call was billed, which the episode's record keeps; this invocation paid nothing.
   */
  replayed?: true;
}

/**
 * A call stopped by its signal before any of its requests could have been billed: it was waiting for a
 * slot or backing off, and every request it had sent was refused or answered. The run's spend counts
 * it as nothing, where a call cut off after its request reached the server counts as "billing unknown".
 */
export class AbortedUnsentError extends Error {
  override readonly name = 'AbortError';
  readonly unsent = true;
  constructor(reason: unknown) {
    super(reason instanceof Error ? reason.message : 'This operation was aborted', { cause: reason });
  }
}

export interface CompletionModel {
  /** Model name as sent to the backend (e.g. gpt-3.5-turbo-instruct). */
  readonly model: string;
  /** Secret-free description for the run manifest (backend kind, endpoint host names, api mode...). */
  describe(): Record<string, unknown>;
  /**
   * The part of describe() that says what a run computes (its run id and --resume's check). How it is
   * served (endpoints, cache, retries, limits, prices, timeouts) is left out, so a run resumed on
   * another server or cache is the same run. Absent: the whole description.
   */
  identity?(): Record<string, unknown>;
  /** What its calls cost and whether that is money (src/llm/pricing.ts); absent: as describe() states them. */
  readonly prices?: ModelPrices;
  complete(req: CompletionRequest, opts?: CompleteOptions): Promise<CompletionResult>;
  close?(): Promise<void>;
  /** The api part of this model's completion-cache keys, when it is cached (src/llm/cache/key.ts). */
  readonly cacheApi?: string;
}
