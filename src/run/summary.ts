// summary.csv: one row per run, computed from the latest record per item in planned order, so an
// interrupted-and-resumed run summarises exactly like an uninterrupted one (nothing time-dependent).
// Generic over the metrics the run's benchmark declared (recorded in its manifest).
import { stringify } from 'csv-stringify/sync';
import type { EpisodeRecord } from './record.js';

export interface RunMeta {
  runId: string;
  /** The benchmark (manifest.task). */
  task: string;
  method: string;
  split: string;
  model: string;
  shard?: string | null;
}

export interface RunSummary extends RunMeta {
  /** Episodes the run is meant to cover (its split after --indices / --limit / --shard). */
  n_planned: number;
  /** Episodes with a record (scored or error). */
  n_done: number;
  /** Scored episodes (no infrastructure error): every metric is over these. */
  n_scored: number;
  n_errors: number;
  /** Each declared metric in percent over scored episodes, in declaration order (null when none scored). */
  metrics: Record<string, number | null>;
  n_calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost_usd: number;
  cached_calls: number;
}

/** Records of the planned indices, in plan order (records for other indices are ignored). */
export function orderedRecords(records: Map<number, EpisodeRecord>, planned: number[]): EpisodeRecord[] {
  const out: EpisodeRecord[] = [];
  for (const idx of planned) {
    const r = records.get(idx);
    if (r) out.push(r);
  }
  return out;
}

/** Mean of 0..1 values as a percentage with two decimals, from the sum and the count. */
export function percentOf(sum: number, n: number): number | null {
  return n > 0 ? Math.round((sum / n) * 10000) / 100 : null;
}

export function summarize(meta: RunMeta, records: Map<number, EpisodeRecord>, planned: number[], metricKeys: readonly string[]): RunSummary {
  const recs = orderedRecords(records, planned);
  const scored = recs.filter((r) => !r.error);
  const sum = (f: (r: EpisodeRecord) => number, rs = recs) => rs.reduce((a, r) => a + f(r), 0);
  const metrics: Record<string, number | null> = {};
  for (const k of metricKeys) metrics[k] = percentOf(sum((r) => r.metrics?.[k] ?? 0, scored), scored.length);
  return {
    ...meta,
    shard: meta.shard ?? null,
    n_planned: planned.length,
    n_done: recs.length,
    n_scored: scored.length,
    n_errors: recs.length - scored.length,
    metrics,
    n_calls: sum((r) => r.n_calls),
    prompt_tokens: sum((r) => r.usage.prompt_tokens),
    completion_tokens: sum((r) => r.usage.completion_tokens),
    total_tokens: sum((r) => r.usage.total_tokens),
    cost_usd: Math.round(sum((r) => r.cost) * 1e6) / 1e6,
    cached_calls: sum((r) => r.cached_calls),
  };
}

const HEAD: (keyof RunSummary)[] = ['runId', 'task', 'method', 'split', 'model', 'shard', 'n_planned', 'n_done', 'n_scored', 'n_errors'];
const TAIL: (keyof RunSummary)[] = ['n_calls', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cost_usd', 'cached_calls'];

/** One row per run; the metric columns are the union of the runs' metrics, in first-seen order. */
export function summaryCsv(rows: RunSummary[]): string {
  const metricKeys = [...new Set(rows.flatMap((r) => Object.keys(r.metrics)))];
  const blank = (v: unknown) => (v === null || v === undefined ? '' : v);
  return stringify(
    rows.map((r) => [...HEAD.map((c) => blank(r[c])), ...metricKeys.map((k) => blank(r.metrics[k])), ...TAIL.map((c) => blank(r[c]))]),
    { header: true, columns: [...HEAD.map((c) => (c === 'runId' ? 'run_id' : c)), ...metricKeys, ...TAIL] },
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
  manifest: { runId: string; task: string; method: string; split: string; model: string; shard?: string | null; indices: number[]; metrics?: { key: string }[] },
  records: Map<number, EpisodeRecord>,
): RunSummary {
  const { runId, task, method, split, model, shard } = manifest;
  return summarize({ runId, task, method, split, model, shard }, records, manifest.indices, metricKeysOf(manifest, records.values()));
}
