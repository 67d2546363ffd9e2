// The content of a report: the runs grouped into comparable sets (grouping.ts), every benchmark's
// paper tables and figures on those sets, paired comparisons, ablations, the error analysis
// (Table 2), the numbers published elsewhere, and a table of every run. Renderers (md, csv, tex,
// html) draw this; none of them knows a benchmark.
import type { Benchmark, MetricDef } from '../benchmarks/types.js';
import type { ReportColumn, ReportFigure, ReportRow, ReportTable, RunView } from './model.js';
import { AnchorBook, loadAnchors, withAnchorBook, type AnchorSet } from './anchors.js';
import { groupRuns, type Cohort } from './grouping.js';
import { comparisonsLookup, comparisonTables } from './comparisons.js';
import { ablationTables } from './ablation.js';
import {
  analysisLookup,
  autoTagTables,
  labelledTables,
  sampleRuns,
  unanalysedBenchmarks,
  unanalysedNote,
  type AnalysisLookup,
  type RunSample,
} from './table2.js';
import { publishedElsewhereTable } from './published.js';
import { methodLabels, type MethodLabelOf, type TitleOf } from './names.js';
import type { LabelRow } from './error-tags.js';
import { scoreCell } from './scores.js';
import { addLimitNotes } from './limit-notes.js';
import { costCell, tokensCell } from './cost.js';
import { runCostStandings, runTokenStandings } from '../run/meter.js';
import { RECORDS_MISSING, runStatus } from './run-status.js';
import { missingRecords } from '../runlog/missing-records.js';
import { StatsCache, withStatsCache } from './stats.js';
import { episodeCorrectness, type EpisodeCorrect } from './correct.js';

export interface ReportOptions {
  title?: string;
  /** A person's Table 2 labels (report --labels FILE). */
  labels?: LabelRow[];
  /** Methods whose runs Table 2 samples (default: each benchmark's own, Benchmark.errorAnalysis.methods). */
  labelMethods?: string[];
  /** The anchors file (default data/anchors/published-numbers.json). */
  anchors?: AnchorSet;
}

export interface ReportSection {
  id: string;
  title: string;
  /** A paragraph before the section's tables. */
  intro?: string;
  tables: ReportTable[];
}

export interface ReportContent {
  title: string;
  /** One line on what the report was built from. */
  summary: string;
  /** The benchmarks' paper tables (Table 1, 3, 4...). */
  tables: ReportTable[];
  figures: ReportFigure[];
  /** Comparisons, ablations, error analysis, published elsewhere (in that order; empty ones left out). */
  sections: ReportSection[];
  /** Every run's details (split, n, errors, each metric, calls, tokens and cost total and spent, status). */
  runsTable: ReportTable;
  /** The runs reported, as stored (after reruns and superseded shards are dropped). */
  runs: RunView[];
  /** The same runs restricted to their cohort's common items (what the tables compared). */
  aligned: RunView[];
  cohorts: Cohort[];
  /** How the runs were grouped: reruns counted once, shards superseded by a merge. */
  notes: string[];
  /** Table 2's samples. */
  samples: RunSample[];
  /** Each benchmark's error-analysis hook by name: the trajectory browser's tags come from it. */
  analysisOf: AnalysisLookup;
  /** A method as its benchmark writes it (Benchmark.methodLabels): the label sheet's sentences use it. */
  methodLabel: MethodLabelOf;
  /** Whether an episode is correct, by its benchmark's rule (correct.ts): the browser's outcome, Table 2's sample. */
  isCorrect: EpisodeCorrect;
}

function metricsLookup(runs: readonly RunView[], benchmarks: readonly Benchmark[]): (b: string) => MetricDef[] {
  return (name) => {
    const declared =
      runs.find((r) => r.manifest.task === name && r.manifest.metrics?.length)?.manifest.metrics ??
      benchmarks.find((b) => b.name === name)?.metrics;
    if (declared?.length) return declared;
    const keys = [
      ...new Set(runs.filter((r) => r.manifest.task === name).flatMap((r) => r.records.flatMap((x) => Object.keys(x.metrics ?? {})))),
    ];
    return keys.map((key) => ({ key, label: key.toUpperCase() }));
  };
}

