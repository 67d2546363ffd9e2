// summary.csv: one row per run, computed from the latest record per item in planned order, so an
// interrupted-and-resumed run scores exactly like an uninterrupted one (its bill, the spent_* and
// paid_unknown_calls columns, is what its sessions paid, and so depends on how they ended).
// Generic over the metrics the run's benchmark declared (recorded in its manifest).
// Every score is computed once from its count and rounded once (src/report/numbers.ts), so the
// summary, the progress line and every report format show the same digits (README "Reports").
import { csvText } from '../util/csv.js';
import { isContextExceeded } from './limit-outcomes.js';
import type { EpisodeRecord, RunMeta, RunSummary } from '../runlog/schema.js';
import { isScored, metricScore } from '../util/numbers.js';
import { spentOf, usageUnknownCalls } from '../runlog/schema.js';
import { costFree, costKnown, runCostStandings, runSpend, type PricedRun } from './meter.js';
import { dollarsCell } from '../util/money.js';

/** Records of the planned indices, in plan order (records for other indices are ignored). */
export function orderedRecords(records: Map<number, EpisodeRecord>, planned: number[]): EpisodeRecord[] {
  const out: EpisodeRecord[] = [];
  for (const idx of planned) {
    const r = records.get(idx);
    if (r) out.push(r);
  }
  return out;
}

/**
 * `run`: the run's manifest (its sessions and model). What its sessions paid for (src/run/meter.ts
 * runSpend) is the one source of the spent figures when known; without it (older runs, merges of them,
 * combinations) spent is summed from the records.
 */
export function summarize(
  meta: RunMeta,
  records: Map<number, EpisodeRecord>,
  planned: number[],
  metricKeys: readonly string[],
  run: PricedRun & { kind?: string } = {},
): RunSummary {
  const spent = run.sessions ? runSpend({ kind: run.kind, sessions: run.sessions }) : null;
  const recs = orderedRecords(records, planned);
  const sum = (f: (r: EpisodeRecord) => number) => recs.reduce((a, r) => a + f(r), 0);
  const cost = sum((r) => r.cost ?? 0);
  const metrics: Record<string, number | null> = {};
  const sums: Record<string, number> = {};
  let scored = recs.filter(isScored).length;
  for (const k of metricKeys) {
    // A schema-1 record may lack a metric another record has: score it as 0, like the run did.
    const s = metricScore(
      recs.map((r) => (r.error || typeof r.metrics?.[k] === 'number' ? r : { ...r, metrics: { ...r.metrics, [k]: 0 } })),
      k,
    );
    metrics[k] = s.value;
    sums[k] = s.sum;
    scored = s.n;
  }
  return {
    ...meta,
    shard: meta.shard ?? null,
    n_planned: planned.length,
    n_done: recs.length,
    n_scored: scored,
    n_errors: recs.length - scored,
    metrics,
    sums,
    n_calls: sum((r) => r.n_calls),
    prompt_tokens: sum((r) => r.usage?.prompt_tokens ?? 0),
    completion_tokens: sum((r) => r.usage?.completion_tokens ?? 0),
    total_tokens: sum((r) => r.usage?.total_tokens ?? 0),
    cost_usd: cost,
    usage_unknown_calls: sum(usageUnknownCalls),
    cached_calls: sum((r) => r.cached_calls ?? 0),
    spent_tokens: spent ? spent.total_tokens : sum((r) => spentOf(r).usage.total_tokens),
    spent_cost_usd: spent ? spent.cost_usd : sum((r) => spentOf(r).cost),
    n_context_exceeded: recs.filter(isContextExceeded).length,
    paid_unknown_calls: (run.sessions ?? []).reduce((a, s) => a + (s.spent?.paid_unknown_calls ?? 0), 0),
    // A call metered with no known price cost $0, which is not money: then no cost figure is known.
    ...(costKnown(run, recs, cost) ? {} : { cost_known: false as const }),
    // Every session billed nothing by its rates: a $0 that leaves calls without usage out is still the bill.
    ...(costFree(run) ? { cost_free: true as const } : {}),
  };
}

const HEAD: (keyof RunSummary)[] = ['runId', 'task', 'method', 'split', 'model', 'shard', 'n_planned', 'n_done', 'n_scored', 'n_errors'];
const TAIL: (keyof RunSummary)[] = [
  'n_calls',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cost_usd',
  'cached_calls',
  'spent_tokens',
  'spent_cost_usd',
  'n_context_exceeded',
  'paid_unknown_calls',
  'usage_unknown_calls',
];

/** Each cost column and which of the run's figures it is (src/run/meter.ts runCostStandings). */
const COST_COLUMNS = new Map<keyof RunSummary, 'total' | 'spent'>([
  ['cost_usd', 'total'],
  ['spent_cost_usd', 'spent'],
]);

/** One row per run; the metric columns are the union of the runs' metrics, in first-seen order. */
export function summaryCsv(rows: RunSummary[]): string {
  const metricKeys = [...new Set(rows.flatMap((r) => Object.keys(r.metrics)))];
  const blank = (v: unknown) => (v === null || v === undefined ? '' : v);
  // A cost that is not known is left blank, as a metric with nothing scored is (the rule: src/run/meter.ts);
  // one that is a lower bound stays a number, the one counted, so the column reads as numbers: its
  // usage_unknown_calls / paid_unknown_calls say it leaves calls out (README "Reliability").
  // Costs to six decimals in the file only: the summary keeps the sum, which the closing line and the
  // reports show with the digits a tiny amount needs (src/util/money.ts).
  const cell = (r: RunSummary, c: keyof RunSummary) => {
    const figure = COST_COLUMNS.get(c);
    return figure ? dollarsCell(r[c] as number, runCostStandings(r)[figure]) : blank(r[c]);
  };
  return csvText(
    rows.map((r) => [...HEAD.map((c) => blank(r[c])), ...metricKeys.map((k) => blank(r.metrics[k])), ...TAIL.map((c) => cell(r, c))]),
    { header: [...HEAD.map((c) => (c === 'runId' ? 'run_id' : c)), ...metricKeys, ...TAIL] },
  );
}

/** The metrics a run reports: as its manifest declares them, or (schema 1) as its records carry them. */
export function metricKeysOf(manifest: { metrics?: { key: string }[] }, records: Iterable<EpisodeRecord>): string[] {
  if (manifest.metrics?.length) return manifest.metrics.map((m) => m.key);
  const keys = new Set<string>();
  for (const r of records) for (const k of Object.keys(r.metrics ?? {})) keys.add(k);
  return [...keys];
}

/** A run folder's summary from its manifest and records. */
export function summarizeRun(
  manifest: {
    runId: string;
    task: string;
    method: string;
    split: string;
    model: string;
    shard?: string | null;
    indices: number[];
    metrics?: { key: string }[];
    kind?: string;
  } & PricedRun,
  records: Map<number, EpisodeRecord>,
): RunSummary {
  const { runId, task, method, split, model, shard } = manifest;
  return summarize(
    { runId, task, method, split, model, shard },
    records,
    manifest.indices,
    metricKeysOf(manifest, records.values()),
    manifest,
  );
}
