// The meter: the one source of every token and money figure of a run (README "Reliability",
// docs/protocol.md §3 costs). The metering layer of the per-episode model chain (src/run/model-chain.ts)
// hands it every answered call once:
// - an episode's figures (EpisodeMeter): the calls, the tokens and cost each call stands for (a cache hit
//   at its stored usage: a replayed run is not "0 tokens"), and what went to the model (spent): the
//   record's usage/cost and spent_usage/spent_cost;
// - what the invocation paid for (SpendMeter): a session's `spent` in the manifest, the result line,
//   and the --max-cost budget's admission (src/run/budget.ts), summed over the runs of one command.
// Each answered call also has its line in recording.jsonl (src/run/run-recording.ts), appended as soon
// as the answer is back, with the session id in its attempt, carrying what went to the model. So the
// spend of a session is recoverable from the recording even after kill -9, and a call paid by a stopped
// session and served from the cache on resume is not lost: the run's spend is the sum of its sessions'
// spend (manifest.sessions[].spent), not of its surviving episode records. A call aborted in flight
// (Ctrl-C, a budget stop) may or may not have been billed: it is counted as paid-unknown.
import type { CompletionRequest, CompletionResult, TokenUsage } from '../llm/types.js';
import type { PromptObservation } from '../llm/context-limit.js';
import { recordingText } from '../runlog/store.js';
import {
  spentOf,
  usageUnknownCalls,
  type EpisodeRecord,
  type PriceStatus,
  type RunSummary,
  type SessionInfo,
  type Spend,
} from '../runlog/schema.js';
import { billText, tokensText, type CostStanding } from '../util/money.js';
import { pricesOfDescription } from '../llm/pricing.js';

export type { Spend } from '../runlog/schema.js';

/** Tokens and their cost in USD at the run's prices, and the calls they leave out (answered without usage). */
export interface Tally {
  usage: TokenUsage;
  costUsd: number;
  unknownCalls: number;
}

export const noTally = (): Tally => ({ usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 }, costUsd: 0, unknownCalls: 0 });

function addTally(a: Tally, b: Tally): void {
  a.usage.promptTokens += b.usage.promptTokens;
  a.usage.completionTokens += b.usage.completionTokens;
  a.usage.totalTokens += b.usage.totalTokens;
  a.costUsd += b.costUsd;
  a.unknownCalls += b.unknownCalls;
}

/** What a call stands for, cache hits included (the cache's `total`; a fresh call: what it spent). */
export function usedBy(res: CompletionResult): Tally {
  const t = res.total ?? { usage: res.usage, costUsd: res.costUsd, usageUnknown: res.usageUnknown };
  return { usage: t.usage, costUsd: t.costUsd, unknownCalls: t.usageUnknown ? 1 : 0 };
}

/** What one command paid for, and each run's session within it (a session meter adds to its command's). */
export class SpendMeter {
  readonly spent: Spend = noSpend();

  /**
   * `unpriced`: the model has no known price, so its calls are metered at $0, which is not money; every
   * episode this meter counts says so in its record (cost_unpriced), read by costKnown.
   */
  constructor(
    private readonly parent?: SpendMeter,
    readonly unpriced = false,
  ) {}

  /** An answered call that went to the model (a miss or a top-up), with what it was billed. */
  paid(usage: TokenUsage, costUsd: number): void {
    addCall(this.spent, usage, costUsd);
    this.parent?.paid(usage, costUsd);
  }

  /** A call sent and then aborted, or answered without usage: the server may have billed it, how much is unknown. */
  paidUnknown(): void {
    this.spent.paid_unknown_calls++;
    this.parent?.paidUnknown();
  }

  /** USD spent so far (what the budget admits calls against). */
  get costUsd(): number {
    return this.spent.cost_usd;
  }
}

/**
 * One episode's figures. An episode whose environment server left the pool starts again (src/envs/pool.ts):
 * the attempt's figures (its calls, what they stand for, the limit notes) start again with it; what the
 * episode used and spent keeps every attempt (the bill).
 */
