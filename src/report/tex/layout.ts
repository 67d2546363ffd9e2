// How a table is set (README "Reports"): the narrowest float its columns fit side by side
// (fit-columns.ts), else its columns in stacked tabulars (stacked-columns.ts), else, the last resort
// when a single column group is wider than the page, one tabular scaled to \textwidth (needs graphicx).
import type { ReportTable } from '../model.js';
import { paperColumns } from './columns.js';
import { fitColumns, wideTries, type Try } from './fit-columns.js';
import { lineColumns } from './line-columns.js';
import { COLUMN_WIDTH_PT, TEXT_WIDTH_PT, type TexOptions } from './options.js';
import { chunkColumns } from './stacked-columns.js';
import { estimateWidthPt } from './width-estimate.js';

/** How a table is set: which float, font size and column gap, and whether it must be scaled. */
export interface TexLayout {
  env: 'table' | 'table*';
  size: 'normalsize' | 'small' | 'footnotesize';
  tabcolsepPt: number;
  /** Estimated natural width of the tabular at this size (pt). */
  widthPt: number;
  /**
   * When nothing fits even across both columns: text columns that wrap in a paragraph of this width
   * (pt), by column key (LABEL_KEY for the row labels). Long labels and model names are the usual cause.
   */
  wrapPt?: Record<string, number>;
  /** True when even wrapped text columns does not fit and the tabular is scaled to \textwidth (needs graphicx). */
  scale: boolean;
  /**
   * When the columns do not fit side by side even wrapped: the tabulars the columns are set in, one
   * under the other, each repeating the row labels (a column group, or a score and its interval, stays
   * in one), with the column keys and the layout of each (all at this size and column gap).
   */
  parts?: { keys: string[]; layout: TexLayout }[];
}

/** Layouts chosen, by table and options: the preamble line and the float both ask (a wide table's takes seconds). */
const layouts = new WeakMap<ReportTable, Map<string, TexLayout>>();

/** The first layout that fits, narrowest float first; a 4% margin covers kerning and rounding. */
export function chooseLayout(t: ReportTable, opts: TexOptions = {}): TexLayout {
  let byOpts = layouts.get(t);
  if (!byOpts) layouts.set(t, (byOpts = new Map<string, TexLayout>()));
  const key = JSON.stringify(opts);
  let layout = byOpts.get(key);
  if (!layout) byOpts.set(key, (layout = layoutOf(t, opts)));
  return layout;
}

function layoutOf(t: ReportTable, opts: TexOptions): TexLayout {
  const cols = paperColumns(t, opts);
  const column = (opts.columnWidthPt ?? COLUMN_WIDTH_PT) * 0.96;
  const text = (opts.textWidthPt ?? TEXT_WIDTH_PT) * 0.96;
  const tries: Try[] = [
    ['table', 'normalsize', 6, column],
    ['table', 'small', 6, column],
    ['table', 'small', 4, column],
    ...wideTries(text),
  ];
  const single = fitColumns(t, cols, opts, tries, text);
  if (single) return single;
  // Still too wide: the columns in several tabulars, one under the other, rather than one scaled down.
  const parts = chunkColumns(t, cols, opts, text);
  if (parts) return parts;
  return {
    env: 'table*',
    size: 'footnotesize',
    tabcolsepPt: 3,
    widthPt: estimateWidthPt(t, cols, 'footnotesize', 3, {}, { columns: lineColumns(t, opts), maxPt: text }),
    scale: true,
  };
}
