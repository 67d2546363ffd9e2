// Table 4 (WebShop, score / success rate) from our runs, beside the paper's class-A rows (the anchors
// file: §1's numbers with their source). Score = mean reward × 100; SR = % of episodes with reward 1
// (WebShop.ipynb run_episodes); each with its 95% bootstrap interval. IL and IL+RL (trained agents,
// same items) are shown as the paper's rows only; the human expert (class C) is under "Published elsewhere".
import type { Cell, ReportRow, ReportTable, RunView } from '../../report/model.js';
import { reportAnchors, anchorCitation, anchorProvenance, type Anchor } from '../../report/anchors.js';
import { scoreCell } from '../../report/scores.js';
import type { Interval } from '../../report/model.js';
import { describeTally, tallyGoals, goalCheckOf } from './goals.js';

export const BENCHMARK = 'webshop';

/** The paper's Table 4 rows shown beside ours (PaLM-540B prompting; the numbers come from the anchors file). */
export const PAPER_TABLE4: readonly { label: string; method: string; model: string }[] = [
  { label: 'Act', method: 'act', model: 'PaLM-540B' },
  { label: 'ReAct', method: 'react', model: 'PaLM-540B' },
  // Trained agents of the WebShop paper (Yao et al. 2022) on the same 500 instructions: their rows only.
  { label: 'IL', method: 'il', model: 'IL (trained)' },
  { label: 'IL+RL', method: 'il-rl', model: 'IL+RL (trained)' },
];

const METHOD_LABEL: Record<string, string> = { act: 'Act', react: 'ReAct' };

export interface RunScores {
  run: RunView;
  score: number | null;
  sr: number | null;
  ci: { score: Interval; sr: Interval };
  scored: number;
  planned: number;
  errors: number;
}

export function runScores(run: RunView): RunScores {
  const s = scoreCell(run.records, 'score', run.manifest.runId);
  const sr = scoreCell(run.records, 'success', run.manifest.runId);
  // Scores are over the items the table compares (a report hands in the run restricted to the items
  // scored in every run of its set); planned items and error episodes are the run's own, as stored.
  const whole = run.full ?? run;
  const errors = whole.records.filter((r) => r.error).length;
  return {
    run,
    score: s.value,
    sr: sr.value,
    ci: { score: s.ci, sr: sr.ci },
    scored: s.n,
    planned: whole.manifest.indices?.length ?? whole.records.length,
    errors,
  };
}

function sortKey(r: RunScores): string {
  const m = r.run.manifest;
  return `${m.method === 'act' ? 0 : m.method === 'react' ? 1 : 2}\u0000${m.model}\u0000${m.runId}`;
}

export function buildTable4(runs: RunView[]): ReportTable {
  const mine = runs
    .filter((r) => r.manifest.task === BENCHMARK)
    .map(runScores)
    .sort((a, b) => sortKey(a).localeCompare(sortKey(b)));
  const rows: ReportRow[] = [];
  const cells = (score: Cell, sr: Cell, model: Cell, n: Cell, errors: Cell): Record<string, Cell> => ({ model, score, sr, n, errors });
  const book = reportAnchors();
  const used: Anchor[] = [];
  const paper = (method: string, metric: string, model: string) => {
    const a = book.pick({ benchmark: BENCHMARK, method, metric, model });
    if (a && !used.includes(a)) used.push(a);
    return a?.value ?? null;
  };
  for (const p of PAPER_TABLE4) {
    for (const r of mine.filter((x) => x.run.manifest.method === p.method)) {
      rows.push({
        label: `${METHOD_LABEL[p.method]} (ours)`,
        source: 'ours',
        ref: r.run.manifest.runId,
        cells: cells(r.score, r.sr, r.run.manifest.model, `${r.scored}/${r.planned}`, r.errors),
        ci: r.ci,
      });
    }
    const before = used.length;
    const row = cells(paper(p.method, 'score', p.model), paper(p.method, 'success', p.model), p.model, '500', null);
    const cited = used.slice(before);
    rows.push({
      label: p.label,
      ...(cited.length ? anchorProvenance(cited[0]) : { source: 'paper' as const }),
      ref: [...new Set(cited.map(anchorCitation))].join('; ') || undefined,
      cells: row,
    });
  }
  const notes = [
    "Score = mean reward × 100 (the done page's reward, 0 when no purchase within 15 steps counting the reset); SR = % of episodes with reward 1; each with its 95% bootstrap interval (10,000 resamples, seeded). Over the scored episodes; episodes with an environment or model error are counted apart, never as 0.",
    `Paper rows (class A): PaLM-540B on the 500 test instructions fixed_0..fixed_499, ${[...new Set(used.map(anchorCitation))].join('; ')}. IL and IL+RL (Yao et al. 2022, WebShop; trained agents) are the paper's rows only; the human expert is under "Published elsewhere".`,
  ];
  for (const r of mine) {
    const m = r.run.manifest;
    const goals = tallyGoals(r.run.records.filter((rec) => !rec.error).map((rec) => ({ session: rec.item, check: goalCheckOf(rec) })));
    const whole = r.run.full ?? r.run;
    const missing = r.planned - whole.records.length;
    const leftOut = whole.records.length - r.errors - r.scored;
    const parts = [
      `${r.errors} error episode${r.errors === 1 ? '' : 's'} (left out, never scored 0)`,
      missing > 0 ? `${missing} not run` : '',
      leftOut > 0 ? `${leftOut} scored but left out because another run of the same items has no score there` : '',
    ].filter(Boolean);
    notes.push(
      `${METHOD_LABEL[m.method] ?? m.method}, ${m.model} (${m.runId}): split ${m.split}, n = ${r.scored} compared of ${r.planned} planned; ${parts.join(', ')}. ${describeTally(goals)}.`,
    );
  }
  return {
    id: 'table4',
    title: 'Table 4: WebShop score and success rate (%)',
    columns: [
      { key: 'model', label: 'Model', identifies: true },
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
