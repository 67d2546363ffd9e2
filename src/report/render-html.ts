// A self-contained HTML page: Table 1, the Figure 2 sweep as an inline SVG line plot, run details.
import type { LoadedRun } from './load.js';
import { buildTable1, SOTA_NOTE, TASK_LABEL, TASKS } from './table1.js';
import type { Sweep } from './sweep.js';
import { DETAIL_HEADERS, detailRows } from './details.js';
import { table1Cells } from './render-md.js';

export function htmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#7f7f7f', '#9467bd'];

/** EM (y) against k (x) for each series, with dashed horizontal reference lines. */
export function sweepSvg(s: Sweep, width = 560, height = 320): string {
  const m = { l: 48, r: 150, t: 16, b: 40 };
  const w = width - m.l - m.r;
  const h = height - m.t - m.b;
  const all = [...s.series.flatMap((x) => x.em), ...s.refs.map((r) => r.em)];
  let lo = Math.floor(Math.min(...all) / 5) * 5;
  let hi = Math.ceil(Math.max(...all) / 5) * 5;
  if (hi === lo) {
    hi += 5;
    lo = Math.max(0, lo - 5);
  }
  const x = (k: number) => m.l + (s.n === 1 ? 0 : ((k - 1) / (s.n - 1)) * w);
  const y = (v: number) => m.t + h - ((v - lo) / (hi - lo)) * h;
  const out: string[] = [`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`];
  out.push(`<rect x="${m.l}" y="${m.t}" width="${w}" height="${h}" fill="none" stroke="#999"/>`);
  for (let v = lo; v <= hi; v += 5) out.push(`<text x="${m.l - 6}" y="${y(v) + 4}" text-anchor="end">${v}</text><line x1="${m.l}" x2="${m.l + w}" y1="${y(v)}" y2="${y(v)}" stroke="#eee"/>`);
  for (let k = 1; k <= s.n; k += s.n > 11 ? 2 : 1) out.push(`<text x="${x(k)}" y="${m.t + h + 14}" text-anchor="middle">${k}</text>`);
  out.push(`<text x="${m.l + w / 2}" y="${height - 6}" text-anchor="middle">CoT-SC samples</text>`);
  out.push(`<text transform="translate(12 ${m.t + h / 2}) rotate(-90)" text-anchor="middle">${htmlEscape(s.task === 'fever' ? 'Accuracy (%)' : 'EM (%)')}</text>`);
  s.series.forEach((ser, i) => {
    const pts = ser.em.map((v, j) => `${x(j + 1).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    out.push(`<polyline fill="none" stroke="${COLORS[i]}" stroke-width="2" points="${pts}"><title>${htmlEscape(ser.name)}</title></polyline>`);
    out.push(`<line x1="${m.l + w + 10}" x2="${m.l + w + 30}" y1="${m.t + 10 + 16 * i}" y2="${m.t + 10 + 16 * i}" stroke="${COLORS[i]}" stroke-width="2"/><text x="${m.l + w + 34}" y="${m.t + 14 + 16 * i}">${htmlEscape(ser.name)}</text>`);
  });
  s.refs.forEach((r, j) => {
    const i = s.series.length + j;
    out.push(`<line x1="${m.l}" x2="${m.l + w}" y1="${y(r.em)}" y2="${y(r.em)}" stroke="${COLORS[i % COLORS.length]}" stroke-dasharray="4 3"><title>${htmlEscape(r.name)} ${r.em}</title></line>`);
    out.push(`<line x1="${m.l + w + 10}" x2="${m.l + w + 30}" y1="${m.t + 10 + 16 * i}" y2="${m.t + 10 + 16 * i}" stroke="${COLORS[i % COLORS.length]}" stroke-dasharray="4 3"/><text x="${m.l + w + 34}" y="${m.t + 14 + 16 * i}">${htmlEscape(r.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n');
}

function table(headers: string[], rows: string[][]): string {
  return `<table>\n<thead><tr>${headers.map((h) => `<th>${htmlEscape(h)}</th>`).join('')}</tr></thead>\n<tbody>\n${rows
    .map((r) => `<tr>${r.map((c) => `<td>${htmlEscape(c)}</td>`).join('')}</tr>`)
    .join('\n')}\n</tbody>\n</table>`;
}

export function renderHtml(runs: LoadedRun[], sweeps: Sweep[]): string {
  const rows = buildTable1(runs);
  const head = ['Method', 'Model', ...TASKS.flatMap((t) => [`${TASK_LABEL[t]} (ours)`, 'n', 'errors', 'PaLM-540B', 'GPT-3'])];
  const body: string[] = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><title>ReAct reproduction: Table 1</title>',
    '<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:75em}table{border-collapse:collapse;margin:1em 0}th,td{padding:.25em .6em;border-bottom:1px solid #ddd;text-align:right}th:first-child,td:first-child,td:nth-child(2){text-align:left}caption{text-align:left;color:#555}</style>',
    '</head><body>',
    '<h1>ReAct reproduction: Table 1</h1>',
    table(head, rows.map(table1Cells)),
    `<p>EM / accuracy in percent over scored episodes; infrastructure errors are counted apart. ${htmlEscape(SOTA_NOTE)}</p>`,
  ];
  for (const s of sweeps) {
    body.push(`<h2>Figure 2: ${htmlEscape(s.task)} vs CoT-SC samples (${htmlEscape(s.model)}, ${s.questions} questions)</h2>`, sweepSvg(s));
  }
  body.push('<h2>Runs</h2>', table(DETAIL_HEADERS, detailRows(runs)), '</body></html>', '');
  return body.join('\n');
}