export function buildReport(all: RunView[], benchmarks: Benchmark[], opts: ReportOptions = {}): ReportContent {
  const grouped = groupRuns(all);
  // Sections follow the benchmarks' registration order (HotpotQA, FEVER, ALFWorld, WebShop).
  const order = (name: string) => {
    const i = benchmarks.findIndex((b) => b.name === name);
    return i < 0 ? benchmarks.length : i;
  };
  grouped.cohorts.sort((a, b) => order(a.benchmark) - order(b.benchmark));
  const titleOf: TitleOf = (name) => benchmarks.find((b) => b.name === name)?.title ?? name;
  const methodLabel = methodLabels(benchmarks);
  const metricsOf = metricsLookup(grouped.runs, benchmarks);
  const book = new AnchorBook(opts.anchors ?? loadAnchors());
  // Every table and the runs table ask for the same cells' intervals: each bootstrap is resampled once per build.
  const stats = new StatsCache();
  return withStatsCache(stats, () =>
    withAnchorBook(book, () => {
      const tables: ReportTable[] = [];
      const figures: ReportFigure[] = [];
      /** Which benchmarks' reportTables gave each table or figure (whose runs its limit notes name). */
      const producedBy = new Map<string, string[]>();
      for (const b of benchmarks) {
        for (const t of b.reportTables(grouped.aligned)) {
          producedBy.set(t.id, [...(producedBy.get(t.id) ?? []), b.name]);
          if (!tables.some((x) => x.id === t.id)) tables.push(t);
        }
        for (const f of b.reportFigures?.(grouped.aligned) ?? []) {
          producedBy.set(f.id, [...(producedBy.get(f.id) ?? []), b.name]);
          if (!figures.some((x) => x.id === f.id)) figures.push(f);
        }
      }
      const sections: ReportSection[] = [];
      const comparisons = comparisonTables(
        grouped.cohorts,
        grouped.aligned,
        metricsOf,
        comparisonsLookup(benchmarks),
        titleOf,
        methodLabel,
      );
      if (comparisons.length)
        sections.push({
          id: 'comparisons',
          title: 'Comparisons',
          intro: 'Two methods on the same items: the difference with its paired 95% interval.',
          tables: comparisons,
        });
      const ablations = ablationTables(grouped.runs, metricsOf, titleOf, methodLabel);
      if (ablations.length)
        sections.push({
          id: 'ablations',
          title: 'Ablations',
          intro: 'Runs of one method on the same items that differ in exactly one setting.',
          tables: ablations,
        });
      const analysisOf = analysisLookup(benchmarks);
      const isCorrect = episodeCorrectness(benchmarks);
      const samples = sampleRuns(grouped.runs, analysisOf, isCorrect, opts.labelMethods).sort(
        (a, b) => order(a.run.manifest.task) - order(b.run.manifest.task),
      );
      const analysis = autoTagTables(samples, titleOf, methodLabel);
      const notes = [...grouped.notes];
      if (opts.labels) {
        const l = labelledTables(grouped.runs, opts.labels, analysisOf, titleOf, methodLabel);
        analysis.unshift(...l.tables);
        notes.push(...l.notes);
      }
      // Runs of a benchmark without an error analysis are never sampled: said where Table 2 is, or was asked for.
      const unanalysed = unanalysedBenchmarks(grouped.runs, analysisOf).sort((a, b) => order(a) - order(b));
      const leftOut = unanalysed.length ? unanalysedNote(unanalysed, titleOf) : undefined;
      if (leftOut && !analysis.length && (opts.labels || opts.labelMethods)) notes.push(leftOut);
      if (analysis.length)
        sections.push({
          id: 'error-analysis',
          title: 'Error analysis (Table 2)',
          ...(leftOut ? { intro: leftOut } : {}),
          tables: analysis,
        });
      const present = [...new Set(grouped.runs.map((r) => r.manifest.task))].sort((a, b) => order(a) - order(b));
      const metricLabel = (b: string, key: string) => metricsOf(b).find((m) => m.key === key)?.label ?? key;
      const published = publishedElsewhereTable(book, present, titleOf, methodLabel, {
        withErrorShares: opts.labels !== undefined,
        metricLabel,
      });
      if (published)
        sections.push({
          id: 'published-elsewhere',
          title: 'Published elsewhere',
          intro: 'Not comparable column by column with ours: each number with its comparability class and source.',
          tables: [published],
        });
      const dropped = all.length - grouped.runs.length;
      const runs = runsTable(
        [...grouped.runs].sort((a, b) => order(a.manifest.task) - order(b.manifest.task)),
        grouped.aligned,
        metricsOf,
        titleOf,
        methodLabel,
      );
      // Model limits reached (context window, max_tokens, silent truncation) are said under every table
      // and figure whose numbers come from the run that reached them.
      addLimitNotes(
        [...tables, ...figures, runs, ...comparisons, ...ablations, ...analysis],
        grouped.runs,
        titleOf,
        methodLabel,
        producedBy,
      );
      return {
        title: opts.title ?? 'ReAct reproduction report',
        summary: `${grouped.runs.length} run(s)${dropped ? ` (${dropped} more folder(s) not counted: see the notes)` : ''} in ${grouped.cohorts.length} comparable set(s) of episodes.`,
        tables,
        figures,
        sections,
        runsTable: runs,
        runs: grouped.runs,
        aligned: grouped.aligned,
        cohorts: grouped.cohorts,
        notes,
        samples,
        analysisOf,
        methodLabel,
        isCorrect,
      };
    }),
  );
}