export class EpisodeMeter {
  /** Calls asked for in this attempt (answered or not), and those served wholly from the cache. */
  calls = 0;
  cachedCalls = 0;
  /** What the attempt's answered calls stand for, cache hits included. */
  attempt = noTally();
  /** Every attempt's answered calls: what they stand for, and what went to the model. */
  readonly used = noTally();
  readonly spent = noTally();
  /** Choices that ended on max_tokens (finish_reason "length"), and each single-choice prompt's reported size. */
  lengthStops = 0;
  prompts: PromptObservation[] = [];
  /** Answered calls of every attempt. */
  answers = 0;

  constructor(private readonly session?: SpendMeter) {}

  /** The episode's calls were metered with no known price (their cost is not money). */
  get unpriced(): boolean {
    return this.answers > 0 && this.session?.unpriced === true;
  }

  asked(): void {
    this.calls++;
  }

  answered(req: CompletionRequest, res: CompletionResult): void {
    this.answers++;
    if (res.choices.length > 0 && res.cachedChoices >= res.choices.length) this.cachedCalls++;
    const used = usedBy(res);
    addTally(this.attempt, used);
    addTally(this.used, used);
    // A call replayed from a bundle counts as its original did (its usage and cost are the original's),
    // so its record comes out as the bundled one (src/run/from-bundle.ts).
    addTally(this.spent, { usage: res.usage, costUsd: res.costUsd, unknownCalls: askedModel(res) && res.usageUnknown ? 1 : 0 });
    if (wentToModel(res)) {
      if (res.usageUnknown) this.session?.paidUnknown();
      else this.session?.paid(res.usage, res.costUsd);
    }
    this.lengthStops += res.choices.filter((c) => c.finishReason === 'length').length;
    // Several samples may be several requests (servers that ignore n): their prompt tokens add up.
    if (req.n === 1) this.prompts.push({ chars: req.prompt.length, promptTokens: used.usage.promptTokens });
  }

  /** A call that failed; `inFlight`: it was sent and then aborted, so it may have been billed. */
  failed(inFlight: boolean): void {
    if (inFlight) this.session?.paidUnknown();
  }

  /** The attempt was lost (its environment server left): the next one starts its own figures. */
  restart(): void {
    this.calls = 0;
    this.cachedCalls = 0;
    this.attempt = noTally();
    this.lengthStops = 0;
    this.prompts = [];
  }
}

export const noSpend = (): Spend => ({
  calls: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  cost_usd: 0,
  paid_unknown_calls: 0,
});

/** Whether an answered call asked the model for any of its samples (not wholly a cache hit); a bundle's answer did, once. */
function askedModel(res: { choices: readonly unknown[]; cachedChoices: number }): boolean {
  return res.cachedChoices < res.choices.length;
}

/** Whether an answered call went to the model now (asked it, and not a bundle's answer replayed). */
export function wentToModel(res: { choices: readonly unknown[]; cachedChoices: number; replayed?: boolean }): boolean {
  return askedModel(res) && !res.replayed;
}

/** Counts one answered call that went to the model, with what it was billed. */
export function addCall(s: Spend, usage: TokenUsage, costUsd: number): void {
  s.calls++;
  s.prompt_tokens += usage.promptTokens;
  s.completion_tokens += usage.completionTokens;
  s.total_tokens += usage.totalTokens;
  s.cost_usd += costUsd;
}

export function addSpend(a: Spend, b: Spend): Spend {
  return {
    calls: a.calls + b.calls,
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
    cost_usd: a.cost_usd + b.cost_usd,
    paid_unknown_calls: a.paid_unknown_calls + b.paid_unknown_calls,
  };
}

/**
 * Each recording session's spend, read from a run folder's recording.jsonl: every answered llm line
 * counts (usage/cost are what went to the model), an llm line with an abort error counts as
 * paid-unknown. A torn last line (kill -9) is skipped. Empty when the run has no recording.
 */
