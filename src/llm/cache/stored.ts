// What the completion cache holds for a request key, and what serving it stands for. Each of the n
// samples is its own row (key, sample_index): a later request for fewer samples is served from the
// cache, and a request for more only asks the backend for the missing ones. A request the server
// refused because its prompt outgrew the model's context window (a ContextLengthError, scored as the
// outcome context_exceeded) is kept too, as a refusal under the same key, so that --cache replay
// re-runs such a run; a completion stored for the key replaces it. Pure: the file is ./file.ts.
import { ContextLengthError, type ContextLimit } from '../context-limit.js';
import type { CompletionChoice, TokenUsage } from '../types.js';

export interface StoredChoice {
  sampleIndex: number;
  text: string;
  finishReason: string;
  /** Samples of the backend call that produced this one, and that call's usage (null: not reported). */
  callN?: number;
  promptTokens?: number | null;
  completionTokens?: number | null;
}

/**
 * What serving `rows` from the cache stands for: the prompt once (as a fresh request of n samples
 * counts it), and each sample's share of the completion tokens of the call that produced it.
 * Rows whose backend reported no usage count 0 (usageUnknownIn says whether any did).
 */
export function storedUsage(rows: readonly StoredChoice[], withPrompt = true): TokenUsage {
  const prompt = withPrompt ? (rows.find((r) => typeof r.promptTokens === 'number')?.promptTokens ?? 0) : 0;
  const completion = Math.round(
    rows.reduce((a, r) => a + (typeof r.completionTokens === 'number' ? r.completionTokens / Math.max(1, r.callN ?? 1) : 0), 0),
  );
  return { promptTokens: prompt, completionTokens: completion, totalTokens: prompt + completion };
}

/**
 * Whether some of `rows` came from a call answered without usage: stored with no token counts, or (in a
 * cache written before such answers were marked) with 0 and 0, which no server that reports usage
 * gives (a prompt has tokens).
 */
export function usageUnknownIn(rows: readonly StoredChoice[]): boolean {
  return rows.some((r) => !((r.promptTokens ?? 0) > 0) && !((r.completionTokens ?? 0) > 0));
}

/** A refusal stored for a request key (table `refusals`): what the error that reported it carried. */
export interface StoredRefusal {
  kind: 'context_length';
  message: string;
  limit?: ContextLimit;
}

/** The refusal a ContextLengthError stands for, with `scrub` applied to the server's words. */
export function refusalOf(e: ContextLengthError, scrub: (text: string) => string = (t) => t): StoredRefusal {
  return {
    kind: 'context_length',
    message: scrub(e.message),
    ...(e.limit ? { limit: { ...e.limit, message: scrub(e.limit.message) } } : {}),
  };
}

/** The error a stored refusal was: the same class, message and fields. */
export function refusalError(r: StoredRefusal): ContextLengthError {
  return new ContextLengthError(r.message, r.limit);
}

/** A stored sample as the choice at index `i` of a result. */
export function toChoice(s: StoredChoice, i: number): CompletionChoice {
  return { index: i, text: s.text, finishReason: s.finishReason };
}
