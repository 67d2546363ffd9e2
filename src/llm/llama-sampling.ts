// Pure helpers of the embedded llama.cpp backend: request checks, per-sample seeds, stop sequences.
// Kept apart from llama.ts so they are testable without loading node-llama-cpp.
import { FatalRunError } from '../errors.js';
import type { CompletionRequest } from './types.js';

/**
 * Rejects requests no retry can fix (the equivalent of an endpoint's 400): every episode would
 * repeat them, so the runner should stop (FatalRunError).
 */
export function checkLlamaRequest(req: CompletionRequest): void {
  const bad = (what: string): never => {
    throw new FatalRunError(`llama.cpp backend: ${what}`);
  };
  if (!Number.isInteger(req.n) || req.n < 1) bad(`n must be an integer >= 1, got ${req.n}`);
  if (!Number.isInteger(req.maxTokens) || req.maxTokens < 0) bad(`maxTokens must be an integer >= 0, got ${req.maxTokens}`);
  if (!Number.isFinite(req.temperature) || req.temperature < 0) bad(`temperature must be >= 0, got ${req.temperature}`);
  if (!Number.isFinite(req.topP) || req.topP <= 0 || req.topP > 1) bad(`topP must be in (0, 1], got ${req.topP}`);
  if (!Number.isFinite(req.frequencyPenalty)) bad(`frequencyPenalty must be a number, got ${req.frequencyPenalty}`);
  if (!Number.isFinite(req.presencePenalty)) bad(`presencePenalty must be a number, got ${req.presencePenalty}`);
  if (req.seed !== undefined && !Number.isInteger(req.seed)) bad(`seed must be an integer, got ${req.seed}`);
  if (req.stop !== undefined && (!Array.isArray(req.stop) || req.stop.some((s) => typeof s !== 'string'))) {
    bad('stop must be a list of strings');
  }
}

/**
 * Seed of sample i: base + i (so a run with a seed is reproducible sample by sample), as the uint32
 * llama.cpp's sampler takes (wrapping modulo 2^32, negative seeds included).
 */
export function sampleSeed(base: number, index: number): number {
  const m = (base + index) % 2 ** 32;
  return m < 0 ? m + 2 ** 32 : m;
}

/** Stop strings that can match: empty strings would stop before any text and are ignored. */
export function usableStops(stop: readonly string[] | undefined): string[] {
  return (stop ?? []).filter((s) => s.length > 0);
}

/**
 * Where the text must be cut: the smallest index at which any stop string occurs, or -1.
 * Called after every generated token, so the first stop to appear ends generation (as an endpoint
 * does), and the text is cut before it (the stop itself is not returned).
 */
export function findStop(text: string, stops: readonly string[]): number {
  let cut = -1;
  for (const s of stops) {
    const i = text.indexOf(s);
    if (i !== -1 && (cut === -1 || i < cut)) cut = i;
  }
  return cut;
}
