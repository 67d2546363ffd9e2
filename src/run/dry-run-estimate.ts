// What `run --dry-run` says a run would cost: prompt tokens counted with the model's own tokenizer
// where one is known (OpenAI models: js-tiktoken, a maintained JS port of tiktoken with its ranks
// shipped in the package, loaded only here), chars/4 otherwise and said so; the built-in list price
// whenever the model is known, key or no key; interactive methods (ReAct, Act) as a range from one
// call per episode to the turn limit (docs/protocol.md §4 turns i = 1..7, §8, §9); combinations make
// no calls; and a total over the runs of an experiment.
import { JsonFields } from '../util/json-fields.js';
import { thousands as num } from '../util/numbers.js';
import { costUsd, isUnpriced, priceInfoOf, resolvePrices, type PriceInfo } from '../llm/pricing.js';
import { isOfficialOpenAI } from '../llm/endpoints.js';
import { usd as formatUsd } from '../util/money.js';
import type { Settings } from './experiment.js';

export interface TokenCounter {
  /** "cl100k_base (the model's tokenizer, js-tiktoken)" or "chars/4 (estimate)". */
  name: string;
  exact: boolean;
  count(text: string): number;
}

/**
 * Encodings of the completion models the suite prices, as OpenAI's tiktoken (model.py) maps them:
 * the -002 base models use cl100k_base (js-tiktoken's own table still names their predecessors'
 * p50k/r50k encodings for them).
 */
const ENCODING_OF: Readonly<Record<string, string>> = {
  'gpt-3.5-turbo-instruct': 'cl100k_base',
  'gpt-3.5-turbo-instruct-0914': 'cl100k_base',
  'davinci-002': 'cl100k_base',
  'babbage-002': 'cl100k_base',
};

export const CHARS_PER_4: TokenCounter = { name: 'chars/4 (estimate)', exact: false, count: (t) => Math.ceil(t.length / 4) };

/** The tiktoken encoding of a model name, or null (unknown model: not an OpenAI model). */
export async function encodingOf(model: string): Promise<string | null> {
  if (ENCODING_OF[model]) return ENCODING_OF[model];
  const { getEncodingNameForModel } = await import('js-tiktoken/lite');
  try {
    return getEncodingNameForModel(model as Parameters<typeof getEncodingNameForModel>[0]);
  } catch {
    return null;
  }
}

/**
 * Splits a text where a run of newlines meets a non-space character: tiktoken's pre-tokenizer
 * (cl100k, p50k, r50k, o200k) never joins across such a point, so token counts add up exactly over
 * the pieces, and the few-shot exemplars every prompt repeats are counted once and remembered.
 */
export function splitForCounting(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 1; i < text.length; i++) {
    if (text[i - 1] === '\n' && !/\s/.test(text[i])) {
      out.push(text.slice(start, i));
      start = i;
    }
  }
  out.push(text.slice(start));
  return out.filter((s) => s !== '');
}

const counters = new Map<string, Promise<TokenCounter>>();

/** The model's own tokenizer when it is an OpenAI model js-tiktoken knows, else chars/4 (one per model and process). */
export function tokenCounterFor(model: string | null | undefined): Promise<TokenCounter> {
  if (!model) return Promise.resolve(CHARS_PER_4);
  let c = counters.get(model);
  if (!c) counters.set(model, (c = loadCounter(model)));
  return c;
}

async function loadCounter(model: string): Promise<TokenCounter> {
  const enc = await encodingOf(model);
  if (!enc) return CHARS_PER_4;
  const { Tiktoken } = await import('js-tiktoken/lite');
  let ranks: ConstructorParameters<typeof Tiktoken>[0];
  try {
    ranks = (await import(`js-tiktoken/ranks/${enc}`)).default;
  } catch {
    return CHARS_PER_4;
  }
  const tk = new Tiktoken(ranks);
  const memo = new Map<string, number>();
  const piece = (s: string): number => {
    let n = memo.get(s);
    if (n === undefined) {
      n = tk.encode(s, [], []).length;
      memo.set(s, n);
    }
    return n;
  };
  return {
    name: `${enc} (the model's tokenizer, js-tiktoken)`,
    exact: true,
    count: (t) => splitForCounting(t).reduce((a, s) => a + piece(s), 0),
  };
}

/** The model name a run's settings give (null: an embedded GGUF model or none). */
export function modelNameOf(settings: Settings): string | null {
  const f = JsonFields.orEmpty(settings);
  const model = f.str('model');
  return model !== undefined && model !== '' && f.get('llm') === undefined ? model : null;
}

const officialOnly = (settings: Settings): boolean => {
  const urls = ([] as unknown[]).concat(JsonFields.orEmpty(settings).get('baseUrl') ?? []).flatMap((u) => String(u).split(','));
  return urls.every(isOfficialOpenAI);
};

/**
 * The prices for a dry run: the run's own (deps.prices) when they resolve; otherwise, for a model of
 * the built-in list sent to OpenAI's endpoint (no --base-url, or api.openai.com), its list price:
 * a dry run needs no key to say what the run would cost.
 */
export function dryRunPrices(settings: Settings, resolved: PriceInfo | null, env: NodeJS.ProcessEnv = process.env): PriceInfo | null {
  const model = modelNameOf(settings);
  const unresolved = !resolved || 'error' in resolved || isUnpriced(resolved);
  if (!model || !unresolved) return resolved;
  // OPENAI_BASE_URL names the endpoint when no --base-url does (src/llm/config.ts).
  const official = officialOnly(settings) && (JsonFields.orEmpty(settings).has('baseUrl') || !env.OPENAI_BASE_URL?.trim());
  const listed = resolvePrices(model, { officialOpenAI: official });
  return listed.source === 'builtin' ? priceInfoOf(listed, model) : resolved;
}

