// Table 2 (error analysis, paper §3.3) in the report: the seeded sample of 50 correct and 50
// incorrect trajectories per run, their automatic tags, the sheet a person labels
// (`report --label-sheet FILE`), and the table rebuilt from those labels (`report --labels FILE`)
// with the published shares beside ours. The categories, the tags and the methods the paper analysed
// are each benchmark's (Benchmark.errorAnalysis; a benchmark without that hook is left out with a
// note), and what is correct is its rule (correct.ts). The generic pieces are in error-tags.ts; this
// joins them to runs.
import type { Benchmark, ErrorAnalysis } from '../benchmarks/types.js';
import type { AnalysisLabel, EpisodeRecord } from '../runlog/schema.js';
import { fullRecords, type ReportRow, type ReportTable, type RunView } from './model.js';
import { checkLabels, labelChoices, outcomeOfCategory, sampleForAnalysis, table2FromLabels, type LabelRow } from './error-tags.js';
import { runPrompt } from './html/episodes.js';
import { anchorCitation, anchorProvenance, reportAnchors, type Anchor } from './anchors.js';
import type { MethodLabelOf, TitleOf } from './names.js';
import { percent } from '../util/numbers.js';
import { UserError } from '../errors.js';
import type { EpisodeCorrect } from './correct.js';

/** Same seed as the paper's question sample (docs/protocol.md §2), so the draw is easy to recognise and repeat. */
export const SAMPLE_SEED = 233;
const PER_CLASS = 50;

/** A benchmark's error-analysis hook by its name (undefined: the benchmark declares none, or is unknown). */
export type AnalysisLookup = (benchmark: string) => ErrorAnalysis | undefined;

export function analysisLookup(benchmarks: readonly Benchmark[]): AnalysisLookup {
  const byName = new Map(benchmarks.map((b) => [b.name, b.errorAnalysis]));
  return (name) => byName.get(name);
}

/** The categories that apply to a method's trajectories: the benchmark's categoriesOf, else all of them. */
export function categoriesFor(analysis: ErrorAnalysis, method: string): readonly AnalysisLabel[] {
  return analysis.categoriesOf?.(method) ?? analysis.categories;
}

/**
 * UserError for the first label that is a category of the benchmark but not one that applies to its
 * run's method (a search result error on a CoT trajectory, which never searches), naming the file and
 * line, the run and item, the label and the categories that do apply (the method as `labelOf` writes it).
 */
export function checkLabelsFitMethods(
  rows: readonly LabelRow[],
  analysis: ErrorAnalysis,
  methodOf: (run: string) => string,
  labelOf: (method: string) => string,
): void {
  for (const r of rows) {
    if (r.label === '') continue;
    const method = methodOf(r.run);
    const fit = categoriesFor(analysis, method).map((c) => c.key);
    if (fit.includes(r.label)) continue;
    const side = fit.filter((k) => outcomeOfCategory(k) === outcomeOfCategory(r.label));
    throw new UserError(
      `${r.at ?? 'the labels'}: label: ${r.label} does not apply to ${labelOf(method)} trajectories (run ${r.run}, idx ${r.idx}; expected one of ${side.join(', ')}, or empty)`,
    );
  }
}

/** The automatic tags of a scored record, from its benchmark's hook ([] without one). */
export function episodeTags(analysisOf: AnalysisLookup, run: RunView, r: EpisodeRecord): string[] {
  return r.error ? [] : (analysisOf(run.manifest.task)?.autoTags(r) ?? []);
}

/**
 * Runs Table 2 samples: episodes of their own (not a combination) of a benchmark with an error
 * analysis, of the methods given (`--label-methods`) or else the benchmark's own.
 */
export function analysedRuns(runs: readonly RunView[], analysisOf: AnalysisLookup, methods?: readonly string[]): RunView[] {
  return runs.filter((r) => {
    const a = analysisOf(r.manifest.task);
    return a !== undefined && r.manifest.kind !== 'combination' && (methods ?? a.methods).includes(r.manifest.method);
  });
}

/** The benchmarks of these runs that declare no error analysis (their runs are never sampled). */
export function unanalysedBenchmarks(runs: readonly RunView[], analysisOf: AnalysisLookup): string[] {
  return [...new Set(runs.filter((r) => r.manifest.kind !== 'combination' && !analysisOf(r.manifest.task)).map((r) => r.manifest.task))];
}

