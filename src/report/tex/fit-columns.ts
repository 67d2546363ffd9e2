// Fitting a table's columns side by side (README "Reports"): in one column (`table`, \columnwidth
// ≈ 3.25in) or across both (`table*`, \textwidth ≈ 6.75in), with a smaller font and narrower column
// gaps tried before either is given up; still too wide, long text columns wrap.
import type { ReportColumn, ReportTable } from '../model.js';
import { SIZE_SCALE } from './font-metrics.js';
import type { TexLayout } from './layout.js';
import { lineColumns, type LineSpec } from './line-columns.js';
import type { TexOptions } from './options.js';
import { estimateWidthPt, naturalWidths } from './width-estimate.js';

/** The narrowest wrap width a text column is given (pt); below it the columns are set in several tabulars instead. */
const MIN_WRAP_PT = 50;

export type Try = [TexLayout['env'], TexLayout['size'], number, number];

/** Across both columns, largest type first (what a table set in several tabulars may use). */
export function wideTries(text: number): Try[] {
  return [
    ['table*', 'normalsize', 6, text],
    ['table*', 'small', 6, text],
    ['table*', 'small', 4, text],
    ['table*', 'footnotesize', 3, text],
  ];
}

/**
 * The first of `tries` the columns fit at; else \footnotesize across both columns with the long text
 * columns (row labels, model names, sources) wrapping, sharing what the other columns leave (each keeps
 * its natural width if it is narrower than its share, none under MIN_WRAP_PT or its widest piece);
 * null when even that is too wide.
 */
export function fitColumns(t: ReportTable, cols: ReportColumn[], opts: TexOptions, tries: Try[], text: number): TexLayout | null {
  const lines: LineSpec = { columns: lineColumns(t, opts), maxPt: text };
  for (const [env, size, sep, limit] of tries) {
    const w = estimateWidthPt(t, cols, size, sep, {}, lines);
    if (w <= limit) return { env, size, tabcolsepPt: sep, widthPt: w, scale: false };
  }
  const size = 'footnotesize';
  const k = SIZE_SCALE[size] * 1.005;
  const natural = naturalWidths(t, cols).map((c) => ({
    ...c,
    width: c.width * k,
    floor: Math.max(MIN_WRAP_PT, Math.ceil(c.minWidth * k) + 1),
  }));
  const wrapping = natural.filter((c) => c.wrappable && c.width > c.floor).sort((a, b) => a.width - b.width);
  const fixed = natural.filter((c) => !wrapping.includes(c)).reduce((a, c) => a + c.width, 0);
  // Widths in proportion to the columns' natural widths (a long source or caveat column gets more room
  // than a model name, so rows stay as short as they can).
  // (estimateWidthPt adds 0.5% to every width: so does the budget.)
  let budget = (text - (cols.length + 1) * 2 * 3) / 1.005 - fixed - 1;
  const wrapPt: Record<string, number> = {};
  let pool = [...wrapping];
  while (pool.length) {
    const total = pool.reduce((a, c) => a + c.width, 0);
    const share = (c: (typeof pool)[number]) => (budget * c.width) / total;
    const settled = pool.filter((c) => share(c) >= c.width || share(c) < c.floor);
    if (!settled.length) {
      for (const c of pool) wrapPt[c.key] = Math.floor(share(c));
      break;
    }
    for (const c of settled) {
      const w = share(c) >= c.width ? Math.floor(c.width) : c.floor;
      wrapPt[c.key] = w;
      budget -= w;
    }
    pool = pool.filter((c) => !settled.includes(c));
  }
  const ok = wrapping.length > 0 && wrapping.every((c) => wrapPt[c.key] >= c.floor);
  if (ok) {
    const w = estimateWidthPt(t, cols, size, 3, wrapPt, lines);
    if (w <= text) return { env: 'table*', size, tabcolsepPt: 3, widthPt: w, wrapPt, scale: false };
  }
  return null;
}
