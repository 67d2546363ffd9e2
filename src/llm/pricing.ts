// Token prices and cost per call. Prices are USD per 1M tokens (prompt, completion).
import type { TokenUsage } from './types.js';

export interface Prices {
  promptPerM: number;
  completionPerM: number;
}

/** OpenAI's list prices for the completion models the suite targets (USD / 1M tokens). */
export const BUILTIN_PRICES: Readonly<Record<string, Prices>> = {
  'gpt-3.5-turbo-instruct': { promptPerM: 1.5, completionPerM: 2.0 },
  'gpt-3.5-turbo-instruct-0914': { promptPerM: 1.5, completionPerM: 2.0 },
  'davinci-002': { promptPerM: 2.0, completionPerM: 2.0 },
  'babbage-002': { promptPerM: 0.4, completionPerM: 0.4 },
};

/** How a price resolution names a model billed at a rate we do not know (no flags, not in the list). */
export const NO_PRICE_SOURCE = 'no price known for this model (0)';

/** Whether resolved prices are a stand-in 0 for an unknown rate (not a known price, not a free local model). */
export function isUnpriced(p: { source: string } | { error: string } | null): boolean {
  return p !== null && 'source' in p && p.source === NO_PRICE_SOURCE;
}

/**
 * Prices for a model: explicit flags win; otherwise the built-in table, but only for OpenAI's own
 * endpoint (a local server that happens to use the same model name costs nothing); otherwise zero.
 */
export function resolvePrices(
  model: string,
  opts: { pricePrompt?: number; priceCompletion?: number; officialOpenAI: boolean },
): Prices & { source: 'flags' | 'builtin' | 'none' } {
  const table = opts.officialOpenAI ? BUILTIN_PRICES[model] : undefined;
  if (opts.pricePrompt !== undefined || opts.priceCompletion !== undefined) {
    return {
      promptPerM: opts.pricePrompt ?? table?.promptPerM ?? 0,
      completionPerM: opts.priceCompletion ?? table?.completionPerM ?? 0,
      source: 'flags',
    };
  }
  if (table) return { ...table, source: 'builtin' };
  return { promptPerM: 0, completionPerM: 0, source: 'none' };
}

export function costUsd(usage: TokenUsage, prices: Prices): number {
  return (usage.promptTokens * prices.promptPerM + usage.completionTokens * prices.completionPerM) / 1e6;
}

export const ZERO_USAGE: TokenUsage = Object.freeze({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