/** The sentence that says so. */
export function unanalysedNote(benchmarks: readonly string[], titleOf: TitleOf): string {
  return `Not in the error analysis: ${benchmarks.map(titleOf).join(', ')} (the benchmark declares none: which episodes count as correct, and the categories to label them with).`;
}

export interface RunSample {
  run: RunView;
  analysis: ErrorAnalysis;
  /**
   * The sampled full records. A slim run's are read back from its file on each access (the sample
   * holds only the records kept in memory anyway): read them once where they are used.
   */
  readonly correct: EpisodeRecord[];
  readonly incorrect: EpisodeRecord[];
  available: { correct: number; incorrect: number };
}

/** Table 2's sample of each analysed run, correct and incorrect as `isCorrect` (correct.ts) says. */
export function sampleRuns(
  runs: readonly RunView[],
  analysisOf: AnalysisLookup,
  isCorrect: EpisodeCorrect,
  methods?: readonly string[],
): RunSample[] {
  return analysedRuns(runs, analysisOf, methods).map((run) => {
    const analysis = analysisOf(run.manifest.task)!;
    const s = sampleForAnalysis(run.records, { isCorrect: (r) => isCorrect(run, r), seed: SAMPLE_SEED, perClass: PER_CLASS });
    if (!run.source) return { run, analysis, ...s };
    // The sample is drawn on the records as kept (slim ones carry the scores); its tags and the sheet
    // read the full ones, back from the file when asked: a report of many runs never holds them all.
    const { correct, incorrect, available } = s;
    return {
      run,
      analysis,
      available,
      get correct() {
        return [...fullRecords(run, correct)];
      },
      get incorrect() {
        return [...fullRecords(run, incorrect)];
      },
    };
  });
}

/**
 * The rows of the label sheet: every sampled trajectory with its automatic tags and an empty label.
 * Without `trajectory` (the page's labelling data, whose trajectories are the browser's) the rows
 * have no trajectory, and no run's file is read for its prompt.
 */
export function labelSheetRows(samples: readonly RunSample[], opts: { trajectory?: boolean } = {}): LabelRow[] {
  const rows: LabelRow[] = [];
  const withTrajectory = opts.trajectory ?? true;
  for (const s of samples) {
    const prompt = withTrajectory ? runPrompt(fullRecords(s.run)) : '';
    // One string per outcome for the sample's rows, not one per row: the page holds every row to its end.
    // Only the categories of the run's method (no search result error for CoT, which never searches).
    const categories = categoriesFor(s.analysis, s.run.manifest.method);
    const choices = {
      correct: labelChoices(categories, 'correct'),
      incorrect: labelChoices(categories, 'incorrect'),
    };
    for (const [outcome, recs] of [
      ['correct', s.correct],
      ['incorrect', s.incorrect],
    ] as const) {
      for (const r of recs) {
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
          auto_tags: s.analysis.autoTags(r),
          ...(withTrajectory ? { trajectory: traj.startsWith(prompt) ? traj.slice(prompt.length) : traj } : {}),
          label_choices: choices[outcome],
          label: '',
          note: '',
        });
      }
    }
  }
  return rows;
}

/** How a run is named in Table 2's column groups: the method, and the model when a method has runs of several. */
function groupNames(runs: readonly RunView[], methodLabel: MethodLabelOf): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of runs) {
    const same = runs.filter((x) => x.manifest.task === r.manifest.task && x.manifest.method === r.manifest.method);
    const models = new Set(same.map((x) => x.manifest.model));
    let name = methodLabel(r.manifest.task, r.manifest.method);
    if (models.size > 1) name += ` (${r.manifest.model})`;
    if (same.filter((x) => x.manifest.model === r.manifest.model).length > 1) name += ` (${r.variant ?? r.manifest.runId.slice(-8)})`;
    out.set(r.manifest.runId, name);
  }
  return out;
}

/**
 * The automatic tags of the sampled trajectories: per run, the share of its sampled incorrect (and
 * correct) ones with each of its benchmark's tags. A benchmark that declares no tags has no such table.
 */
