// Table 1 as data: rows = methods (paper order), one column group per task: ours, n, errors, and the
// paper's PaLM-540B and GPT-3 figures (§1). Runs of the same method and model on one task with
// different splits get separate rows.
import type { TaskName } from '../tasks/types.js';
import { GPT3_FIGURES, PALM_TABLE1, SUPERVISED_SOTA, TABLE1_METHODS, methodLabel } from './paper-figures.js';

export const SOTA_NOTE = `Supervised SoTA (paper): HotpotQA ${SUPERVISED_SOTA.hotpotqa}, FEVER ${SUPERVISED_SOTA.fever}. GPT-3 (text-davinci-002) figures exist for ReAct only: HotpotQA 30.8 (Table 5; the code's README: 30.4), FEVER 54 (README).`;
import type { LoadedRun } from './load.js';

export const TASKS: TaskName[] = ['hotpotqa', 'fever'];
export const TASK_LABEL: Record<TaskName, string> = { hotpotqa: 'HotpotQA EM', fever: 'FEVER Acc' };

export interface Table1Cell {
  em: number | null;
  scored: number;
  planned: number;
  errors: number;
  split: string;
  runId: string;
}

export interface Table1Row {
  method: string;
  label: string;
  model: string;
  cells: Partial<Record<TaskName, Table1Cell>>;
  palm: Partial<Record<TaskName, number>>;
  gpt3: Partial<Record<TaskName, number>>;
}

export function buildTable1(runs: LoadedRun[]): Table1Row[] {
  const order = (m: string) => {
    const i = TABLE1_METHODS.findIndex((x) => x.method === m);
    return i < 0 ? TABLE1_METHODS.length : i;
  };
  const rows: Table1Row[] = [];
  const sorted = [...runs].sort(
    (a, b) => order(a.manifest.method) - order(b.manifest.method) || a.manifest.model.localeCompare(b.manifest.model) || a.manifest.split.localeCompare(b.manifest.split) || a.manifest.runId.localeCompare(b.manifest.runId),
  );
  for (const r of sorted) {
    const task = r.manifest.task as TaskName;
    if (!TASKS.includes(task)) continue;
    const cell: Table1Cell = {
      em: r.summary.em,
      scored: r.summary.n_scored,
      planned: r.summary.n_planned,
      errors: r.summary.n_errors,
      split: r.manifest.split + (r.manifest.shard ? ` shard ${r.manifest.shard}` : ''),
      runId: r.manifest.runId,
    };
    // First row of this method and model with a free slot for the task.
    let row = rows.find((x) => x.method === r.manifest.method && x.model === r.manifest.model && !x.cells[task]);
    if (!row) {
      const m = r.manifest.method;
      row = {
        method: m,
        label: methodLabel(m),
        model: r.manifest.model,
        cells: {},
        palm: (PALM_TABLE1 as Record<string, Partial<Record<TaskName, number>>>)[m] ?? {},
        gpt3: Object.fromEntries(Object.entries(GPT3_FIGURES[m as keyof typeof GPT3_FIGURES] ?? {}).map(([t, v]) => [t, v!.value])),
      };
      rows.push(row);
    }
    row.cells[task] = cell;
  }
  // Paper rows we have no run for still show the paper's figures (ours blank).
  for (const m of TABLE1_METHODS) {
    if (!rows.some((r) => r.method === m.method)) {
      rows.push({
        method: m.method,
        label: m.label,
        model: '',
        cells: {},
        palm: PALM_TABLE1[m.method],
        gpt3: Object.fromEntries(Object.entries(GPT3_FIGURES[m.method] ?? {}).map(([t, v]) => [t, v!.value])),
      });
    }
  }
  rows.sort((a, b) => order(a.method) - order(b.method));
  return rows;
}

export function fmt(v: number | null | undefined, digits = 1): string {
  return v === null || v === undefined ? '—' : v.toFixed(digits);
}
