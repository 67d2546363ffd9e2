// Table 4 (WebShop, score / success rate) from our runs, beside the paper's rows (§1). Score = mean
// reward × 100; SR = % of episodes with reward 1 (WebShop.ipynb run_episodes).
import type { Cell, ReportRow, ReportTable, RunView } from '../../report/model.js';
import { metricScore } from '../../report/numbers.js';
import { describeTally, tallyGoals, type GoalCheck } from './goals.js';

export const BENCHMARK = 'webshop';

/** The paper's Table 4 (PaLM-540B prompting; IL and IL+RL from the WebShop paper, Yao et al. 2022). */
export const PAPER_TABLE4: readonly { label: string; method: string | null; model: string; score: number; sr: number }[] = [
  { label: 'Act', method: 'act', model: 'PaLM-540B', score: 62.3, sr: 30.1 },
  { label: 'ReAct', method: 'react', model: 'PaLM-540B', score: 66.6, sr: 40.0 },
  { label: 'IL', method: null, model: 'trained (WebShop)', score: 59.9, sr: 29.1 },
  { label: 'IL+RL', method: null, model: 'trained (WebShop)', score: 62.4, sr: 28.7 },
  { label: 'Human expert', method: null, model: 'people', score: 82.1, sr: 59.6 },
];

const METHOD_LABEL: Record<string, string> = { act: 'Act', react: 'ReAct' };

export interface RunScores {
  run: RunView;
  score: number | null;
  sr: number | null;
  scored: number;
  planned: number;
  errors: number;
}

export function runScores(run: RunView): RunScores {
  const s = metricScore(run.records, 'score');
  const sr = metricScore(run.records, 'success');
  return { run, score: s.value, sr: sr.value, scored: s.n, planned: run.manifest.indices?.length ?? run.records.length, errors: s.errors };
}

function sortKey(r: RunScores): string {
  const m = r.run.manifest;
  return `${m.method === 'act' ? 0 : m.method === 'react' ? 1 : 2}\u0000${m.model}\u0000${m.runId}`;
}

export function buildTable4(runs: RunView[]): ReportTable {
  const mine = runs.filter((r) => r.manifest.task === BENCHMARK).map(runScores).sort((a, b) => sortKey(a).localeCompare(sortKey(b)));
  const rows: ReportRow[] = [];
  const cells = (score: Cell, sr: Cell, model: Cell, n: Cell, errors: Cell): Record<string, Cell> => ({ model, score, sr, n, errors });
  for (const p of PAPER_TABLE4) {
    for (const r of mine.filter((x) => x.run.manifest.method === p.method)) {
      rows.push({ label: `${METHOD_LABEL[p.method!]} (ours)`, source: 'ours', cells: cells(r.score, r.sr, r.run.manifest.model, `${r.scored}/${r.planned}`, r.errors) });
    }
    rows.push({ label: p.label, source: 'paper', cells: cells(p.score, p.sr, p.model, '500', null) });
  }
  const notes = [
    'Score = mean reward × 100 (the done page\'s reward, 0 when no purchase within 15 steps counting the reset); SR = % of episodes with reward 1. Over the scored episodes; episodes with an environment or model error are counted apart, never as 0.',
    "Paper rows: Table 4 (PaLM-540B, the 500 test instructions fixed_0..fixed_499); IL and IL+RL (Yao et al. 2022, WebShop) and the human expert are the paper's figures only.",
  ];
  for (const r of mine) {
    const m = r.run.manifest;
    const goals = tallyGoals(r.run.records.filter((rec) => !rec.error).map((rec) => ({ session: rec.item, check: rec.goal_check as GoalCheck | undefined })));
    notes.push(
      `${METHOD_LABEL[m.method] ?? m.method}, ${m.model} (${m.runId}): split ${m.split}, n = ${r.scored} scored of ${r.planned} planned, ${r.errors} errors. ${describeTally(goals)}.`,
    );
  }
  return {
    id: 'table4',
    title: 'Table 4: WebShop score and success rate (%)',
    columns: [
      { key: 'model', label: 'Model' },
      { key: 'score', label: 'Score', numeric: true },
      { key: 'sr', label: 'SR', numeric: true },
      { key: 'n', label: 'n' },
      { key: 'errors', label: 'errors' },
    ],
    rows,
    notes,
  };
}

export function buildWebshopTables(runs: RunView[]): ReportTable[] {
  return runs.some((r) => r.manifest.task === BENCHMARK) ? [buildTable4(runs)] : [];
}
