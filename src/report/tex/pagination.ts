// A table taller than a page in parts (README "Reports"): its rows in parts that each fit a float,
// and a table in stacked tabulars as many tabulars to a float as fit; the notes under the last part.
import type { ReportTable } from '../model.js';
import { paperColumns, partTable } from './columns.js';
import { BASELINE } from './font-metrics.js';
import { notesHeightPt, rowHeightPt, unitHeightPt, type TexUnit } from './height-estimate.js';
import type { TexLayout } from './layout.js';
import { COLUMN_WIDTH_PT, TEXT_HEIGHT_PT, TEXT_WIDTH_PT, type TexOptions } from './options.js';

/**
 * The table's rows in parts that each fit a float on a page (at most 0.68 of the text height: a top
 * float's share); one part when the whole fits. A long table (every run, every number published
 * elsewhere) becomes "part 1 of 3"..., the notes under the last part.
 */
export function splitRows(t: ReportTable, layout: TexLayout, opts: TexOptions = {}, reserveNotes = true): ReportTable['rows'][] {
  const cols = paperColumns(t, opts);
  const budget = (opts.textHeightPt ?? TEXT_HEIGHT_PT) * 0.68 - 3 * BASELINE[layout.size] - 30; // heading rows, caption, rules
  const width = layout.env === 'table' ? (opts.columnWidthPt ?? COLUMN_WIDTH_PT) : (opts.textWidthPt ?? TEXT_WIDTH_PT);
  const parts: ReportTable['rows'][] = [[]];
  let used = 0;
  for (const r of t.rows) {
    const h = rowHeightPt(t, r, layout, cols, opts);
    if (used + h > budget && parts.at(-1)!.length) {
      parts.push([]);
      used = 0;
    }
    parts.at(-1)!.push(r);
    used += h;
  }
  // The notes go under the last part: move rows on to a part of their own while they do not fit (a
  // table in several tabulars makes room for them by whole tabulars instead: packUnits).
  if (!reserveNotes) return parts;
  const notes = notesHeightPt(t.notes, width);
  const last = () => parts.at(-1)!.reduce((a, r) => a + rowHeightPt(t, r, layout, cols, opts), 0);
  while (last() + notes > budget && parts.at(-1)!.length > 1) {
    const moved: ReportTable['rows'] = [];
    while (last() + notes > budget && parts.at(-1)!.length > 1) moved.unshift(parts.at(-1)!.pop()!);
    parts.push(moved);
  }
  return parts;
}

/**
 * A table set in several tabulars (TexLayout.parts): each part of its rows in each part of its columns,
 * in that order, as many to a float as fit a top float's share of the page (the notes under the last).
 */
export function packUnits(t: ReportTable, layout: TexLayout, opts: TexOptions): { floats: TexUnit[][]; tall: boolean } {
  const units = splitRows(t, layout, opts, false).flatMap((rows) =>
    layout.parts!.map((p) => ({ table: { ...partTable(t, p.keys, opts), rows }, layout: p.layout })),
  );
  const page = opts.textHeightPt ?? TEXT_HEIGHT_PT;
  const GAP = 8; // \medskip between two tabulars
  const height = (us: TexUnit[]) => us.reduce((a, u) => a + unitHeightPt(u, opts), 0) + GAP * Math.max(0, us.length - 1);
  const notes = notesHeightPt(t.notes, opts.textWidthPt ?? TEXT_WIDTH_PT);
  const budget = page * 0.68 - 30; // a top float's share, less the caption
  // The whole table in one float (one table number) when it fits a page: on a float page if it is taller than a top float may be.
  const whole = height(units) + notes;
  if (whole <= page * 0.9 - 30) return { floats: [units], tall: whole > budget };
  const floats: TexUnit[][] = [[]];
  for (const u of units) {
    if (floats.at(-1)!.length && height([...floats.at(-1)!, u]) > budget) floats.push([]);
    floats.at(-1)!.push(u);
  }
  // The notes go under the last float: move tabulars on to a float of their own while they do not fit.
  const last = () => floats.at(-1)!;
  if (height(last()) + notes > budget && last().length > 1) {
    const moved: TexUnit[] = [];
    while (height(last()) + notes > budget && last().length > 1) moved.unshift(last().pop()!);
    floats.push(moved);
  }
  return { floats, tall: false };
}
