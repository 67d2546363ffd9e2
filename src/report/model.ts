// What the report layer works with: runs as read from their folders (RunView), and tables as plain
// data (ReportTable) that every renderer (md, csv, tex, html) draws the same way. Benchmarks build
// their paper tables (Table 1, 3, 4...) as ReportTables; the core never knows which table it draws.
import type { RunManifest } from '../run/manifest.js';
import type { EpisodeRecord } from '../run/record.js';
import type { RunSummary } from '../run/summary.js';

export interface RunView {
  dir: string;
  manifest: RunManifest;
  /** Latest record per item index, in the run's planned order. */
  records: EpisodeRecord[];
  summary: RunSummary;
}

/** A cell: a number (already a percentage where the column says so), text, or nothing. */
export type Cell = number | string | null;

export interface ReportColumn {
  key: string;
  label: string;
  /** Optional group heading spanning adjacent columns with the same group ("HotpotQA", "FEVER"). */
  group?: string;
  /** Numbers in this column are shown with one decimal. */
  numeric?: boolean;
}

export interface ReportRow {
  label: string;
  cells: Record<string, Cell>;
  /** 'ours' = computed from runs; 'paper' = the paper's published figure, shown for comparison. */
  source: 'ours' | 'paper';
}

export interface ReportTable {
  /** Stable id: "table1", "table3-act"... */
  id: string;
  title: string;
  columns: ReportColumn[];
  rows: ReportRow[];
  /** Footnotes: split and n, deviations, where the paper's numbers come from. */
  notes: string[];
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
  notes: string[];
}