export function autoTagTables(samples: readonly RunSample[], titleOf: TitleOf, methodLabel: MethodLabelOf): ReportTable[] {
  const benchmarks = [...new Set(samples.map((s) => s.run.manifest.task))];
  return benchmarks.flatMap((b) => {
    const mine = samples.filter((s) => s.run.manifest.task === b);
    const tags = mine[0].analysis.tags;
    if (tags.length === 0) return [];
    const names = groupNames(
      mine.map((s) => s.run),
      methodLabel,
    );
    const columns = mine.flatMap((s) => {
      const g = names.get(s.run.manifest.runId)!;
      return [
        { key: `${s.run.manifest.runId}.inc`, label: 'Incorrect', group: g, numeric: true },
        { key: `${s.run.manifest.runId}.inc_n`, label: 'n', group: g },
        { key: `${s.run.manifest.runId}.cor`, label: 'Correct', group: g, numeric: true },
        { key: `${s.run.manifest.runId}.cor_n`, label: 'n', group: g },
      ];
    });
    // Each sampled record's tags once, not once per row: all the rows show of a sample.
    const tagSets = (s: RunSample, xs: EpisodeRecord[]) => xs.map((r) => new Set(s.analysis.autoTags(r)));
    const tagged = mine.map((s) => ({ s, incorrect: tagSets(s, s.incorrect), correct: tagSets(s, s.correct) }));
    const rows: ReportRow[] = tags.map(({ key: tag, label }) => {
      const cells: ReportRow['cells'] = {};
      const cellSources: NonNullable<ReportRow['cellSources']> = {};
      for (const { s, incorrect, correct } of tagged) {
        const id = s.run.manifest.runId;
        const k = (xs: Set<string>[]) => xs.filter((t) => t.has(tag)).length;
        cells[`${id}.inc`] = percent(k(incorrect), incorrect.length);
        cells[`${id}.inc_n`] = `${k(incorrect)}/${incorrect.length}`;
        cells[`${id}.cor`] = percent(k(correct), correct.length);
        cells[`${id}.cor_n`] = `${k(correct)}/${correct.length}`;
        for (const c of ['inc', 'inc_n', 'cor', 'cor_n']) cellSources[`${id}.${c}`] = { source: 'ours', ref: id };
      }
      return { label, source: 'ours', cells, cellSources };
    });
    return [
      {
        id: `table2-auto-${b}`,
        title: `Table 2 (automatic tags): ${titleOf(b)}`,
        columns,
        rows,
        notes: [
          ...tagged.map(
            ({ s, correct, incorrect }) =>
              `${names.get(s.run.manifest.runId)}: ${correct.length} correct and ${incorrect.length} incorrect trajectories drawn (seed ${SAMPLE_SEED}) from the ${s.available.correct} correct and ${s.available.incorrect} incorrect scored episodes of run ${s.run.manifest.runId} (split ${s.run.manifest.split}); error episodes are never drawn.`,
          ),
          'Share (%) of the sampled trajectories the trajectory itself shows the cause for; a trajectory can have several tags. The categories need a person: `react-repro report RUNS --label-sheet FILE`, label, then `--labels FILE`.',
        ],
      },
    ];
  });
}

/**
 * Table 2 from a person's labels, per benchmark, with the published shares (class-A anchors with metric
 * "error_share" and the category as subset) beside ours; no paper column where the anchors have none.
 */