export function spendByRecordingSession(dir: string): Map<string, Spend> {
  const out = new Map<string, Spend>();
  const text = recordingText(dir);
  if (text === null) return out;
  for (const raw of text.split('\n')) {
    if (!raw.includes('"t":"llm"')) continue;
    let l: {
      attempt?: unknown;
      choices?: unknown[];
      cached?: number;
      usage?: TokenUsage;
      usageUnknown?: boolean;
      replayed?: boolean;
      cost?: unknown;
      error?: { kind?: unknown; aborted?: unknown; unsent?: unknown };
    };
    try {
      l = JSON.parse(raw);
    } catch {
      continue; // a torn line
    }
    if (typeof l.attempt !== 'string') continue;
    const session = l.attempt.slice(0, l.attempt.lastIndexOf('.'));
    const s = out.get(session) ?? noSpend();
    out.set(session, s);
    if (l.usage) {
      // A line without its choices (not written so since the recording began): one that spent nothing was a hit.
      const fresh = Array.isArray(l.choices)
        ? wentToModel({ choices: l.choices, cachedChoices: l.cached ?? 0, replayed: l.replayed })
        : l.usage.totalTokens > 0;
      if (!fresh) continue;
      if (l.usageUnknown) s.paid_unknown_calls++;
      else addCall(s, l.usage, typeof l.cost === 'number' ? l.cost : 0);
    } else if (l.error && isInFlightAbort(l.error)) s.paid_unknown_calls++;
  }
  return out;
}

/** A recorded error of a call that was sent and then aborted (not a budget refusal, nor a call aborted before any request of it could be billed). */
export function isInFlightAbort(error: { kind?: unknown; aborted?: unknown; name?: unknown; unsent?: unknown }): boolean {
  return error.aborted === true && error.name !== 'BudgetStop' && error.unsent !== true;
}

/**
 * Fills in the spend of earlier sessions that never recorded it (killed, or crashed) from the
 * recording. Returns whether a session changed.
 */
export function settleEarlierSessions(dir: string, sessions: SessionInfo[]): boolean {
  const missing = sessions.filter((s) => s.spent === undefined && s.recording !== undefined);
  if (!missing.length) return false;
  const by = spendByRecordingSession(dir);
  for (const s of missing) s.spent = by.get(s.recording!) ?? noSpend();
  return true;
}

/**
 * What the whole run (or merge) spent: the sum of its sessions' spend, when every session recorded one
 * (runs made by this version); null otherwise (older runs: spend is summed from their episode records).
 */
export function runSpend(manifest: { sessions?: readonly { spent?: Spend }[]; kind?: string }): Spend | null {
  const sessions = manifest.sessions ?? [];
  const kind = manifest.kind ?? 'run';
  // A merge carries its shards' sessions: its spend is theirs. A combination makes no calls.
  if ((kind !== 'run' && kind !== 'merge') || sessions.length === 0 || sessions.some((s) => s.spent === undefined)) return null;
  return sessions.reduce((a, s) => addSpend(a, s.spent!), noSpend());
}

export type { PriceStatus } from '../runlog/schema.js';

/**
 * Whether a run's cost figures mean money, the one rule of summary.csv, the result line and the reports.
 * Not when one of its episodes was metered with no known price (its record says cost_unpriced), nor when
 * one of its sessions with no known price paid for calls: a run resumed with prices added (or without
 * them), or a merge of priced and unpriced shards, would otherwise show a partial sum as its cost.
 * Sessions written before a session recorded its price are judged as before: by the model the
 * manifest describes (its first session's), or known when the run recorded money anyway.
 */
export function costKnown(run: PricedRun, records: readonly Pick<EpisodeRecord, 'cost_unpriced'>[], costUsd: number): boolean {
  if (records.some((r) => r.cost_unpriced === true)) return false;
  const sessions = run.sessions ?? [];
  if (sessions.some((s) => s.price === 'unknown' && s.spent !== undefined && s.spent.calls + s.spent.paid_unknown_calls > 0)) return false;
  // Never a price at all (a run stopped before its first call): its $0 is no price either.
  if (sessions.length > 0 && sessions.every((s) => s.price === 'unknown')) return false;
  return sessionsSayPrice(run) || pricesOfDescription(run.modelDescription ?? {}).status !== 'unknown' || costUsd > 0;
}

/**
 * Whether one episode's cost is money (an export's row): not when it was metered with no known price; in
 * a run from before sessions recorded their price, as the run's cost is (`runKnown`: summary.cost_known).
 */
export function episodeCostKnown(record: Pick<EpisodeRecord, 'cost_unpriced'>, run: PricedRun, runKnown: boolean): boolean {
  return record.cost_unpriced !== true && (sessionsSayPrice(run) || runKnown);
}

/** What the cost rules read of a run's manifest. */
export interface PricedRun {
  kind?: string;
  modelDescription?: Record<string, unknown>;
  sessions?: readonly { price?: PriceStatus; spent?: Spend }[];
}

