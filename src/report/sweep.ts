// Figure 2: EM against the number of CoT-SC samples k = 1..n, from one stored n-sample CoT-SC run
// (majority over the first k samples) and, when a ReAct run of the same questions is present, the two
// combinations at each k. Error episodes are left out (as in the summary).
import { cotScAtN } from '../methods/cot-sc.js';
import { combine } from '../methods/combinations.js';
import { scoreFever, scoreHotpotQA } from '../tasks/scoring.js';
import type { CombinationName } from '../methods/types.js';
import type { LoadedRun } from './load.js';

export interface SweepSeries {
  name: 'CoT-SC' | 'ReAct→CoT-SC' | 'CoT-SC→ReAct';
  /** EM in percent at k = 1..n. */
  em: number[];
}

export interface Sweep {
  task: string;
  model: string;
  cotScRunId: string;
  reactRunId: string | null;
  n: number;
  /** Questions scored in every series. */
  questions: number;
  series: SweepSeries[];
  /** Horizontal references: ReAct and CoT (when present) EM. */
  refs: { name: string; em: number }[];
}

function scorer(task: string) {
  return { score: task === 'fever' ? scoreFever : scoreHotpotQA };
}

export function buildSweeps(runs: LoadedRun[]): Sweep[] {
  const out: Sweep[] = [];
  for (const c of runs) {
    if (c.manifest.method !== 'cot-sc' || c.manifest.kind === 'combination') continue;
    const recs = c.manifest.indices.map((i) => c.records.get(i)).filter((r) => r && !r.error && r.samples && r.samples.length > 0);
    if (recs.length === 0) continue;
    const n = Math.min(...recs.map((r) => r!.samples!.length));
    if (n < 2) continue;
    const task = scorer(c.manifest.task);
    const same = (r: LoadedRun) => r.manifest.task === c.manifest.task && r.manifest.model === c.manifest.model && JSON.stringify(r.manifest.indices) === JSON.stringify(c.manifest.indices);
    const react = runs.find((r) => r.manifest.method === 'react' && r.manifest.kind !== 'combination' && same(r));
    const cot = runs.find((r) => r.manifest.method === 'cot' && same(r));
    const pairs = recs
      .map((cr) => ({ c: cr!, r: react?.records.get(cr!.question_idx) }))
      .filter((p) => !react || (p.r && !p.r.error));
    const series: SweepSeries[] = [{ name: 'CoT-SC', em: [] }];
    if (react) series.push({ name: 'ReAct→CoT-SC', em: [] }, { name: 'CoT-SC→ReAct', em: [] });
    for (let k = 1; k <= n; k++) {
      let sc = 0;
      let rc = 0;
      let cr = 0;
      for (const p of pairs) {
        sc += task.score(cotScAtN(p.c.samples!, k).answer, p.c.gold).em;
        if (p.r) {
          const input = { react: { answer: p.r.answer, forcedFinish: p.r.forced_finish, steps: p.r.steps }, cotSc: { samples: p.c.samples! }, task, gold: p.c.gold, k };
          rc += combine('react-cot-sc' as CombinationName, input).em;
          cr += combine('cot-sc-react' as CombinationName, input).em;
        }
      }
      const pct = (x: number) => Math.round((10000 * x) / pairs.length) / 100;
      series[0].em.push(pct(sc));
      if (react) {
        series[1].em.push(pct(rc));
        series[2].em.push(pct(cr));
      }
    }
    const refs: { name: string; em: number }[] = [];
    if (react?.summary.em != null) refs.push({ name: 'ReAct', em: react.summary.em });
    if (cot?.summary.em != null) refs.push({ name: 'CoT', em: cot.summary.em });
    out.push({ task: c.manifest.task, model: c.manifest.model, cotScRunId: c.manifest.runId, reactRunId: react?.manifest.runId ?? null, n, questions: pairs.length, series, refs });
  }
  return out;
}
