// One tabular of a table in booktabs rules (README "Reports"): group headings with \multicolumn and
// \cmidrule, wrapped cells as paragraph boxes, the lines under the rows across it.
import type { ReportTable } from '../model.js';
import { cellText, groupSpans, isNameColumn, LABEL_KEY, paperColumns, partTable } from './columns.js';
import { texEscape } from './escape.js';
import { SIZE_SCALE, textWidthPt } from './font-metrics.js';
import { chooseLayout, type TexLayout } from './layout.js';
import { LINE_INDENT_PT, lineColumns, rowLines, widestLinePt, type LineSpec } from './line-columns.js';
import { TEXT_WIDTH_PT, texLength, type TexOptions } from './options.js';
import { estimateWidthPt } from './width-estimate.js';
import { wrappedText } from './wrap.js';

/** The tabular alone (booktabs rules, group headings with \multicolumn and \cmidrule); a layout in parts gives its tabulars one under the other. */
export function texTabular(t: ReportTable, opts: TexOptions = {}, layout: TexLayout = chooseLayout(t, opts)): string {
  if (layout.parts) return layout.parts.map((p) => texTabular(partTable(t, p.keys, opts), opts, p.layout)).join('\n\\par\\medskip\n');
  const cols = paperColumns(t, opts);
  const under = lineColumns(t, opts);
  const wrap = layout.wrapPt ?? {};
  // A wrapped cell is a top-aligned paragraph box in an l column (no array package needed, and the
  // row's \\ stays outside \raggedright's reach).
  const cell = (key: string, s: string) =>
    wrap[key] !== undefined
      ? `\\parbox[t]{${texLength(wrap[key], opts)}}{\\raggedright ${wrappedText(s, isNameColumn(key), wrap[key], layout.size)}\\strut}`
      : texEscape(s);
  const spec = 'l' + cols.map((c) => (c.numeric && wrap[c.key] === undefined ? 'r' : 'l')).join('');
  const lines = [`\\begin{tabular}{${spec}}`, '\\toprule'];
  const spans = groupSpans(cols);
  if (spans.some((s) => s.group !== undefined)) {
    const heads = [''];
    const rules: string[] = [];
    for (const s of spans) {
      const n = s.to - s.from + 1;
      if (s.group === undefined) heads.push(...Array<string>(n).fill(''));
      else {
        heads.push(`\\multicolumn{${n}}{c}{${texEscape(s.group)}}`);
        rules.push(`\\cmidrule(lr){${s.from + 2}-${s.to + 2}}`);
      }
    }
    lines.push(heads.join(' & ') + ' \\\\', rules.join(' '));
  }
  // A line under a row: across the tabular, indented, its label in italics; a longer one a paragraph
  // as wide as the tabular (its columns, or its widest identifier line).
  const k = SIZE_SCALE[layout.size];
  const lineSpec: LineSpec = { columns: under, maxPt: (opts.textWidthPt ?? TEXT_WIDTH_PT) * 0.96 };
  const box = Math.max(
    estimateWidthPt(t, cols, layout.size, layout.tabcolsepPt, wrap) - 2 * layout.tabcolsepPt,
    widestLinePt(t, lineSpec, layout.size, 0),
  );
  const lineWidth = Math.floor(box - LINE_INDENT_PT * k);
  const line = (l: { label: string; text: string }) => {
    const text = `\\textit{${texEscape(l.label)}:} `;
    const fits = textWidthPt(`${l.label}: ${l.text}`) * k * 1.005 <= lineWidth;
    const body = fits
      ? text + texEscape(l.text)
      : `\\parbox[t]{${texLength(lineWidth, opts)}}{\\raggedright ${text}${wrappedText(l.text, false, lineWidth, layout.size)}\\strut}`;
    return `\\multicolumn{${cols.length + 1}}{l}{\\hspace{1em}${body}} \\\\`;
  };
  const corner = t.rowHeader === undefined ? '' : cell(LABEL_KEY, t.rowHeader);
  lines.push([corner, ...cols.map((c) => cell(c.key, c.label))].join(' & ') + ' \\\\', '\\midrule');
  let prev: string | undefined;
  for (const r of t.rows) {
    // Our rows and the paper's are separate blocks, with a rule between them.
    if (prev !== undefined && r.source !== prev) lines.push('\\midrule');
    prev = r.source;
    lines.push([cell(LABEL_KEY, r.label), ...cols.map((c) => cell(c.key, cellText(r.cells[c.key] ?? null, c)))].join(' & ') + ' \\\\');
    lines.push(...rowLines(r, under).map(line));
  }
  lines.push('\\bottomrule', '\\end{tabular}');
  return lines.join('\n');
}