export function labelledTables(
  runs: readonly RunView[],
  labels: readonly LabelRow[],
  analysisOf: AnalysisLookup,
  titleOf: TitleOf,
  methodLabel: MethodLabelOf,
): { tables: ReportTable[]; notes: string[] } {
  const byId = new Map(runs.map((r) => [r.manifest.runId, r]));
  const notes: string[] = [];
  // A run the report does not have is a typo or a sheet of other runs: refused, not silently dropped.
  const unknown = labels.find((l) => !byId.has(l.run));
  if (unknown) {
    throw new UserError(
      `${unknown.at ?? 'the labels'}: run ${JSON.stringify(unknown.run)} is not one of the runs of this report: report the folder that holds it, or remove its rows`,
    );
  }
  const present = labels.filter((l) => byId.has(l.run));
  const unanalysed = present.filter((l) => !analysisOf(byId.get(l.run)!.manifest.task));
  if (unanalysed.length)
    notes.push(
      `${unanalysed.length} label row(s) name runs of ${[...new Set(unanalysed.map((l) => titleOf(byId.get(l.run)!.manifest.task)))].join(', ')}, which declares no error analysis; they are not counted.`,
    );
  const known = present.filter((l) => analysisOf(byId.get(l.run)!.manifest.task));
  const book = reportAnchors();
  const benchmarks = [...new Set(known.map((l) => byId.get(l.run)!.manifest.task))];
  const tables = benchmarks.map((b) => {
    const analysis = analysisOf(b)!;
    const rows = known.filter((l) => byId.get(l.run)!.manifest.task === b);
    checkLabels(rows, analysis.categories, titleOf(b));
    checkLabelsFitMethods(
      rows,
      analysis,
      (run) => byId.get(run)!.manifest.method,
      (method) => methodLabel(b, method),
    );
    const labelled = [...new Set(rows.map((l) => l.run))].map((id) => byId.get(id)!);
    const names = groupNames(labelled, methodLabel);
    const methodOfGroup = new Map(labelled.map((r) => [names.get(r.manifest.runId)!, r.manifest.method]));
    const renamed = rows.map((l) => ({ ...l, method: names.get(l.run)! }));
    // The benchmark's order of methods (the paper's: ReAct, then CoT), then any other method.
    const rank = (group: string) => {
      const i = analysis.methods.indexOf(methodOfGroup.get(group) ?? '');
      return i < 0 ? analysis.methods.length : i;
    };
    const groups = [...new Set(renamed.map((l) => l.method))].sort((x, y) => rank(x) - rank(y) || x.localeCompare(y));
    const query = (group: string, category: string) => ({
      benchmark: b,
      method: methodOfGroup.get(group) ?? group,
      metric: 'error_share',
      subset: category,
    });
    const published = groups.some((g) => analysis.categories.some((c) => book.candidates(query(g, c.key)).length > 0));
    const shown: Anchor[] = [];
    const paper = (group: string, category: string) => {
      const a = book.pick(query(group, category));
      if (a) shown.push(a);
      return a?.value ?? null;
    };
    const t = table2FromLabels(renamed, analysis.categories, published ? paper : null, groups);
    // A category that does not apply to a method (CoT's search result error) has no share of ours: "—", as the paper's cell.
    const runOfGroup = new Map(labelled.map((r) => [names.get(r.manifest.runId)!, r.manifest.runId]));
    t.rows.forEach((row, i) => {
      // Each group's cells of ours name their run (the CSV's source_ref; the limit notes the table carries).
      for (const g of groups) {
        const ref = runOfGroup.get(g);
        if (ref) row.cellSources = { ...row.cellSources, [`${g}_ours`]: { source: 'ours', ref }, [`${g}_n`]: { source: 'ours', ref } };
        // The paper's column holds the paper's figure, never a number of ours.
        if (published) {
          const a = book.pick(query(g, analysis.categories[i].key));
          row.cellSources = { ...row.cellSources, [`${g}_paper`]: a ? anchorProvenance(a) : { source: 'paper' } };
        }
      }
      for (const g of groups) {
        if (categoriesFor(analysis, methodOfGroup.get(g) ?? g).some((c) => c.key === analysis.categories[i].key)) continue;
        row.cells[`${g}_ours`] = null;
        row.cells[`${g}_n`] = null;
      }
    });
    const splitNotes = labelled.map(
      (r) => `${names.get(r.manifest.runId)}: run ${r.manifest.runId}, split ${r.manifest.split}, model ${r.manifest.model}.`,
    );
    const citations = [...new Set(shown.map((a) => `${anchorCitation(a)} (${a.model})`))];
    const paperNote = published
      ? `Paper: ${citations.join('; ')}.`
      : `The anchors file has no published Table 2 shares for ${titleOf(b)}: no paper column.`;
    return {
      ...t,
      id: `table2-${b}`,
      title: `Table 2: error analysis, ${titleOf(b)} (labelled)`,
      notes: [...t.notes.slice(0, -1), ...splitNotes, t.notes.at(-1)!, paperNote],
    };
  });
  return { tables, notes };
}
