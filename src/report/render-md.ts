// Markdown report (the default): Table 1 beside the paper, the Figure 2 sweep as a table, run details.
import type { LoadedRun } from './load.js';
import { buildTable1, fmt, SOTA_NOTE, TASK_LABEL, TASKS, type Table1Row } from './table1.js';
import type { Sweep } from './sweep.js';
import { DETAIL_HEADERS, detailRows } from './details.js';

const esc = (s: string) => s.replace(/\|/g, '\\|');

function mdTable(headers: string[], rows: string[][], align?: string[]): string {
  const a = align ?? headers.map(() => '---');
  return [`| ${headers.map(esc).join(' | ')} |`, `|${a.map((x) => ` ${x} `).join('|')}|`, ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`)].join('\n');
}

export function table1Cells(row: Table1Row): string[] {
  const out = [row.label, row.model || '—'];
  for (const t of TASKS) {
    const c = row.cells[t];
    out.push(c ? fmt(c.em) : '—', c ? `${c.scored}/${c.planned}` : '—', c ? String(c.errors) : '—', fmt(row.palm[t]), fmt(row.gpt3[t]));
  }
  return out;
}

export function table1Headers(): string[] {
  const h = ['Method', 'Model'];
  for (const t of TASKS) h.push(`${TASK_LABEL[t]} (ours)`, 'n', 'errors', 'PaLM-540B', 'GPT-3');
  return h;
}

export function renderMarkdown(runs: LoadedRun[], sweeps: Sweep[]): string {
  const parts: string[] = ['# ReAct reproduction: Table 1', ''];
  const rows = buildTable1(runs);
  const align = ['---', '---', ...TASKS.flatMap(() => ['---:', '---:', '---:', '---:', '---:'])];
  parts.push(mdTable(table1Headers(), rows.map(table1Cells), align), '');
  parts.push(`EM / accuracy in percent over scored episodes (n = scored/planned); episodes with an infrastructure error are counted apart, not as wrong. ${SOTA_NOTE}`, '');
  for (const s of sweeps) {
    parts.push(`## Figure 2: ${s.task} EM vs CoT-SC samples (${s.model}, ${s.questions} questions)`, '');
    const headers = ['k', ...s.series.map((x) => x.name)];
    const body = Array.from({ length: s.n }, (_, i) => [String(i + 1), ...s.series.map((x) => fmt(x.em[i]))]);
    parts.push(mdTable(headers, body, headers.map(() => '---:')), '');
    if (s.refs.length) parts.push(s.refs.map((r) => `${r.name}: ${fmt(r.em)}`).join(' · '), '');
  }
  parts.push('## Runs', '');
  parts.push(mdTable(DETAIL_HEADERS, detailRows(runs)), '');
  return parts.join('\n');
}
