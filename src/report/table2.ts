// Table 2 (error analysis, paper §3.3) in the report: the seeded sample of 50 correct and 50
// incorrect trajectories per run, their automatic tags, the sheet a person labels
// (`report --label-sheet FILE`), and the table rebuilt from those labels (`report --labels FILE`)
// with the paper's numbers beside ours. The pieces are in error-tags.ts; this joins them to runs.
import type { ReportRow, ReportTable, RunView } from './model.js';
import {
  autoTags, sampleForAnalysis, table2FromLabels, type AutoTag, type Category, type LabelRow, type TaggableRecord,
} from './error-tags.js';
import { runPrompt } from './html/episodes.js';
import { reportAnchors } from './anchors.js';
import { methodLabel, type TitleOf } from './names.js';
import { percent } from './numbers.js';

/** The paper analysed ReAct and CoT (HotpotQA). */
export const DEFAULT_LABEL_METHODS = ['react', 'cot'];
/** Same seed as the paper's question sample (docs/protocol.md §2), so the draw is easy to recognise and repeat. */
export const SAMPLE_SEED = 233;
const PER_CLASS = 50;

/** The metric whose value > 0 counts as correct: the run's first declared metric. */
export function primaryMetric(run: RunView): string {
  return run.manifest.metrics?.[0]?.key ?? Object.keys(run.records.find((r) => !r.error)?.metrics ?? {})[0] ?? 'score';
}

/** Runs Table 2 samples: episodes of their own (not a combination), of the methods analysed. */
export function analysedRuns(runs: readonly RunView[], methods: readonly string[] = DEFAULT_LABEL_METHODS): RunView[] {
  return runs.filter((r) => r.manifest.kind !== 'combination' && methods.includes(r.manifest.method));
}

export interface RunSample {
  run: RunView;
  correct: TaggableRecord[];
  incorrect: TaggableRecord[];
  available: { correct: number; incorrect: number };
}

export function sampleRuns(runs: readonly RunView[], methods?: readonly string[]): RunSample[] {
  return analysedRuns(runs, methods).map((run) => {
    const s = sampleForAnalysis(run.records as unknown as TaggableRecord[], { primary: primaryMetric(run), seed: SAMPLE_SEED, perClass: PER_CLASS });
    return { run, ...s };
  });
}

/** The rows of the label sheet: every sampled trajectory with its automatic tags and an empty label. */
export function labelSheetRows(samples: readonly RunSample[]): LabelRow[] {
  const rows: LabelRow[] = [];
  for (const s of samples) {
    const prompt = runPrompt(s.run.records);
    const byIdx = new Map(s.run.records.map((r) => [r.idx, r]));
    for (const [outcome, recs] of [['correct', s.correct], ['incorrect', s.incorrect]] as const) {
      for (const t of recs) {
        const r = byIdx.get(t.idx)!;
        const traj = typeof r.traj === 'string' ? r.traj : '';
        rows.push({
          run: s.run.manifest.runId,
          benchmark: s.run.manifest.task,
          method: s.run.manifest.method,
          idx: r.idx,
          outcome,
          question: String(r.input ?? r.item ?? ''),
          gold: r.gold ?? '',
          answer: r.answer ?? '',
          auto_tags: autoTags(t),
          trajectory: traj.startsWith(prompt) ? traj.slice(prompt.length) : traj,
          label: '',
          note: '',
        });
      }
    }
  }
  return rows;
}

/** How a run is named in Table 2's column groups: the method, and the model when a method has runs of several. */
function groupNames(runs: readonly RunView[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of runs) {
    const same = runs.filter((x) => x.manifest.task === r.manifest.task && x.manifest.method === r.manifest.method);
    const models = new Set(same.map((x) => x.manifest.model));
    let name = methodLabel(r.manifest.method);
    if (models.size > 1) name += ` (${r.manifest.model})`;
    if (same.filter((x) => x.manifest.model === r.manifest.model).length > 1) name += ` (${r.variant ?? r.manifest.runId.slice(-8)})`;
    out.set(r.manifest.runId, name);
  }
  return out;
}

const TAGS: { tag: AutoTag; label: string }[] = [
  { tag: 'search-not-found', label: 'search found nothing useful' },
  { tag: 'repeated-action', label: 'repeated identical actions' },
  { tag: 'step-limit', label: 'no answer within the step limit' },
  { tag: 'label-ambiguity', label: 'label ambiguity (F1 > 0, EM 0)' },
];