/** Every session recorded its price, so its episodes' records say when they were metered without one. */
function sessionsSayPrice(run: PricedRun): boolean {
  const sessions = run.sessions ?? [];
  return sessions.length > 0 && sessions.every((s) => s.price !== undefined);
}

/**
 * Whether every session a run's figures cover billed nothing by its rates (price status 'free': a model
 * run in-process, or rates of 0 given: src/llm/pricing.ts), so its calls without usage cost nothing
 * either. A session written before sessions recorded their price is judged by the model the manifest
 * describes, as costKnown judges it. The description is the first session's model with its rates, so
 * a first session at rates of 0 it states is free though it recorded 'known' (as such rates were
 * recorded before they were free); any other session needs its own 'free'.
 */
export function costFree(run: PricedRun): boolean {
  const described = run.modelDescription ? pricesOfDescription(run.modelDescription) : undefined;
  const describedFree = described?.status === 'free';
  const statesZeroRates = describedFree && run.modelDescription?.pricesUsdPer1M !== undefined;
  const sessions = run.sessions ?? [];
  if (sessions.length === 0) return describedFree;
  // A combination's one session records its bases' price (src/run/combination-run.ts), and its
  // description is one base's model: that 'known' is not a first session's rates of 0.
  const describesFirst = run.kind !== 'combination';
  return sessions.every(
    (s, i) =>
      s.price === 'free' ||
      (s.price === undefined && describedFree) ||
      (i === 0 && s.price === 'known' && statesZeroRates && describesFirst),
  );
}

/**
 * What a count of tokens is of the calls it stands for, the rule under every figure of the meter
 * (README "Reliability"): whole when it leaves no call out; unknown when it counts none of them (`tokens`
 * 0: every call was answered without usage, so its 0 is no count); else a lower bound, leaving out
 * `uncountedCalls` (answered without usage, or cut off in flight) but counting others. Its cost follows
 * it (costStanding).
 */
export function tokenStanding(f: { tokens: number; uncountedCalls: number }): CostStanding {
  if (f.uncountedCalls <= 0) return 'whole';
  return f.tokens <= 0 ? 'unknown' : 'at-least';
}

/**
 * The one rule of what a cost figure is of the bill, for every output (the closing lines, the progress
 * line, summary.csv, the report's tables, export; README "Reliability"): unknown when it is not money
 * (`priced` false: costKnown); whole when every session it covers billed nothing by its rates (`free`:
 * costFree; the calls it leaves out cost nothing either, so its $0 is the bill); else as its tokens are
 * (tokenStanding): whole when it leaves no call out, unknown when it counts none of its calls (its $0
 * is not what was billed), a lower bound when it leaves some out. A $0 counted at some session's rates
 * is not whole for being $0: calls of another session, at other rates, may be the ones left out.
 */
export function costStanding(f: { priced: boolean; free: boolean; tokens: number; uncountedCalls: number }): CostStanding {
  if (!f.priced) return 'unknown';
  return f.free ? 'whole' : tokenStanding(f);
}

/** What a spend's figures count: its tokens, and its calls of unknown billing, which they leave out. */
const spendCounts = (s: Spend) => ({ tokens: s.total_tokens, uncountedCalls: s.paid_unknown_calls });

/**
 * A spend's cost (what a command or session paid for): its calls of unknown billing are left out.
 * `free`: the invocation's model billed nothing by its rates (its price status).
 */
export function spendStanding(s: Spend, o: { free?: boolean } = {}): CostStanding {
  return costStanding({ priced: true, free: o.free ?? false, ...spendCounts(s) });
}

/** What a run's two figures count: the total (every call, cache hits included) and the spent (what its sessions paid for). */
function runCounts(s: Pick<RunSummary, 'total_tokens' | 'usage_unknown_calls' | 'spent_tokens' | 'paid_unknown_calls'>) {
  return {
    total: { tokens: s.total_tokens, uncountedCalls: s.usage_unknown_calls },
    spent: { tokens: s.spent_tokens, uncountedCalls: s.paid_unknown_calls },
  };
}

/**
 * A run's two cost figures: the total (every call, cache hits included) leaves out the calls answered
 * without usage; the spent (what its sessions paid for) leaves out the calls of unknown billing.
 */
