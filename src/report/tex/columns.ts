// The columns a paper table prints and how a cell reads in print (README "Reports"). Run ids and
// similar bookkeeping columns are left out of the paper's tables (they belong in the HTML/CSV run
// details; the Runs table gives each run id on a line under its row: line-columns.ts).
import type { Cell, ReportColumn, ReportTable } from '../model.js';
import { fmt } from '../format.js';
import { figureCellText } from '../cost.js';
import type { TexOptions } from './options.js';

/** Columns that identify runs rather than report results: never in a paper table. */
const BOOKKEEPING_COLUMN = /^(run_?id|run|run_dir|dir|path|fingerprint|seed)$/i;

/** A cell as shown in print: numbers with one decimal in numeric columns (rounded once, as every format), "--" for nothing. */
export function cellText(c: Cell, col: ReportColumn): string {
  if (c === null || c === undefined) return '\u2013';
  if (typeof c === 'number') return col.numeric ? fmt(c).replace(/^—$/, '\u2013') : String(c);
  if (typeof c === 'object') return figureCellText(c);
  return c === '—' ? '\u2013' : c;
}

/** The columns a paper table shows. */
export function paperColumns(t: ReportTable, opts: TexOptions = {}): ReportColumn[] {
  const omit = new Set(opts.omitColumns ?? []);
  return t.columns.filter(
    (c) => !omit.has(c.key) && !opts.lineColumns?.includes(c.key) && !BOOKKEEPING_COLUMN.test(c.key) && !/^run( id)?$/i.test(c.label),
  );
}

/** Runs of adjacent columns sharing a group: [group, first, last] with 0-based column positions (label column excluded). */
export function groupSpans(cols: ReportColumn[]): { group: string | undefined; from: number; to: number }[] {
  const spans: { group: string | undefined; from: number; to: number }[] = [];
  cols.forEach((c, i) => {
    const last = spans.at(-1);
    if (last && c.group !== undefined && last.group === c.group) last.to = i;
    else spans.push({ group: c.group, from: i, to: i });
  });
  return spans;
}

/** Key of the row-label column in TexLayout.wrapPt. */
export const LABEL_KEY = '#label';

/** Columns of names (the row labels: methods; models; benchmarks): a name never breaks, except after a slash (org/model). */
const NAME_COLUMN = /^(model|benchmark|method)$/i;
export const isNameColumn = (key: string) => key === LABEL_KEY || NAME_COLUMN.test(key);

/** The table with only these of its printed columns (and those it sets on lines under its rows). */
export function partTable(t: ReportTable, keys: readonly string[], opts: TexOptions): ReportTable {
  const keep = new Set(keys);
  const printed = new Set(paperColumns(t, opts).map((c) => c.key));
  return { ...t, columns: t.columns.filter((c) => keep.has(c.key) || !printed.has(c.key)) };
}
