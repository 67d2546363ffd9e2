// summary.csv: one row per run, computed from the latest record per question_idx in split order, so an
// interrupted-and-resumed run summarises exactly like an uninterrupted one (nothing time-dependent).
import { stringify } from 'csv-stringify/sync';
import type { EpisodeRecord } from './record.js';
import { gpt3Figure, palmFigure } from '../report/paper-figures.js';

export interface RunMeta {
  runId: string;
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
  /** Scored episodes (no infrastructure error): EM and F1 are over these. */
  n_scored: number;
  n_errors: number;
  /** Percent, over scored episodes (null when none). */
  em: number | null;
  f1: number | null;
  n_calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost_usd: number;
  cached_calls: number;
  paper_palm540b: number | null;
  paper_gpt3: number | null;
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

export function summarize(meta: RunMeta, records: Map<number, EpisodeRecord>, planned: number[]): RunSummary {
  const recs = orderedRecords(records, planned);
  const scored = recs.filter((r) => !r.error);
  const sum = (f: (r: EpisodeRecord) => number, rs = recs) => rs.reduce((a, r) => a + f(r), 0);
  const pct = (x: number) => Math.round(x * 10000) / 100;
  return {
    ...meta,
    shard: meta.shard ?? null,
    n_planned: planned.length,
    n_done: recs.length,
    n_scored: scored.length,
    n_errors: recs.length - scored.length,
    em: scored.length ? pct(sum((r) => r.em, scored) / scored.length) : null,
    f1: scored.length ? pct(sum((r) => r.f1, scored) / scored.length) : null,
    n_calls: sum((r) => r.n_calls),
    prompt_tokens: sum((r) => r.usage.prompt_tokens),
    completion_tokens: sum((r) => r.usage.completion_tokens),
    total_tokens: sum((r) => r.usage.total_tokens),
    cost_usd: Math.round(sum((r) => r.cost) * 1e6) / 1e6,
    cached_calls: sum((r) => r.cached_calls),
    paper_palm540b: palmFigure(meta.method, meta.task) ?? null,
    paper_gpt3: gpt3Figure(meta.method, meta.task) ?? null,
  };
}

export const SUMMARY_COLUMNS: (keyof RunSummary)[] = [
  'runId', 'task', 'method', 'split', 'model', 'shard', 'n_planned', 'n_done', 'n_scored', 'n_errors', 'em', 'f1',
  'n_calls', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cost_usd', 'cached_calls', 'paper_palm540b',
  'paper_gpt3',
];

export function summaryCsv(rows: RunSummary[]): string {
  return stringify(
    rows.map((r) => SUMMARY_COLUMNS.map((c) => (r[c] === null || r[c] === undefined ? '' : r[c]))),
    { header: true, columns: SUMMARY_COLUMNS.map((c) => (c === 'runId' ? 'run_id' : c)) },
  );
}
