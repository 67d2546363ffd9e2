// CSV: one row per run (the summary.csv columns), for spreadsheets and scripts.
import type { LoadedRun } from './load.js';
import { summaryCsv } from '../run/summary.js';

export function renderCsv(runs: LoadedRun[]): string {
  return summaryCsv(runs.map((r) => r.summary));
}
