// CSV: one row per run (the summary.csv columns), for spreadsheets and scripts.
import type { ReportContent } from './build.js';
import { summaryCsv } from '../run/summary.js';

export function renderCsv(c: ReportContent): string {
  return summaryCsv(c.runs.map((r) => r.summary));
}
