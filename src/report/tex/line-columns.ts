// Columns set on a line of their own under each row rather than as columns (TexOptions.lineColumns,
// README "Reports"): the Runs table's run id, as every other format shows it, and the long source and
// caveat of a published number. A long identifier is kept whole; the tabular widens for it.
import type { ReportColumn, ReportTable } from '../model.js';
import { cellText } from './columns.js';
import { SIZE_SCALE, textWidthPt } from './font-metrics.js';
import type { TexLayout } from './layout.js';
import type { TexOptions } from './options.js';

/** The table's columns set on lines under its rows (TexOptions.lineColumns), in the table's order. */
export function lineColumns(t: ReportTable, opts: TexOptions): ReportColumn[] {
  return opts.lineColumns?.length ? t.columns.filter((c) => opts.lineColumns!.includes(c.key)) : [];
}

/** A row's lines under it: "Label: text" for each line column with a value. */
export function rowLines(r: ReportTable['rows'][number], lines: readonly ReportColumn[]): { label: string; text: string }[] {
  return lines
    .map((c) => ({ label: c.label, text: cellText(r.cells[c.key] ?? null, c) }))
    .filter((l) => l.text !== '\u2013' && l.text.trim() !== '');
}

/** Where the lines under the rows may go: the columns, and the widest the tabular may get for them (pt). */
export interface LineSpec {
  columns: ReportColumn[];
  maxPt: number;
}

/** The indent of a line under a row (TexOptions.lineColumns), pt at 10pt: 1em. */
export const LINE_INDENT_PT = 10;

/** The widths at 10pt of the identifier lines under the rows (widestLinePt), by rows and line columns. */
const lineWidths = new WeakMap<readonly ReportTable['rows'][number][], Map<string, number[]>>();

/**
 * The widest line under the rows (indent included) that gives one identifier (no space: a run id) and
 * fits on one line of lines.maxPt: the width a tabular is widened to for it (pt). Text with spaces
 * wraps in the width the tabular has.
 */
export function widestLinePt(t: ReportTable, lines: LineSpec, size: TexLayout['size'], tabcolsepPt: number): number {
  const k = SIZE_SCALE[size] * 1.005;
  const key = lines.columns.map((c) => `${c.key}\u0000${c.label}`).join('\u0000');
  let byKey = lineWidths.get(t.rows);
  if (!byKey) lineWidths.set(t.rows, (byKey = new Map<string, number[]>()));
  let widths = byKey.get(key);
  if (!widths) {
    widths = t.rows
      .flatMap((r) => rowLines(r, lines.columns).filter((l) => !/\s/.test(l.text.trim())))
      .map((l) => textWidthPt(`${l.label}: ${l.text}`) + LINE_INDENT_PT);
    byKey.set(key, widths);
  }
  let best = 0;
  for (const w of widths) if (w * k + 2 * tabcolsepPt <= lines.maxPt) best = Math.max(best, w * k);
  return best;
}
