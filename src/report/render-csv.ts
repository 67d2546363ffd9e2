// CSV: every table of the report in one long ("tidy") sheet, one line per cell: the table, the row,
// the column, the value as every other format prints it (but a cost that is a lower bound, held as its
// number: src/report/cost.ts), the interval ends where the cell has one, and where the number comes
// from: `source` (ours / paper / published) and `source_ref` (the run ids behind a number of ours, or
// the citation of a published one), cell by cell — a paper's figure in a row of ours is `paper`, never
// `ours`. Figures are their tables of points. Cells go through csvText
// (src/util/csv.ts: a cell a spreadsheet would evaluate stays text).
import { csvText } from '../util/csv.js';
import type { ReportContent } from './build.js';
import { cellProvenance, type Cell, type ReportColumn, type ReportRow, type ReportTable } from './model.js';
import { cellText, fmt } from './format.js';
import { figureTable } from './display.js';
import { figureSheetText } from './cost.js';

export const CSV_COLUMNS = ['table', 'table_title', 'row', 'source', 'column', 'value', 'ci_low', 'ci_high', 'source_ref'] as const;

const blankDash = (s: string) => s.replace(/^—$/, '');

/**
 * Each row's name in the sheet: its label; while rows of the table share a name, the next of these in
 * which they differ is added: the model (a method run with two models), the run ids behind the row (one
 * method and model on two splits, unmerged shards; a published number: its source), then their cells,
 * identifying columns (benchmark, split) first (one source's numbers for HotpotQA and for FEVER, or for
 * two metrics). Rows alike in all of these get a running number ("#1", "#2"). So (table, row, column)
 * names one cell, also an empty one.
 */
function rowNames(t: ReportTable): string[] {
  type Part = { key: string; of: (r: ReportRow) => string };
  const cellPart = (c: ReportColumn): Part => ({ key: c.key, of: (r) => blankDash(sheetText(r.cells[c.key], c)) });
  const model = t.columns.filter((c) => c.key === 'model');
  const parts: Part[] = [
    ...model.map(cellPart),
    { key: '\u0000ref', of: (r) => r.ref ?? '' },
    ...t.columns.filter((c) => c.identifies && c.key !== 'model').map(cellPart),
    ...t.columns.filter((c) => !c.identifies && c.key !== 'model').map(cellPart),
  ];
  const added: string[][] = t.rows.map(() => []);
  const used: Set<string>[] = t.rows.map(() => new Set());
  const name = (i: number) => (added[i].length ? `${t.rows[i].label} (${added[i].join(', ')})` : t.rows[i].label);
  const sharing = () => {
    const groups = new Map<string, number[]>();
    t.rows.forEach((_, i) => groups.set(name(i), [...(groups.get(name(i)) ?? []), i]));
    return [...groups.values()].filter((g) => g.length > 1);
  };
  for (let grew = true; grew;) {
    grew = false;
    for (const g of sharing()) {
      const part = parts.find((p) => !g.some((i) => used[i].has(p.key)) && new Set(g.map((i) => p.of(t.rows[i]))).size > 1);
      if (!part) continue;
      for (const i of g) {
        used[i].add(part.key);
        const v = part.of(t.rows[i]);
        if (v !== '') added[i].push(v);
      }
      grew = true;
    }
  }
  for (const g of sharing()) g.forEach((i, k) => added[i].push(`#${k + 1}`));
  return t.rows.map((_, i) => name(i));
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
