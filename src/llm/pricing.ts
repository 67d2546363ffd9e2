// The price rule, in one place: where a model's prices come from (flags, OpenAI's list price on its own
// endpoint, or none), whether its costs are money (README "Reliability": known, unknown, or free: a
// model run in-process, or rates of 0 given, bills nothing), and the one dollar formula behind every
// cost figure (a call's bill, what a cache hit stands for, --max-cost's estimate, the dry run's range).
// Prices are USD per 1M tokens (prompt, completion).
import type { CompletionModel, TokenUsage } from './types.js';
import type { PriceStatus } from '../runlog/schema.js';

export type { PriceStatus };

export interface Prices {
  promptPerM: number;
  completionPerM: number;
}

/** A model's prices as a run reads them: what its calls cost, and whether that is money. */
export interface ModelPrices extends Prices {
  readonly status: PriceStatus;
}

/** A run's prices as its settings alone give them (dry run, --max-cost's check; `source` for people), or why they are unknown. */
export type PriceInfo = (ModelPrices & { source: string; model: string | null }) | { error: string };

/** Where resolvePrices found a price ('none': nowhere). */
export type PriceSource = 'flags' | 'builtin' | 'none';

/** OpenAI's list prices for the completion models the suite targets (USD / 1M tokens). */
export const BUILTIN_PRICES: Readonly<Record<string, Prices>> = {
  'gpt-3.5-turbo-instruct': { promptPerM: 1.5, completionPerM: 2.0 },
  'gpt-3.5-turbo-instruct-0914': { promptPerM: 1.5, completionPerM: 2.0 },
  'davinci-002': { promptPerM: 2.0, completionPerM: 2.0 },
  'babbage-002': { promptPerM: 0.4, completionPerM: 0.4 },
};

const NO_PRICE_SOURCE = 'no price known for this model (0)';

/**
 * Prices for a model: explicit flags win; otherwise the built-in table, but only for OpenAI's own
 * endpoint (a local server that happens to use the same model name costs nothing); otherwise zero.
 */
export function resolvePrices(
  model: string,
  opts: { pricePrompt?: number; priceCompletion?: number; officialOpenAI: boolean },
): Prices & { source: PriceSource } {
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

/** The one test of "no known price": a resolution that found none ('unknown': as older manifests say it). */
export function isNoPriceSource(source: unknown): boolean {
  return source === 'none' || source === 'unknown';
}

/** Rates that bill nothing: a call at them costs $0 whatever usage it had, or lacked. */
function billsNothing(p: Prices): boolean {
  return p.promptPerM === 0 && p.completionPerM === 0;
}

/** The typed prices of a resolution (a backend given prices with no source was given them by flags); rates of 0 are free. */
export function modelPricesOf(p: Prices & { source?: string }): ModelPrices {
  const status = isNoPriceSource(p.source) ? 'unknown' : billsNothing(p) ? 'free' : 'known';
  return { promptPerM: p.promptPerM, completionPerM: p.completionPerM, status };
}

/** A resolution as people read it (dry run, --max-cost's refusal). */
export function priceInfoOf(p: Prices & { source: PriceSource }, model: string | null): PriceInfo {
  const source =
    p.source === 'builtin' ? `list price of ${model}` : p.source === 'flags' ? '--price-prompt/--price-completion' : NO_PRICE_SOURCE;
  return { ...modelPricesOf(p), source, model };
}

/** Whether settings' prices are a stand-in 0 for an unknown rate (not a known price, not a free local model). */
export function isUnpriced(p: PriceInfo | null): boolean {
  return p !== null && 'status' in p && p.status === 'unknown';
}

/**
 * The prices a model description states (CompletionModel.describe(), a manifest's modelDescription):
 * an in-process model (llama.cpp), or one that states rates of 0, sends no bill ('free'); a backend
 * that states none bills what it reports (a library backend's costUsd: docs/library.md), so its rates
 * count nothing but are no claim that it is free ('known'); a rate that is not a finite number costs
 * nothing.
 */
export function pricesOfDescription(desc: Record<string, unknown>): ModelPrices {
  const p = desc.pricesUsdPer1M;
  if (!p || typeof p !== 'object') return { promptPerM: 0, completionPerM: 0, status: desc.backend === 'llama.cpp' ? 'free' : 'known' };
  const { source, prompt, completion } = p as { source?: unknown; prompt?: unknown; completion?: unknown };
  const rate = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const stated = typeof prompt === 'number' && typeof completion === 'number' && !isNoPriceSource(source);
  const rates = { promptPerM: rate(prompt), completionPerM: rate(completion) };
  return { ...rates, status: desc.backend === 'llama.cpp' || (stated && billsNothing(rates)) ? 'free' : stated ? 'known' : 'unknown' };
}

/** A model's prices: its own (src/llm/openai-model.ts), else as its description states them (a library user's model, a bundle's answers). */
export function pricesOfModel(m: Pick<CompletionModel, 'prices' | 'describe'>): ModelPrices {
  return m.prices ?? pricesOfDescription(m.describe());
}

export function costUsd(usage: Pick<TokenUsage, 'promptTokens' | 'completionTokens'>, prices: Prices): number {
  return (usage.promptTokens * prices.promptPerM + usage.completionTokens * prices.completionPerM) / 1e6;
}

export const ZERO_USAGE: TokenUsage = Object.freeze({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
