// Markdown report (the default): each paper table beside the paper, each figure as a table of its
// points, and the runs.
import type { ReportContent } from './build.js';
import type { ReportFigure, ReportTable } from './model.js';
import { cellText, fmt } from './format.js';

const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function mdTable(headers: string[], rows: string[][], align?: string[]): string {
  const a = align ?? headers.map(() => '---');
  return [`| ${headers.map(esc).join(' | ')} |`, `|${a.map((x) => ` ${x} `).join('|')}|`, ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`)].join('\n');
}

export function mdReportTable(t: ReportTable, firstHeader = 'Method'): string {
  const headers = [firstHeader, ...t.columns.map((c) => c.label)];
  const align = ['---', ...t.columns.map((c) => (c.numeric ? '---:' : '---'))];
  const rows = t.rows.map((r) => [r.source === 'paper' ? `${r.label} (paper)` : r.label, ...t.columns.map((c) => cellText(r.cells[c.key], c))]);
  return mdTable(headers, rows, align);
}

function mdFigure(f: ReportFigure): string {
  const xs = [...new Set(f.series.flatMap((s) => s.points.map((p) => p[0])))].sort((a, b) => a - b);
  const headers = [f.xLabel, ...f.series.map((s) => s.name)];
  const rows = xs.map((x) => [String(x), ...f.series.map((s) => fmt(s.points.find((p) => p[0] === x)?.[1]))]);
  const parts = [mdTable(headers, rows, headers.map(() => '---:'))];
  if (f.refs.length) parts.push(f.refs.map((r) => `${r.name}: ${fmt(r.y)}`).join(' · '));
  return parts.join('\n\n');
}

export function renderMarkdown(c: ReportContent): string {
  const parts: string[] = ['# ReAct reproduction', ''];
  for (const t of c.tables) parts.push(`## ${t.title}`, '', mdReportTable(t), '', ...t.notes.map((n) => `${n}`), '');
  for (const f of c.figures) parts.push(`## ${f.title}`, '', mdFigure(f), '', ...f.notes, '');
  parts.push('## Runs', '', mdReportTable(c.runsTable, 'Run'), '');
  return parts.join('\n');
}
