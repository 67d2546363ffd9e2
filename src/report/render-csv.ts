// CSV: every table of the report in one long ("tidy") sheet, one line per cell: the table, the row,
// the column, the value as every other format prints it (but a cost that is a lower bound, held as its
// number: src/report/cost.ts), the interval ends where the cell has one, and where the number comes
// from: `source` (ours / paper / published) and `source_ref` (the run ids behind a number of ours, or
// the citation of a published one), cell by cell — a paper's figure in a row of ours is `paper`, never
// `ours`. Figures are their tables of points. Cells go through csvText
// (src/util/csv.ts: a cell a spreadsheet would evaluate stays text).
import { csvText } from '../util/csv.js';
import type { ReportContent } from './build.js';
import { cellProvenance, type Cell, type ReportColumn, type ReportTable } from './model.js';
import { cellText, fmt } from './format.js';
import { figureTable } from './display.js';
import { figureSheetText } from './cost.js';

export const CSV_COLUMNS = ['table', 'table_title', 'row', 'source', 'column', 'value', 'ci_low', 'ci_high', 'source_ref'] as const;

const blankDash = (s: string) => s.replace(/^—$/, '');

/**
 * Each row's name in the sheet: its label; where two rows of the table share one (a method run with two
 * models), the model too; where that is not enough (one method and model on two splits, unmerged
 * shards), the run ids behind the row (a published number: its source); where even that is shared (one
 * source's number for HotpotQA and for FEVER), also the first cell in which those rows differ. So
 * (table, row, column) names one cell, also an empty one.
 */
function rowNames(t: ReportTable): string[] {
  const hasModel = t.columns.some((c) => c.key === 'model');
  const shared = (names: string[]) => {
    const seen = new Map<string, number>();
    for (const n of names) seen.set(n, (seen.get(n) ?? 0) + 1);
    return (n: string) => seen.get(n)! > 1;
  };
  const byLabel = shared(t.rows.map((r) => r.label));
  const named = t.rows.map((r) => {
    const m = hasModel ? r.cells.model : undefined;
    return byLabel(r.label) && typeof m === 'string' && m !== '' ? `${r.label} (${m})` : r.label;
  });
  const byName = shared(named);
  const refd = named.map((n, i) => (byName(n) && t.rows[i].ref ? `${t.rows[i].label} (${t.rows[i].ref})` : n));
  const byRef = shared(refd);
  return refd.map((n, i) => {
    if (!byRef(n)) return n;
    const alike = t.rows.filter((_, j) => refd[j] === n);
    const differs = t.columns.find((c) => new Set(alike.map((r) => sheetText(r.cells[c.key], c))).size > 1);
    if (!differs) return n;
    const v = sheetText(t.rows[i].cells[differs.key], differs);
    return n.endsWith(')') && n !== t.rows[i].label ? `${n.slice(0, -1)}, ${v})` : `${n} (${v})`;
  });
}

/**
 * Each column's heading in the sheet: its group and label; a heading the table repeats (Table 2's "n"
 * after Incorrect and after Correct) is named for the column before it in its group ("CoT Correct n").
 */
function columnNames(t: ReportTable): string[] {
  const base = t.columns.map((c) => (c.group !== undefined && !c.label.startsWith(c.group) ? `${c.group} ${c.label}` : c.label));
  const once = (h: string) => base.filter((b) => b === h).length === 1;
  return base.map((h, i) => {
    if (once(h)) return h;
    for (let j = i - 1; j >= 0 && t.columns[j].group === t.columns[i].group; j--)
      if (once(base[j])) return `${base[j]} ${t.columns[i].label}`;
    return h;
  });
}

/** A cell as the sheet holds it: as every format prints it, but a figure as its number (src/report/cost.ts). */
function sheetText(v: Cell | undefined, c: ReportColumn): string {
  return v !== null && typeof v === 'object' ? figureSheetText(v) : cellText(v, c);
}

export function csvRows(t: ReportTable): string[][] {
  const out: string[][] = [];
  const names = rowNames(t);
  const headings = columnNames(t);
  for (const [i, r] of t.rows.entries()) {
    for (const [k, c] of t.columns.entries()) {
      const iv = r.ci?.[c.key];
      const heading = headings[k];
      const p = cellProvenance(r, c.key);
      out.push([
        t.id,
        t.title,
        names[i],
        p.source,
        heading,
        blankDash(sheetText(r.cells[c.key], c)),
        iv ? blankDash(fmt(iv.lo)) : '',
        iv ? blankDash(fmt(iv.hi)) : '',
        p.ref ?? '',
      ]);
    }
  }
  return out;
}

export function renderCsv(c: ReportContent): string {
  const tables = [...c.tables, ...c.figures.map(figureTable), ...c.sections.flatMap((s) => s.tables), c.runsTable];
  return csvText(tables.flatMap(csvRows), { header: CSV_COLUMNS });
}