export function runCostStandings(
  s: Pick<RunSummary, 'cost_known' | 'cost_free' | 'total_tokens' | 'usage_unknown_calls' | 'spent_tokens' | 'paid_unknown_calls'>,
): { total: CostStanding; spent: CostStanding } {
  const priced = s.cost_known !== false;
  const free = s.cost_free === true;
  const counts = runCounts(s);
  return {
    total: costStanding({ priced, free, ...counts.total }),
    spent: costStanding({ priced, free, ...counts.spent }),
  };
}

/** A run's two token figures, leaving out the calls its cost figures leave out (runCostStandings). */
export function runTokenStandings(s: Pick<RunSummary, 'total_tokens' | 'usage_unknown_calls' | 'spent_tokens' | 'paid_unknown_calls'>): {
  total: CostStanding;
  spent: CostStanding;
} {
  const counts = runCounts(s);
  return { total: tokenStanding(counts.total), spent: tokenStanding(counts.spent) };
}

/** What the cost figures of a run's episodes read from the run (episodeCostContext). */
export interface EpisodeCostContext {
  kind: string | undefined;
  /** costFree: every session billed nothing by its rates. */
  free: boolean;
}

/** What a run's episodes' cost figures read from the run: its kind, and whether it billed nothing. */
export function episodeCostContext(run: PricedRun): EpisodeCostContext {
  return { kind: run.kind, free: costFree(run) };
}

/**
 * One episode's two cost figures (an export's row; `priced`: episodeCostKnown). Its spent leaves out
 * its calls without usage that went to the model, as its record counts them; where the record may be
 * silent about them (episodeCostContext), every call without usage is counted as left out. A
 * combination's episode spent nothing (it makes no calls), which is whole.
 */
export function episodeCostStandings(
  r: Pick<EpisodeRecord, 'usage' | 'cost' | 'usage_unknown_calls' | 'spent_usage' | 'spent_cost' | 'spent_usage_unknown_calls'>,
  priced: boolean,
  run: EpisodeCostContext,
): { total: CostStanding; spent: CostStanding } {
  const uncounted = usageUnknownCalls(r);
  // A record with calls without usage says how many went to the model (src/run/record.ts); one written
  // before it did counts them all as left out.
  const said = r.spent_usage_unknown_calls;
  const spentUncounted = run.kind === 'combination' ? 0 : typeof said === 'number' ? said : uncounted;
  return {
    total: costStanding({ priced, free: run.free, tokens: r.usage?.total_tokens ?? 0, uncountedCalls: uncounted }),
    spent: costStanding({
      priced,
      free: run.free,
      tokens: spentOf(r).usage.total_tokens,
      uncountedCalls: spentUncounted,
    }),
  };
}

/**
 * Money as the closing lines show it: unknown when no price is known (never a false $0.0000); 'partly':
 * this model has a price but some of the run's episodes were metered without one (costKnown); else by
 * its standing by the rule above (runCostStandings: "≥ $0.0123" when it leaves calls out, unknown when
 * it counts none of them). A combination's unknown price is its base runs'.
 */
export function moneyText(usd: number, price: PriceStatus | 'partly', standing: CostStanding, o: { combination?: boolean } = {}): string {
  // a combination's price is its base runs' (combination-run.ts): prices given to it would change nothing
  if (price === 'unknown' && o.combination) return 'cost unknown (a base run has no known price)';
  if (price === 'unknown') return 'cost unknown (no price for this model: give --price-prompt and --price-completion)';
  if (price === 'partly') return 'cost unknown (some of its episodes were run with no known price)';
  return `cost ${billText(usd, standing) ?? 'unknown'}`;
}

/**
 * What a command (or session) spent, as the closing lines state it: "$1.7503", "≥ $1.7503" or `unknown`
 * ("cost unknown"); `free`: its model billed nothing by its rates.
 */
export function spendText(spent: Spend, o: { unknown?: string; free?: boolean } = {}): string {
  return billText(spent.cost_usd, spendStanding(spent, { free: o.free })) ?? o.unknown ?? 'cost unknown';
}

/** The tokens a command (or session) spent, as the closing lines state them: "1,234 tokens", "≥ 1,234 tokens", or an unknown number. */
export function spendTokensText(spent: Spend): string {
  const n = tokensText(spent.total_tokens, tokenStanding(spendCounts(spent)));
  return n === null ? 'an unknown number of tokens' : `${n} tokens`;
}
