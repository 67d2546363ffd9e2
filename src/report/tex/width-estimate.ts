// How wide a tabular comes out, estimated from cmr10's advance widths (README "Reports": the old
// tables were 112–600 pt wider than a page); the layout is chosen by it (layout.ts). Estimates err wide.
import type { ReportColumn, ReportTable } from '../model.js';
import { cellText, groupSpans, isNameColumn, LABEL_KEY } from './columns.js';
import { SIZE_SCALE, textWidthPt } from './font-metrics.js';
import type { TexLayout } from './layout.js';
import { widestLinePt, type LineSpec } from './line-columns.js';
import { tokenPieces } from './wrap.js';

/** The widest piece of any of the texts at 10pt: the narrowest a paragraph of them can be without a line overrunning it. */
function widestPiecePt(texts: readonly string[], name: boolean): number {
  let w = 0;
  for (const s of texts) for (const tok of s.split(/\s+/)) for (const p of tokenPieces(tok, name)) w = Math.max(w, textWidthPt(p));
  return w;
}

interface ColumnWidth {
  key: string;
  /** Natural width at 10pt. */
  width: number;
  wrappable: boolean;
  /** The widest piece of its text (tokenPieces) at 10pt: it never wraps narrower. */
  minWidth: number;
}

/** The largest of many numbers (no spread: a table may have more rows than a call has arguments). */
function maxOf(values: Iterable<number>, start = 0): number {
  let m = start;
  for (const v of values) if (v > m) m = v;
  return m;
}

/**
 * Widths of a column's texts, by the rows they were measured on: a layout measures the same column of
 * the same rows many times (every font size, every way of cutting the columns into parts).
 */
const measured = new WeakMap<readonly ReportTable['rows'][number][], Map<string, { width: number; minWidth: number }>>();

function measure(rows: ReportTable['rows'], key: string, texts: () => string[], name: boolean): { width: number; minWidth: number } {
  let byKey = measured.get(rows);
  if (!byKey) measured.set(rows, (byKey = new Map<string, { width: number; minWidth: number }>()));
  let m = byKey.get(key);
  if (!m) {
    const all = texts();
    m = { width: maxOf(all.map(textWidthPt)), minWidth: widestPiecePt(all, name) };
    byKey.set(key, m);
  }
  return m;
}

/** Natural width of each column's content at 10pt (label first), before scaling and gaps. */
export function naturalWidths(t: ReportTable, cols: ReportColumn[]): ColumnWidth[] {
  const label = measure(t.rows, `${LABEL_KEY}\u0000${t.rowHeader ?? ''}`, () => [...t.rows.map((r) => r.label), t.rowHeader ?? ''], true);
  return [
    { key: LABEL_KEY, ...label, wrappable: true },
    ...cols.map((c) => ({
      key: c.key,
      ...measure(
        t.rows,
        `${c.key}\u0000${c.label}\u0000${c.numeric ? 1 : 0}`,
        () => [c.label, ...t.rows.map((r) => cellText(r.cells[c.key] ?? null, c))],
        isNameColumn(c.key),
      ),
      wrappable: !c.numeric,
    })),
  ];
}

/**
 * Estimated width (pt) of the tabular at a font size and column gap, from cmr10 advance widths;
 * columns in `wrapPt` are paragraphs of that width; `lines`: the lines under the rows, which widen
 * the tabular for an identifier that fits in lines.maxPt (text wraps in the width the tabular has).
 */
export function estimateWidthPt(
  t: ReportTable,
  cols: ReportColumn[],
  size: TexLayout['size'],
  tabcolsepPt: number,
  wrapPt: Record<string, number> = {},
  lines?: LineSpec,
): number {
  const k = SIZE_SCALE[size];
  const widths = naturalWidths(t, cols).map((c) => (wrapPt[c.key] !== undefined ? wrapPt[c.key] / k : c.width));
  // A group heading wider than its columns widens them (LaTeX puts the excess in the last one).
  for (const s of groupSpans(cols)) {
    if (s.group === undefined) continue;
    const spanned = widths.slice(s.from + 1, s.to + 2).reduce((a, b) => a + b, 0) + ((s.to - s.from) * 2 * tabcolsepPt) / k;
    const need = textWidthPt(s.group);
    if (need > spanned) widths[s.to + 1] += need - spanned;
  }
  // TFM widths are rounded here to 0.01pt: 0.5% more keeps the estimate at or above TeX's own.
  const content = widths.reduce((a, b) => a + b, 0) * k * 1.005;
  const width = content + (cols.length + 1) * 2 * tabcolsepPt;
  if (!lines?.columns.length) return width;
  return Math.max(width, widestLinePt(t, lines, size, tabcolsepPt) + 2 * tabcolsepPt);
}
