// A self-contained HTML page: the paper tables, the figures as inline SVG line plots, the runs.
import type { ReportContent } from './build.js';
import type { ReportFigure, ReportTable } from './model.js';
import { cellText } from './format.js';

export function htmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#7f7f7f', '#9467bd', '#8c564b'];

/** y against x for each series, with dashed horizontal reference lines. Empty series draw nothing. */
export function figureSvg(f: ReportFigure, width = 560, height = 320): string {
  const m = { l: 48, r: 150, t: 16, b: 40 };
  const w = width - m.l - m.r;
  const h = height - m.t - m.b;
  const ys = [...f.series.flatMap((s) => s.points.map((p) => p[1])), ...f.refs.map((r) => r.y)].filter(Number.isFinite);
  const xs = f.series.flatMap((s) => s.points.map((p) => p[0])).filter(Number.isFinite);
  if (ys.length === 0 || xs.length === 0) return '<p>(no data)</p>';
  let lo = Math.floor(Math.min(...ys) / 5) * 5;
  let hi = Math.ceil(Math.max(...ys) / 5) * 5;
  if (hi === lo) {
    hi += 5;
    lo = Math.max(0, lo - 5);
  }
  const x0 = Math.min(...xs);
  const x1 = Math.max(...xs);
  const x = (k: number) => m.l + (x1 === x0 ? 0 : ((k - x0) / (x1 - x0)) * w);
  const y = (v: number) => m.t + h - ((v - lo) / (hi - lo)) * h;
  const out: string[] = [`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`];
  out.push(`<rect x="${m.l}" y="${m.t}" width="${w}" height="${h}" fill="none" stroke="#999"/>`);
  for (let v = lo; v <= hi; v += 5) out.push(`<text x="${m.l - 6}" y="${y(v) + 4}" text-anchor="end">${v}</text><line x1="${m.l}" x2="${m.l + w}" y1="${y(v)}" y2="${y(v)}" stroke="#eee"/>`);
  const step = x1 - x0 > 10 ? 2 : 1;
  for (let k = x0; k <= x1; k += step) out.push(`<text x="${x(k)}" y="${m.t + h + 14}" text-anchor="middle">${k}</text>`);
  out.push(`<text x="${m.l + w / 2}" y="${height - 6}" text-anchor="middle">${htmlEscape(f.xLabel)}</text>`);
  out.push(`<text transform="translate(12 ${m.t + h / 2}) rotate(-90)" text-anchor="middle">${htmlEscape(f.yLabel)} (%)</text>`);
  f.series.forEach((ser, i) => {
    const pts = ser.points.filter((p) => Number.isFinite(p[1])).map((p) => `${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join(' ');
    out.push(`<polyline fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="2" points="${pts}"><title>${htmlEscape(ser.name)}</title></polyline>`);
    out.push(`<line x1="${m.l + w + 10}" x2="${m.l + w + 30}" y1="${m.t + 10 + 16 * i}" y2="${m.t + 10 + 16 * i}" stroke="${COLORS[i % COLORS.length]}" stroke-width="2"/><text x="${m.l + w + 34}" y="${m.t + 14 + 16 * i}">${htmlEscape(ser.name)}</text>`);
  });
  f.refs.forEach((r, j) => {
    const i = f.series.length + j;
    const c = COLORS[i % COLORS.length];
    out.push(`<line x1="${m.l}" x2="${m.l + w}" y1="${y(r.y)}" y2="${y(r.y)}" stroke="${c}" stroke-dasharray="4 3"><title>${htmlEscape(r.name)} ${r.y}</title></line>`);
    out.push(`<line x1="${m.l + w + 10}" x2="${m.l + w + 30}" y1="${m.t + 10 + 16 * i}" y2="${m.t + 10 + 16 * i}" stroke="${c}" stroke-dasharray="4 3"/><text x="${m.l + w + 34}" y="${m.t + 14 + 16 * i}">${htmlEscape(r.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n');
}

export function htmlTable(t: ReportTable, firstHeader = 'Method'): string {
  const head = [firstHeader, ...t.columns.map((c) => (c.group && !c.label.startsWith(c.group) ? `${c.group} ${c.label}` : c.label))];
  const rows = t.rows.map((r) => [r.source === 'paper' ? `${r.label} (paper)` : r.label, ...t.columns.map((c) => cellText(r.cells[c.key], c))]);
  return `<table>\n<thead><tr>${head.map((h) => `<th>${htmlEscape(h)}</th>`).join('')}</tr></thead>\n<tbody>\n${rows
    .map((r) => `<tr>${r.map((c) => `<td>${htmlEscape(c)}</td>`).join('')}</tr>`)
    .join('\n')}\n</tbody>\n</table>`;
}

export function renderHtml(c: ReportContent): string {
  const body: string[] = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><title>ReAct reproduction</title>',
    '<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:75em}table{border-collapse:collapse;margin:1em 0}th,td{padding:.25em .6em;border-bottom:1px solid #ddd;text-align:right}th:first-child,td:first-child{text-align:left}</style>',
    '</head><body>',
    '<h1>ReAct reproduction</h1>',
  ];
  for (const t of c.tables) body.push(`<h2>${htmlEscape(t.title)}</h2>`, htmlTable(t), ...t.notes.map((n) => `<p>${htmlEscape(n)}</p>`));
  for (const f of c.figures) body.push(`<h2>${htmlEscape(f.title)}</h2>`, figureSvg(f), ...f.notes.map((n) => `<p>${htmlEscape(n)}</p>`));
  body.push('<h2>Runs</h2>', htmlTable(c.runsTable, 'Run'), '</body></html>', '');
  return body.join('\n');
}