/**
 * One column per metric as its benchmark names it: HotpotQA's EM and FEVER's Acc are both the key
 * "em" but are different measures, never one column under one heading.
 */
function metricColumns(runs: readonly RunView[], defsOf: (r: RunView) => MetricDef[]): { col: string; key: string; label: string }[] {
  const out: { col: string; key: string; label: string }[] = [];
  for (const r of runs)
    for (const m of defsOf(r))
      if (!out.some((x) => x.key === m.key && x.label === m.label)) out.push({ col: '', key: m.key, label: m.label });
  // Column keys stay m.<key> where one label per key (the common case), m.<key>.<label> where a key has several.
  for (const c of out) c.col = out.filter((x) => x.key === c.key).length > 1 ? `m.${c.key}.${c.label}` : `m.${c.key}`;
  return out;
}

/** One row per run as stored: the numbers of its summary.csv, with intervals, and tokens and cost total and spent. */
export function runsTable(
  runs: readonly RunView[],
  aligned: readonly RunView[] = [],
  metricsOf?: (b: string) => MetricDef[],
  titleOf: TitleOf = (n) => n,
  methodLabel: MethodLabelOf = (_b, m) => m,
): ReportTable {
  const defsOf = (r: RunView): MetricDef[] =>
    metricsOf?.(r.manifest.task) ?? r.manifest.metrics ?? Object.keys(r.summary.metrics).map((key) => ({ key, label: key.toUpperCase() }));
  const metrics = metricColumns(runs, defsOf);
  // Columns a usual report does not need, shown when some run has a count to give.
  const overWindow = runs.some((r) => r.summary.n_context_exceeded > 0);
  const unknownBilling = runs.some((r) => r.summary.paid_unknown_calls > 0);
  const withoutUsage = runs.some((r) => r.summary.usage_unknown_calls > 0);
  const columns: ReportColumn[] = [
    { key: 'run', label: 'Run', underRow: true },
    { key: 'split', label: 'Split', identifies: true },
    { key: 'model', label: 'Model', identifies: true },
    { key: 'done', label: 'Done' },
    { key: 'errors', label: 'Errors' },
    ...(overWindow ? [{ key: 'context_exceeded', label: 'Over the window' }] : []),
    ...metrics.map((m) => ({ key: m.col, label: m.label, numeric: true })),
    { key: 'calls', label: 'Calls' },
    { key: 'cached', label: 'Cached calls' },
    { key: 'tokens', label: 'Tokens (total)' },
    { key: 'spent_tokens', label: 'Tokens (spent)' },
    { key: 'cost', label: 'Cost USD (total)' },
    ...(withoutUsage ? [{ key: 'usage_unknown', label: 'Calls without usage' }] : []),
    { key: 'spent_cost', label: 'Cost USD (spent)' },
    ...(unknownBilling ? [{ key: 'paid_unknown', label: 'Calls of unknown billing' }] : []),
    { key: 'status', label: 'Status' },
  ];
  let unpriced = 0;
  let recordsMissing = false;
  // Runs whose sessions paid for calls no record holds (episodes a stop cut short): spent above total.
  const spentAbove: string[] = [];
  const rows: ReportRow[] = runs.map((r) => {
    const s = r.summary;
    const m = r.manifest;
    const variant = aligned.find((a) => a.full === r)?.variant;
    const ci: NonNullable<ReportRow['ci']> = {};
    const cells: ReportRow['cells'] = {};
    const defs = defsOf(r);
    for (const c of metrics) {
      const v = defs.some((d) => d.key === c.key && d.label === c.label) ? (s.metrics[c.key] ?? null) : null;
      cells[c.col] = v;
      if (v !== null) ci[c.col] = scoreCell(r.records, c.key, m.runId).ci;
    }
    // A run that recorded money had a price, whatever its (older) manifest says.
    if (s.cost_known === false) unpriced++;
    const standing = runCostStandings(s);
    const tokens = runTokenStandings(s);
    // Judged as runStatus judges it, so the note below is there exactly when a status says so.
    const missing = r.recordLines !== undefined && missingRecords(m, r.recordLines);
    if (missing) recordsMissing = true;
    // (A run missing records has its own note; half a micro-dollar absorbs float sums.)
    else if (s.spent_tokens > s.total_tokens || s.spent_cost_usd > s.cost_usd + 5e-7) spentAbove.push(m.runId);
    return {
      label: `${titleOf(m.task)} ${methodLabel(m.task, m.method)}${variant ? ` (${variant})` : ''}`,
      source: 'ours',
      ref: m.runId,
      cells: {
        run: m.runId,
        split: m.split + (m.shard ? ` (shard ${m.shard})` : ''),
        model: m.model,
        done: `${s.n_done}/${s.n_planned}`,
        errors: s.n_errors,
        ...(overWindow ? { context_exceeded: s.n_context_exceeded } : {}),
        ...cells,
        calls: s.n_calls,
        cached: s.cached_calls,
        tokens: tokensCell(s.total_tokens, tokens.total),
        spent_tokens: tokensCell(s.spent_tokens, tokens.spent),
        cost: costCell(s.cost_usd, standing.total),
        ...(withoutUsage ? { usage_unknown: s.usage_unknown_calls } : {}),
        spent_cost: costCell(s.spent_cost_usd, standing.spent),
        ...(unknownBilling ? { paid_unknown: s.paid_unknown_calls } : {}),
        status: runStatus(m, r.dir, undefined, r.recordLines),
      },
      ci,
    };
  });
  return {
    id: 'runs',
    title: 'Runs',
    columns,
    rows,
    rowHeader: 'Benchmark / method',
    notes: [
      'Each run as stored (its summary.csv): scores over all its scored episodes, not only the items its tables compare. Tokens and cost count every model call, cache hits included (total), and the calls that went to the model (spent); records written before spent was recorded count as spent = total.',
      ...(overWindow
        ? [
            '"Over the window": episodes whose prompt outgrew the model\'s context window; they are scored as failures, counted in the scores like any wrong answer (the notes under each table say which runs).',
          ]
        : []),
      ...(unpriced
        ? [
            `Cost "unknown": ${unpriced} run(s) made calls with no known price for their model (give --price-prompt/--price-completion to meter one; a run resumed with prices added still holds its earlier unpriced episodes); their tokens are as the server reported them.`,
          ]
        : []),
      ...(withoutUsage
        ? [
            '"Calls without usage": calls answered without usage (the server reported none, or the cache held such an answer); Tokens (total) and Cost USD (total) leave them out, so that cost is a lower bound, marked ≥ (unknown when no call of the run had usage; whole when every session of the run billed nothing by its rates), and so are those tokens (≥; unknown when no call of the run had usage).',
          ]
        : []),
      ...(unknownBilling
        ? [
            '"Calls of unknown billing": calls the server answered without reporting usage, or cut off in flight; the tokens and cost spent leave them out, so that cost is a lower bound, marked ≥ (unknown when no call the run paid for had usage; whole when every session of the run billed nothing by its rates), and so are those tokens (≥; unknown when no call the run paid for had usage).',
          ]
        : []),
      "Status from each run's own record: complete (every item has its record; error episodes, in Errors, are re-run by run --resume with --retry-errors), partial (items left to run), failed, interrupted (a signal, or a process that ended without closing its session, e.g. killed), stopped (max-cost), or running (only while the process holding the run's lock is alive; running? for an old lock holding only a process number alive here, running on HOST? for a lock another host holds).",
      ...(spentAbove.length
        ? [
            `Tokens (spent) or Cost USD (spent) above the total: ${spentAbove.join(', ')}. The spent figures are what its sessions paid for; the total counts the calls its records hold. Paid for but in no record: the calls of episodes a stop cut short, of error episodes a retry replaced, of attempts restarted on another pool member, and of episodes two overlapping shards of a merge both ran. An episode run again takes the calls it repeats from the cache, and the total then counts them; with --cache off it never catches up.`,
          ]
        : []),
      ...(recordsMissing
        ? [
            `"${RECORDS_MISSING}": the run's episodes.jsonl holds fewer records than its sessions wrote (cut short, or a partial copy); its scores, Done and tokens (total) count only the records held, while tokens and cost spent are its sessions' (the manifest).`,
          ]
        : []),
    ],
  };
}
