// How tall a table's rows, tabulars and notes come out, estimated (README "Reports": a table taller
// than a page comes in parts, pagination.ts).
import type { ReportColumn, ReportTable } from '../model.js';
import { cellText, isNameColumn, LABEL_KEY, paperColumns } from './columns.js';
import { BASELINE, SIZE_SCALE, textWidthPt } from './font-metrics.js';
import type { TexLayout } from './layout.js';
import { LINE_INDENT_PT, lineColumns, rowLines } from './line-columns.js';
import type { TexOptions } from './options.js';
import { wrappedLines } from './wrap.js';

/** Estimated height of one row (pt): the most lines any wrapped cell takes, with a margin for ragged breaks, and the lines under it. */
export function rowHeightPt(
  t: ReportTable,
  r: ReportTable['rows'][number],
  layout: TexLayout,
  cols: ReportColumn[],
  opts: TexOptions = {},
): number {
  // Asked again and again while rows are cut into parts and parts packed into floats: once per row and layout.
  let byRow = heights.get(layout);
  if (!byRow) heights.set(layout, (byRow = new WeakMap()));
  let h = byRow.get(r);
  if (h === undefined) byRow.set(r, (h = measureRowPt(t, r, layout, cols, opts)));
  return h;
}
const heights = new WeakMap<TexLayout, WeakMap<ReportTable['rows'][number], number>>();

function measureRowPt(t: ReportTable, r: ReportTable['rows'][number], layout: TexLayout, cols: ReportColumn[], opts: TexOptions): number {
  if (layout.parts)
    return Math.max(
      ...layout.parts.map((p) =>
        rowHeightPt(
          t,
          r,
          p.layout,
          cols.filter((c) => p.keys.includes(c.key)),
          opts,
        ),
      ),
    );
  const k = SIZE_SCALE[layout.size];
  let lines = 1;
  for (const [key, w] of Object.entries(layout.wrapPt ?? {})) {
    const col = cols.find((c) => c.key === key);
    const text = key === LABEL_KEY ? r.label : col ? cellText(r.cells[key] ?? null, col) : '';
    lines = Math.max(lines, Math.ceil((textWidthPt(text) * k * 1.25) / w), wrappedLines(text, isNameColumn(key), w, k));
  }
  const lineWidth = layout.widthPt - 2 * layout.tabcolsepPt - LINE_INDENT_PT * k;
  for (const l of rowLines(r, lineColumns(t, opts))) lines += wrappedLines(`${l.label}: ${l.text}`, false, lineWidth, k);
  return lines * BASELINE[layout.size] + 1;
}

/** Estimated height of the notes block (pt) at a width. */
export function notesHeightPt(notes: readonly string[], widthPt: number): number {
  return notes.reduce((a, n) => a + Math.ceil((textWidthPt(n) * SIZE_SCALE.footnotesize * 1.1) / widthPt) * BASELINE.footnotesize, 0) + 6;
}

/** One tabular of a float: some of the table's rows, in some of its columns. */
export interface TexUnit {
  table: ReportTable;
  layout: TexLayout;
}

/** Estimated height of a tabular (pt): its heading rows, rows and rules. */
export function unitHeightPt(u: TexUnit, opts: TexOptions): number {
  const cols = paperColumns(u.table, opts);
  const heading: ReportTable['rows'][number] = {
    label: u.table.rowHeader ?? '',
    source: 'ours',
    cells: Object.fromEntries(cols.map((c) => [c.key, c.label])),
  };
  const groups = cols.some((c) => c.group !== undefined) ? BASELINE[u.layout.size] + 2 : 0;
  const rows = u.table.rows.reduce((a, r) => a + rowHeightPt(u.table, r, u.layout, cols, opts), 0);
  return groups + rowHeightPt(u.table, heading, u.layout, cols, opts) + rows + 8;
}
