// Table 1 as a ReportTable: rows = methods (paper order) × model, one column group per task: ours,
// n (scored/planned), errors, and the paper's PaLM-540B and GPT-3 figures (§1). Runs of the same
// method and model on one task with different splits get separate rows.
import type { ReportColumn, ReportRow, ReportTable, RunView } from '../../../report/model.js';
import type { TaskName } from '../types.js';
import { GPT3_FIGURES, PALM_TABLE1, SUPERVISED_SOTA, TABLE1_METHODS, methodLabel } from './paper-figures.js';

export const SOTA_NOTE = `Supervised SoTA (paper): HotpotQA ${SUPERVISED_SOTA.hotpotqa}, FEVER ${SUPERVISED_SOTA.fever}. GPT-3 (text-davinci-002) figures exist for ReAct only: HotpotQA 30.8 (Table 5; the code's README: 30.4), FEVER 54 (README).`;

export const TASKS: TaskName[] = ['hotpotqa', 'fever'];
export const TASK_LABEL: Record<TaskName, string> = { hotpotqa: 'HotpotQA EM', fever: 'FEVER Acc' };

function columns(): ReportColumn[] {
  const cols: ReportColumn[] = [{ key: 'model', label: 'Model' }];
  for (const t of TASKS) {
    const group = TASK_LABEL[t];
    cols.push(
      { key: `${t}.ours`, label: `${group} (ours)`, group, numeric: true },
      { key: `${t}.n`, label: 'n', group },
      { key: `${t}.errors`, label: 'errors', group },
      { key: `${t}.split`, label: 'split', group },
      { key: `${t}.palm`, label: 'PaLM-540B', group, numeric: true },
      { key: `${t}.gpt3`, label: 'GPT-3', group, numeric: true },
    );
  }
  return cols;
}

function paperCells(method: string): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const t of TASKS) {
    out[`${t}.palm`] = (PALM_TABLE1 as Record<string, Record<string, number>>)[method]?.[t] ?? null;
    out[`${t}.gpt3`] = (GPT3_FIGURES as Record<string, Record<string, { value: number }> | undefined>)[method]?.[t]?.value ?? null;
  }
  return out;
}

export function buildTable1(runs: RunView[]): ReportTable {
  const order = (m: string) => {
    const i = TABLE1_METHODS.findIndex((x) => x.method === m);
    return i < 0 ? TABLE1_METHODS.length : i;
  };
  const rows: (ReportRow & { method: string; model: string })[] = [];
  const sorted = [...runs].sort(
    (a, b) =>
      order(a.manifest.method) - order(b.manifest.method) ||
      a.manifest.model.localeCompare(b.manifest.model) ||
      a.manifest.split.localeCompare(b.manifest.split) ||
      a.manifest.runId.localeCompare(b.manifest.runId),
  );
  for (const r of sorted) {
    const task = r.manifest.task as TaskName;
    if (!TASKS.includes(task)) continue;
    const m = r.manifest.method;
    // First row of this method and model with a free slot for the task.
    let row = rows.find((x) => x.method === m && x.model === r.manifest.model && x.cells[`${task}.n`] === undefined);
    if (!row) {
      row = { method: m, model: r.manifest.model, label: methodLabel(m), source: 'ours', cells: { model: r.manifest.model, ...paperCells(m) } };
      rows.push(row);
    }
    const s = r.summary;
    row.cells[`${task}.ours`] = s.metrics.em ?? null;
    row.cells[`${task}.n`] = `${s.n_scored}/${s.n_planned}`;
    row.cells[`${task}.errors`] = s.n_errors;
    row.cells[`${task}.split`] = r.manifest.split + (r.manifest.shard ? ` shard ${r.manifest.shard}` : '');
  }
  // Paper rows we have no run for still show the paper's figures (ours blank).
  for (const m of TABLE1_METHODS) {
    if (!rows.some((r) => r.method === m.method)) rows.push({ method: m.method, model: '', label: m.label, source: 'paper', cells: { model: null, ...paperCells(m.method) } });
  }
  rows.sort((a, b) => order(a.method) - order(b.method));
  return {
    id: 'table1',
    title: 'Table 1: HotpotQA and FEVER',
    columns: columns(),
    rows: rows.map(({ method: _m, model: _mo, ...row }) => row),
    notes: [
      'EM / accuracy in percent over scored episodes (n = scored/planned); episodes with an infrastructure error are counted apart, not as wrong.',
      SOTA_NOTE,
    ],
  };
}

export function fmt(v: number | null | undefined, digits = 1): string {
  return v === null || v === undefined ? '—' : v.toFixed(digits);
}
