// What the report layer works with: runs as read from their folders (RunView), and tables as plain
// data (ReportTable) that every renderer (md, csv, tex, html) draws the same way. Benchmarks build
// their paper tables (Table 1, 3, 4...) as ReportTables; the core never knows which table it draws.
import type { RunManifest, EpisodeRecord, RunSummary } from '../runlog/schema.js';
import type { EpisodeSource } from '../runlog/episode-source.js';
import type { CostStanding } from '../util/money.js';

/** The comparable set of episodes a run belongs to (src/report/grouping.ts). */
export interface CohortInfo {
  /** Stable key: benchmark, split, item set and model fingerprint. */
  key: string;
  benchmark: string;
  split: string;
  model: string;
  /** Items the runs of the cohort planned (the same set for all of them). */
  planned: number;
  /** Items scored (no error) in every run of the cohort, in plan order: what its tables compare. */
  common: number[];
  /** Run ids of the cohort. */
  runIds: string[];
  /** Per run id: planned items left out of the comparison because this run has an error or no record there. */
  leftOut: Record<string, { errors: number; missing: number }>;
}

export interface RunView {
  dir: string;
  manifest: RunManifest;
  /** Latest record per item index, in the run's planned order (slim when `source` is set). */
  records: EpisodeRecord[];
  summary: RunSummary;
  /**
   * Set when `records` are slim (no trajectory text, steps without their text: loadRun's `slim`):
   * where each full record is read back from. Read them through fullRecords.
   */
  source?: EpisodeSource;
  /** Lines of episodes.jsonl that are records, replaced ones included (the loaders set it: runlog/missing-records.ts). */
  recordLines?: number;
  /**
   * Set when the run went through the report's grouping: its cohort, and (for the tables) its records
   * restricted to the cohort's common items (RunView.full keeps the run as stored).
   */
  cohort?: CohortInfo;
  /** The run as stored, before the records were restricted to the cohort's common items. */
  full?: RunView;
  /** What sets this run apart from other runs of its method in the cohort ("maxSteps 3"), if anything. */
  variant?: string;
  /** A person's Table 2 labels of this run's sampled trajectories (report --labels). */
  labels?: LabelRow[];
}

/**
 * A figure that may leave calls out (a run's cost in dollars, or its tokens): the number counted and
 * what it is of the whole by the meter's rule (src/run/meter.ts costStanding, tokenStanding). Each
 * format writes it from these (src/report/cost.ts): a lower bound marked in print, held as its number
 * in the CSV sheet.
 */
export interface FigureCell {
  figure: number;
  standing: CostStanding;
  unit: 'usd' | 'tokens';
}

/** A cell: a number (already a percentage where the column says so), text, a figure, or nothing. */
export type Cell = number | string | null | FigureCell;

/** A 95% interval in the same unit as its cell; null ends = not computable. */
export interface Interval {
  lo: number | null;
  hi: number | null;
}

export interface ReportColumn {
  key: string;
  label: string;
  /** Optional group heading spanning adjacent columns with the same group ("HotpotQA", "FEVER"). */
  group?: string;
  /** Numbers in this column are shown with one decimal. */
  numeric?: boolean;
  /**
   * The column tells rows apart with their label (a model, a split): where a table is set in several
   * parts side by side (LaTeX's stacked tabulars), each part repeats it.
   */
  identifies?: boolean;
  /**
   * LaTeX sets it on a line of its own under the row ("Run: <run id>", "Source: ..."), not as a column:
   * a long identifier kept whole, a long text a paragraph as wide as the table (TexOptions.lineColumns).
   * The HTML report does so too (tableHtml).
   */
  underRow?: boolean;
}

/**
 * Where a number comes from: 'ours' = computed from runs (ref: their run ids); 'paper' = a paper's
 * printed table (ref: the table and the citation); 'published' = another public source (the code's
 * README, an issue thread, a web page; ref: where it was read).
 */
export type Provenance = 'ours' | 'paper' | 'published';

export interface CellSource {
  source: Provenance;
  /** The run ids, or the citation, behind the cell. */
  ref?: string;
}

export interface ReportRow {
  label: string;
  cells: Record<string, Cell>;
  /** Where the row's cells come from, unless `cellSources` says otherwise for a cell. */
  source: Provenance;
  /** The run ids or citation behind the row's cells (see CellSource.ref). */
  ref?: string;
  /** Per column key: the provenance of a cell that differs from the row's (a paper column in a row of ours). */
  cellSources?: Record<string, CellSource>;
  /**
   * Bootstrap intervals of numeric cells, by column key. Renderers show them in a "95% CI" column
   * right after the column (src/report/display.ts), so every format shows the same.
   */
  ci?: Record<string, Interval>;
}

export interface ReportTable {
  /** Stable id: "table1", "table3-act"... */
  id: string;
  title: string;
  columns: ReportColumn[];
  rows: ReportRow[];
  /** Footnotes: split and n, deviations, where the paper's numbers come from. */
  notes: string[];
  /** Heading of the row-label column (default "Method"). */
  rowHeader?: string;
}

/** A line plot as data (Figure 2: score against the number of CoT-SC samples). */
export interface ReportFigure {
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  /** Each series' points; y already a percentage, never NaN (a point without data is left out). */
  series: { name: string; points: [number, number][] }[];
  /** Horizontal reference lines (e.g. ReAct's and CoT's scores on the same items). */
  refs: { name: string; y: number }[];
  /** The runs its points and lines come from (whose limit notes it carries). */
  runIds?: string[];
  notes: string[];
}

/** One labelled trajectory (a line of the labels CSV). */
export interface LabelRow {
  run: string;
  method: string;
  idx: number;
  outcome: 'correct' | 'incorrect';
  /** A category key of the run's benchmark (success_* or failure_*); '' = not labelled yet. */
  label: string;
  auto_tags: string[];
  note: string;
  /** What a person reads to label it (written to the sheet, ignored when the labels are read back). */
  benchmark?: string;
  question?: string;
  gold?: string;
  answer?: string;
  /** The episode after the few-shot prompt: the question and every Thought/Action/Observation. */
  trajectory?: string;
  /** The categories that fit this row's outcome, "key | key" (written to the sheet beside the label). */
  label_choices?: string;
  /** Where a row read back from a file stands ("labels.csv:12"), for messages about it. */
  at?: string;
}

/** The full records of `records` (default: all the run's), in their order: read back one at a time from a slim run's file. */
export function fullRecords(
  run: Pick<RunView, 'records' | 'source'>,
  records: readonly EpisodeRecord[] = run.records,
): Iterable<EpisodeRecord> {
  const source = run.source;
  return source ? source.each(records.map((r) => r.idx)) : records;
}

/** Where one cell's number comes from: its own entry, else its row's. */
export function cellProvenance(r: ReportRow, key: string): CellSource {
  return r.cellSources?.[key] ?? { source: r.source, ...(r.ref !== undefined ? { ref: r.ref } : {}) };
}
