// Figure 2: EM against the number of CoT-SC samples k = 1..n, from one stored n-sample CoT-SC run
// (majority over the first k samples) and, when a ReAct run of the same questions is present, the two
// combinations at each k. Only questions scored (no error) in every run used are counted, and n says
// how many; a figure with no such question is not drawn (no NaN ever reaches a plot).
import { storedMajority } from '../methods/cot-sc.js';
import { combine } from '../methods/combinations.js';
import { scoreHotpotQA } from '../scoring.js';
import { isQaTask, qaTask } from '../task-specs.js';
import type { ReportFigure, RunView } from '../../../report/model.js';
import { percent } from '../../../util/numbers.js';
import { qaRecordFields } from '../record-fields.js';
import type { EpisodeRecord } from '../../../runlog/schema.js';

export interface SweepSeries {
  name: 'CoT-SC' | 'ReAct→CoT-SC' | 'CoT-SC→ReAct';
  /** EM in percent at k = 1..n. */
  em: number[];
}

export interface Sweep {
  task: string;
  split: string;
  model: string;
  cotScRunId: string;
  reactRunId: string | null;
  /** The CoT run of its reference line, if any. */
  cotRunId: string | null;
  n: number;
  /** Questions scored in every series. */
  questions: number;
  series: SweepSeries[];
  /** Horizontal references: ReAct and CoT EM over the same questions (when present). */
  refs: { name: string; em: number }[];
}

function scorer(task: string) {
  return { score: isQaTask(task) ? qaTask(task).score : scoreHotpotQA };
}

const samplesOf = (r: EpisodeRecord) => qaRecordFields(r).samples;

export function buildSweeps(runs: RunView[]): Sweep[] {
  const out: Sweep[] = [];
  for (const c of runs) {
    if (c.manifest.method !== 'cot-sc' || c.manifest.kind === 'combination') continue;
    // Every scored episode, those that outgrew the context window (no samples, no vote) included, as
    // Table 1 scores them; k runs up to the fewest samples any other episode has.
    const recs = c.records.filter((r) => !r.error && samplesOf(r) !== undefined);
    const counts = recs.map((r) => samplesOf(r)!.length).filter((len) => len > 0);
    if (counts.length === 0) continue;
    const n = Math.min(...counts);
    if (n < 2) continue;
    const task = scorer(c.manifest.task);
    // The same comparable set of episodes (the report's cohort: benchmark, split, items, model), or
    // without grouping the same model and planned items.
    const same = (r: RunView) =>
      c.cohort && r.cohort
        ? r.cohort.key === c.cohort.key
        : r.manifest.task === c.manifest.task &&
          r.manifest.model === c.manifest.model &&
          JSON.stringify(r.manifest.indices) === JSON.stringify(c.manifest.indices);
    const react = runs.find((r) => r.manifest.method === 'react' && r.manifest.kind !== 'combination' && same(r));
    const cot = runs.find((r) => r.manifest.method === 'cot' && same(r));
    const byIdx = (run: RunView | undefined) => new Map((run?.records ?? []).map((r) => [r.idx, r]));
    const reactRecs = byIdx(react);
    const cotRecs = byIdx(cot);
    const pairs = recs.map((cr) => ({ c: cr, r: reactRecs.get(cr.idx) })).filter((p) => !react || (p.r && !p.r.error));
    if (pairs.length === 0) continue;
    const series: SweepSeries[] = [{ name: 'CoT-SC', em: [] }];
    if (react) series.push({ name: 'ReAct→CoT-SC', em: [] }, { name: 'CoT-SC→ReAct', em: [] });
    const gold = (r: EpisodeRecord) => r.gold ?? '';
    for (let k = 1; k <= n; k++) {
      let sc = 0;
      let rc = 0;
      let cr = 0;
      for (const p of pairs) {
        sc += task.score(storedMajority(samplesOf(p.c)!, k).answer, gold(p.c)).em;
        if (p.r) {
          const input = {
            react: { answer: p.r.answer, forcedFinish: qaRecordFields(p.r).forcedFinish, steps: p.r.steps },
            cotSc: { samples: samplesOf(p.c)! },
            task,
            gold: gold(p.c),
            k,
          };
          rc += combine('react-cot-sc', input).em;
          cr += combine('cot-sc-react', input).em;
        }
      }
      series[0].em.push(percent(sc, pairs.length)!);
      if (react) {
        series[1].em.push(percent(rc, pairs.length)!);
        series[2].em.push(percent(cr, pairs.length)!);
      }
    }
    // References over the same questions as the series.
    const refs: { name: string; em: number }[] = [];
    const refOver = (name: string, m: Map<number, EpisodeRecord>) => {
      const rs = pairs.map((p) => m.get(p.c.idx)).filter((r): r is EpisodeRecord => !!r && !r.error);
      if (rs.length === pairs.length)
        refs.push({
          name,
          em: percent(
            rs.reduce((a, r) => a + (r.metrics.em ?? 0), 0),
            rs.length,
          )!,
        });
    };
    if (react) refOver('ReAct', reactRecs);
    if (cot) refOver('CoT', cotRecs);
    out.push({
      task: c.manifest.task,
      split: c.manifest.split,
      model: c.manifest.model,
      cotScRunId: c.manifest.runId,
      reactRunId: react?.manifest.runId ?? null,
      cotRunId: cot?.manifest.runId ?? null,
      n,
      questions: pairs.length,
      series,
      refs,
    });
  }
  return out;
}

/** The benchmark and its metric as the paper's tables name them ("FEVER Acc"). */
export function sweepFigure(s: Sweep): ReportFigure {
  const score = isQaTask(s.task) ? qaTask(s.task).scoreLabel : `${s.task} EM`;
  const items = isQaTask(s.task) ? qaTask(s.task).itemsNoun : 'questions';
  return {
    id: `figure2-${s.task}-${s.cotScRunId}`,
    title: `Figure 2: ${score} vs CoT-SC samples (split ${s.split}, ${s.model}, n = ${s.questions} ${items})`,
    xLabel: 'CoT-SC samples',
    yLabel: score,
    series: s.series.map((x) => ({ name: x.name, points: x.em.map((y, i) => [i + 1, y] as [number, number]) })),
    refs: s.refs.map((r) => ({ name: r.name, y: r.em })),
    runIds: [s.cotScRunId, s.reactRunId, s.cotRunId].filter((id): id is string => id !== null),
    notes: [
      `Split ${s.split}, n = ${s.questions} ${items} scored in every run used.`,
      `Runs: CoT-SC ${s.cotScRunId}${s.reactRunId ? `, ReAct ${s.reactRunId}` : ''}.`,
      'CoT-SC at k = the majority of the first k of its stored samples; the combinations at k use that majority. Reference lines: ReAct and CoT on the same questions.',
    ],
  };
}

export function buildSweepFigures(runs: RunView[]): ReportFigure[] {
  return buildSweeps(runs).map(sweepFigure);
}
