// The content of a report: every benchmark's paper tables and figures for the runs given (each
// benchmark picks the runs it knows; a table id two benchmarks share is drawn once), and one table
// of run details. Renderers (md, csv, tex, html) draw this; none of them knows a benchmark.
import type { Benchmark } from '../benchmarks/types.js';
import type { ReportColumn, ReportFigure, ReportRow, ReportTable, RunView } from './model.js';

export interface ReportContent {
  tables: ReportTable[];
  figures: ReportFigure[];
  /** Every run's details (split, n, errors, each metric, calls, tokens, cost, status). */
  runsTable: ReportTable;
  runs: RunView[];
}

export function buildReport(runs: RunView[], benchmarks: Benchmark[]): ReportContent {
  const tables: ReportTable[] = [];
  const figures: ReportFigure[] = [];
  for (const b of benchmarks) {
    for (const t of b.reportTables(runs)) if (!tables.some((x) => x.id === t.id)) tables.push(t);
    for (const f of b.reportFigures?.(runs) ?? []) if (!figures.some((x) => x.id === f.id)) figures.push(f);
  }
  return { tables, figures, runsTable: runsTable(runs), runs };
}

export function runsTable(runs: RunView[]): ReportTable {
  const metricLabels = new Map<string, string>();
  for (const r of runs) {
    for (const m of r.manifest.metrics ?? Object.keys(r.summary.metrics).map((key) => ({ key, label: key.toUpperCase() }))) {
      if (!metricLabels.has(m.key)) metricLabels.set(m.key, m.label);
    }
  }
  const columns: ReportColumn[] = [
    { key: 'task', label: 'Task' },
    { key: 'method', label: 'Method' },
    { key: 'split', label: 'Split' },
    { key: 'model', label: 'Model' },
    { key: 'done', label: 'Done' },
    { key: 'errors', label: 'Errors' },
    ...[...metricLabels].map(([key, label]) => ({ key: `m.${key}`, label, numeric: true })),
    { key: 'calls', label: 'Calls' },
    { key: 'tokens', label: 'Tokens' },
    { key: 'cost', label: 'Cost (USD)' },
    { key: 'cached', label: 'Cached calls' },
    { key: 'status', label: 'Status' },
  ];
  const rows: ReportRow[] = runs.map((r) => {
    const s = r.summary;
    const m = r.manifest;
    return {
      label: m.runId,
      source: 'ours',
      cells: {
        task: m.task,
        method: m.method,
        split: m.split + (m.shard ? ` (shard ${m.shard})` : ''),
        model: m.model,
        done: `${s.n_done}/${s.n_planned}`,
        errors: s.n_errors,
        ...Object.fromEntries([...metricLabels.keys()].map((k) => [`m.${k}`, s.metrics[k] ?? null])),
        calls: s.n_calls,
        tokens: s.total_tokens,
        cost: s.cost_usd.toFixed(4),
        cached: s.cached_calls,
        status: m.kind === 'run' ? (m.sessions?.at(-1)?.status ?? '') : m.kind,
      },
    };
  });
  return { id: 'runs', title: 'Runs', columns, rows, notes: [] };
}