/** The automatic tags of the sampled trajectories: per run, the share of its sampled incorrect (and correct) ones with each tag. */
export function autoTagTables(samples: readonly RunSample[], titleOf: TitleOf): ReportTable[] {
  const benchmarks = [...new Set(samples.map((s) => s.run.manifest.task))];
  return benchmarks.map((b) => {
    const mine = samples.filter((s) => s.run.manifest.task === b);
    const names = groupNames(mine.map((s) => s.run));
    const columns = mine.flatMap((s) => {
      const g = names.get(s.run.manifest.runId)!;
      return [
        { key: `${s.run.manifest.runId}.inc`, label: 'Incorrect', group: g, numeric: true },
        { key: `${s.run.manifest.runId}.inc_n`, label: 'n', group: g },
        { key: `${s.run.manifest.runId}.cor`, label: 'Correct', group: g, numeric: true },
        { key: `${s.run.manifest.runId}.cor_n`, label: 'n', group: g },
      ];
    });
    const rows: ReportRow[] = TAGS.map(({ tag, label }) => {
      const cells: ReportRow['cells'] = {};
      for (const s of mine) {
        const id = s.run.manifest.runId;
        const k = (xs: TaggableRecord[]) => xs.filter((r) => autoTags(r).includes(tag)).length;
        cells[`${id}.inc`] = percent(k(s.incorrect), s.incorrect.length);
        cells[`${id}.inc_n`] = `${k(s.incorrect)}/${s.incorrect.length}`;
        cells[`${id}.cor`] = percent(k(s.correct), s.correct.length);
        cells[`${id}.cor_n`] = `${k(s.correct)}/${s.correct.length}`;
      }
      return { label, source: 'ours', cells };
    });
    return {
      id: `table2-auto-${b}`,
      title: `Table 2 (automatic tags): ${titleOf(b)}`,
      columns,
      rows,
      notes: [
        ...mine.map((s) => `${names.get(s.run.manifest.runId)}: ${s.correct.length} correct and ${s.incorrect.length} incorrect trajectories drawn (seed ${SAMPLE_SEED}) from the ${s.available.correct} correct and ${s.available.incorrect} incorrect scored episodes of run ${s.run.manifest.runId} (split ${s.run.manifest.split}); error episodes are never drawn.`),
        'Share (%) of the sampled trajectories the trajectory itself shows the cause for; a trajectory can have several tags. The paper\'s categories need a person: `react-repro report RUNS --label-sheet FILE`, label, then `--labels FILE`.',
      ],
    };
  });
}

/** Table 2 from a person's labels, per benchmark, with the paper's numbers (class A anchors) beside ours. */
export function labelledTables(runs: readonly RunView[], labels: readonly LabelRow[], titleOf: TitleOf): { tables: ReportTable[]; notes: string[] } {
  const byId = new Map(runs.map((r) => [r.manifest.runId, r]));
  const known = labels.filter((l) => byId.has(l.run));
  const notes: string[] = [];
  const unknown = labels.length - known.length;
  if (unknown) notes.push(`${unknown} label row(s) name runs that are not in this report (${[...new Set(labels.filter((l) => !byId.has(l.run)).map((l) => l.run))].slice(0, 5).join(', ')}); they are not counted.`);
  const book = reportAnchors();
  const benchmarks = [...new Set(known.map((l) => byId.get(l.run)!.manifest.task))];
  const tables = benchmarks.map((b) => {
    const rows = known.filter((l) => byId.get(l.run)!.manifest.task === b);
    const labelled = [...new Set(rows.map((l) => l.run))].map((id) => byId.get(id)!);
    const names = groupNames(labelled);
    const methodOfGroup = new Map(labelled.map((r) => [names.get(r.manifest.runId)!, r.manifest.method]));
    const renamed = rows.map((l) => ({ ...l, method: names.get(l.run)! }));
    const paper = (group: string, cat: Category) => book.pick({ benchmark: b, method: methodOfGroup.get(group) ?? group, metric: 'error_share', subset: cat })?.value ?? null;
    // The paper's order (ReAct, then CoT), then any other method.
    const rank = (group: string) => {
      const i = DEFAULT_LABEL_METHODS.indexOf(methodOfGroup.get(group) ?? '');
      return i < 0 ? DEFAULT_LABEL_METHODS.length : i;
    };
    const groups = [...new Set(renamed.map((l) => l.method))].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
    const t = table2FromLabels(renamed, paper, groups);
    const splitNotes = labelled.map((r) => `${names.get(r.manifest.runId)}: run ${r.manifest.runId}, split ${r.manifest.split}, model ${r.manifest.model}.`);
    return {
      ...t,
      id: `table2-${b}`,
      title: `Table 2: error analysis, ${titleOf(b)} (labelled)`,
      notes: [...t.notes.slice(0, -1), ...splitNotes, b === 'hotpotqa' ? "Shares are of the labelled correct (success) or incorrect (failure) trajectories. Paper: Table 2 (PaLM-540B, HotpotQA), Yao et al." : 'Shares are of the labelled correct (success) or incorrect (failure) trajectories. The paper analysed HotpotQA only: no paper column here.'],
    };
  });
  return { tables, notes };
}