/** What a run's dry run adds to the experiment's total. */
export interface DryRunCost {
  kind: 'calls' | 'combination';
  episodes: number;
  calls: { min: number; max: number };
  promptTokens: { min: number; max: number };
  completionTokensMax: number;
  /** USD, or null when the price is unknown. */
  usd: { min: number; max: number } | null;
}

export interface CostInput {
  derived: boolean;
  toRun: number;
  unbuilt: number;
  firstPromptTokens: number;
  firstCompletionTokensMax: number;
  turnLimit: number | null;
  prices: PriceInfo | null;
}

/**
 * The range of one run: at least one call per episode (the first, whose prompt was built), at most
 * one per turn up to the turn limit, each prompt longer than the last by at most that turn's
 * completion (observations come on top: the upper figure counts them as nothing).
 */
export function runCost(p: CostInput): DryRunCost {
  if (p.derived)
    return {
      kind: 'combination',
      episodes: 0,
      calls: { min: 0, max: 0 },
      promptTokens: { min: 0, max: 0 },
      completionTokensMax: 0,
      usd: { min: 0, max: 0 },
    };
  const calls = p.toRun - p.unbuilt;
  const T = p.turnLimit !== null && p.turnLimit > 1 ? p.turnLimit : 1;
  const perCallCompletion = calls > 0 ? p.firstCompletionTokensMax / calls : 0;
  const promptMax = p.firstPromptTokens * T + Math.round(calls * perCallCompletion * ((T * (T - 1)) / 2));
  const prompt = { min: p.firstPromptTokens, max: promptMax };
  const completionMax = p.firstCompletionTokensMax * T;
  // An unknown rate is no price (its stand-in 0 would read as a free run: README "Reliability").
  const price = p.prices && !('error' in p.prices) && !isUnpriced(p.prices) ? p.prices : null;
  const usd = price
    ? {
        min: costUsd({ promptTokens: prompt.min, completionTokens: p.firstCompletionTokensMax }, price),
        max: costUsd({ promptTokens: prompt.max, completionTokens: completionMax }, price),
      }
    : null;
  return {
    kind: 'calls',
    episodes: p.toRun,
    calls: { min: calls, max: calls * T },
    promptTokens: prompt,
    completionTokensMax: completionMax,
    usd,
  };
}

const range = (r: { min: number; max: number }, f: (n: number) => string = num) =>
  r.min === r.max ? f(r.min) : `${f(r.min)}..${f(r.max)}`;

/** The cost line of one run's dry run. */
export function costLine(p: CostInput, maxCostUsd?: number): string[] {
  if (p.derived) return ['  cost: none of its own (a combination makes no model calls)'];
  if (!p.prices) return ['  cost: unknown (no price information)'];
  if ('error' in p.prices) return [`  cost: unknown (${p.prices.error})`];
  if (isUnpriced(p.prices))
    return [
      `  cost: unknown (no price known for ${p.prices.model ?? 'this model'}: give --price-prompt and --price-completion, USD per 1M tokens)`,
    ];
  const c = runCost(p);
  const out = [
    `  cost at $${p.prices.promptPerM}/$${p.prices.completionPerM} per 1M prompt/completion tokens (${p.prices.source}): ` +
      (c.usd!.min === c.usd!.max
        ? `about ${formatUsd(c.usd!.max)}`
        : `${formatUsd(c.usd!.min)}..${formatUsd(c.usd!.max)} (one call per episode .. every episode to its turn limit)`) +
      ' (cached completions cost nothing)',
  ];
  if (maxCostUsd !== undefined && c.usd!.max > maxCostUsd)
    out.push(`  --max-cost ${formatUsd(maxCostUsd)} may stop this run before it finishes (it resumes)`);
  return out;
}

/** The interactive line: calls and prompt tokens as a range over the number of turns. */
export function interactiveLine(p: CostInput): string | null {
  const T = p.turnLimit;
  if (p.derived || T === null || T <= 1) return null;
  const c = runCost(p);
  return `  interactive: 1..${T} calls per episode (it ends at its answer or at its turn limit), so ${range(c.calls)} calls and ${range(c.promptTokens)} prompt tokens (the upper figure adds each turn's completion to the next prompt; observations come on top)`;
}

/** The experiment's total over its runs' dry runs (nothing for a single run). */
export function totalLines(costs: readonly DryRunCost[], counter: string): string[] {
  if (costs.length < 2) return [];
  const sum = (f: (c: DryRunCost) => number) => costs.reduce((a, c) => a + f(c), 0);
  const calls = { min: sum((c) => c.calls.min), max: sum((c) => c.calls.max) };
  const prompt = { min: sum((c) => c.promptTokens.min), max: sum((c) => c.promptTokens.max) };
  const priced = costs.filter((c) => c.usd !== null);
  const combos = costs.filter((c) => c.kind === 'combination').length;
  const usd = { min: priced.reduce((a, c) => a + c.usd!.min, 0), max: priced.reduce((a, c) => a + c.usd!.max, 0) };
  const unknown = costs.length - priced.length;
  return [
    `total: ${costs.length} runs${combos ? ` (${combos} combination${combos === 1 ? '' : 's'}, no calls of their own)` : ''}: ${range(calls)} model calls, ${range(prompt)} prompt tokens (${counter}), ` +
      `completions at most ${num(sum((c) => c.completionTokensMax))} tokens; cost ${range(usd, formatUsd)}` +
      (unknown ? ` for the ${priced.length} priced run${priced.length === 1 ? '' : 's'} (${unknown} without a price)` : ''),
  ];
}
