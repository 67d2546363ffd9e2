// Table 2 through the Benchmark hook, on crafted run folders of all four benchmarks: HotpotQA and
// FEVER (which declare an error analysis) are sampled, tagged and labelled, with the paper's shares
// beside ours where published; ALFWorld and WebShop (which declare none) are left out with a note, so a
// WebShop episode with a partial reward is never sampled as correct, and no Wikipedia tag reaches an
// ALFWorld episode in the trajectory browser. A benchmark that opts in decides what is correct.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { benchmarkNames, getBenchmark } from '../../src/benchmarks/registry.js';
import type { Benchmark } from '../../src/benchmarks/types.js';
import { loadRuns } from '../../src/report/load.js';
import { buildReport, type ReportContent } from '../../src/report/build.js';
import { labelSheetRows } from '../../src/report/table2.js';
import { labelsToCsv, parseLabelsCsv, type LabelRow } from '../../src/report/error-tags.js';
import { renderHtml } from '../../src/report/render-html.js';
import { pageData } from '../../src/report/html/render.js';
import { renderMarkdown } from '../../src/report/render-md.js';
import { writeLabelSheet } from '../../src/cli/commands/report.js';
import { UserError } from '../../src/errors.js';
import type { ReportTable } from '../../src/report/model.js';
import { qa, qaRecords, writeRun } from './run-folders.js';
import type { EpisodeRecord } from '../../src/runlog/schema.js';

let tmp: string;
const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);
const benchmarks = (): Benchmark[] => benchmarkNames().map(getBenchmark);

/** An ALFWorld or WebShop episode: the QA record's accounting with the benchmark's metrics and steps. */
function other(idx: number, metrics: Record<string, number>, steps: { action: string; observation: string }[]): EpisodeRecord {
  return {
    ...qa(idx, 'right'),
    item: `item ${idx}`,
    input: `task ${idx}`,
    gold: null,
    answer: null,
    metrics,
    reward: metrics.score ?? metrics.success ?? 0,
    traj: `Interact.\nYour task is to: task ${idx}\n` + steps.map((s) => `> ${s.action}\n${s.observation}\n`).join(''),
    steps: steps.map((s, i) => ({ step: i + 1, ...s })),
    forced_finish: true,
  };
}

// WebShop scores: two full marks, the rest partial rewards (all > 0) or 0.
const SHOP_SCORES = [1, 0.75, 0.5, 1, 0.25, 0, 0.9, 0.1];

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'table2-'));
  const idx = range(0, 12);
  writeRun(tmp, { runId: 'hotpotqa-react-t', method: 'react', indices: idx, records: qaRecords(idx, 'rrrrrrrwwwpe') });
  writeRun(tmp, { runId: 'hotpotqa-cot-t', method: 'cot', indices: idx, records: qaRecords(idx, 'rrrrwwwwwwpp') });
  // Act is not a method the paper analysed: not sampled.
  writeRun(tmp, { runId: 'hotpotqa-act-t', method: 'act', indices: idx, records: qaRecords(idx, 'rrrrrrwwwwww') });
  writeRun(tmp, { runId: 'fever-react-t', task: 'fever', method: 'react', indices: idx, records: qaRecords(idx, 'rrrrrrwwwwww') });
  writeRun(tmp, { runId: 'fever-cot-t', task: 'fever', method: 'cot', indices: idx, records: qaRecords(idx, 'rrrrrrrrwwww') });
  // ALFWorld: an observation that reads like wikienv's, repeated actions, a forced finish flag: none of it is QA's.
  const alf = [0, 1, 2].map((i) =>
    other(i, { success: i === 0 ? 1 : 0 }, [
      { action: 'search[mug]', observation: 'Could not find mug. Similar: [].' },
      { action: 'go to desk 1', observation: 'Nothing happens.' },
      { action: 'go to desk 1', observation: 'Nothing happens.' },
    ]),
  );
  writeRun(tmp, { runId: 'alfworld-react-t', task: 'alfworld', method: 'react', split: 'valid_unseen', indices: [0, 1, 2], records: alf });
  const shop = SHOP_SCORES.map((score, i) =>
    other(i, { score, success: score === 1 ? 1 : 0 }, [{ action: 'search[red shoes]', observation: 'Could not find red shoes.' }]),
  );
  writeRun(tmp, {
    runId: 'webshop-react-t',
    task: 'webshop',
    method: 'react',
    split: 'test500',
    indices: range(0, SHOP_SCORES.length),
    records: shop,
  });
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const load = () => loadRuns([tmp], { warn: () => {} });
const table = (c: ReportContent, id: string): ReportTable | undefined => c.sections.flatMap((s) => s.tables).find((t) => t.id === id);

describe('Table 2 through Benchmark.errorAnalysis', () => {
  it('samples only runs of benchmarks that declare it, of the methods they name; says who is left out', () => {
    const c = buildReport(load(), benchmarks());
    expect(c.samples.map((s) => s.run.manifest.runId).sort()).toEqual([
      'fever-cot-t',
      'fever-react-t',
      'hotpotqa-cot-t',
      'hotpotqa-react-t',
    ]);
    const react = c.samples.find((s) => s.run.manifest.runId === 'hotpotqa-react-t')!;
    // EM = 1 is correct; the partly right answer (idx 10) is incorrect; the error episode (11) is never drawn.
    expect(react.correct.map((r) => r.idx)).toEqual(range(0, 7));
    expect(react.incorrect.map((r) => r.idx)).toEqual([7, 8, 9, 10]);
    const section = c.sections.find((s) => s.id === 'error-analysis')!;
    expect(section.intro).toBe(
      'Not in the error analysis: ALFWorld, WebShop (the benchmark declares none: which episodes count as correct, and the categories to label them with).',
    );
    expect(section.tables.map((t) => t.id)).toEqual(['table2-auto-hotpotqa', 'table2-auto-fever']);
    // The automatic-tag rows are QA's tags; the wrong answers' searches found nothing, the partial one is label ambiguity.
    const auto = table(c, 'table2-auto-hotpotqa')!;
    expect(auto.rows.map((r) => r.label)).toEqual([
      'search found nothing useful',
      'repeated identical actions',
      'no answer within the step limit',
      'label ambiguity (F1 > 0, EM 0)',
    ]);
    expect(auto.rows[0]!.cells['hotpotqa-react-t.inc_n']).toBe('3/4');
    expect(auto.rows[3]!.cells['hotpotqa-react-t.inc_n']).toBe('1/4');
    expect(renderMarkdown(c)).toContain('Not in the error analysis: ALFWorld, WebShop');
  });

  it("--label-methods overrides the benchmark's methods, and still never samples ALFWorld or WebShop", () => {
    const c = buildReport(load(), benchmarks(), { labelMethods: ['act', 'react'] });
    expect(c.samples.map((s) => s.run.manifest.runId).sort()).toEqual(['fever-react-t', 'hotpotqa-act-t', 'hotpotqa-react-t']);
    // Nothing of theirs is analysed: only the note. Asked for, with no QA run, the note goes to the report's notes.
    const onlyOthers = load().filter((r) => r.manifest.task === 'alfworld' || r.manifest.task === 'webshop');
    const o = buildReport(onlyOthers, benchmarks(), { labelMethods: ['react'] });
    expect(o.samples).toEqual([]);
    expect(o.sections.find((s) => s.id === 'error-analysis')).toBeUndefined();
    expect(o.notes).toContain(
      'Not in the error analysis: ALFWorld, WebShop (the benchmark declares none: which episodes count as correct, and the categories to label them with).',
    );
  });

  it("labels → Table 2 for HotpotQA with the paper's shares beside ours, and for FEVER without a paper column", () => {
    const first = buildReport(load(), benchmarks());
    const sheet = labelSheetRows(first.samples);
    const lab = (r: LabelRow): LabelRow => ({
      ...r,
      label:
        r.outcome === 'correct'
          ? r.idx === 0
            ? 'success_false_positive'
            : 'success_true_positive'
          : r.idx === 10
            ? 'failure_label_ambiguity'
            : r.method === 'cot'
              ? 'failure_hallucination'
              : 'failure_search_result_error',
    });
    // WebShop label rows (a person's mistake) are not counted, with a note.
    const stray: LabelRow = {
      run: 'webshop-react-t',
      method: 'react',
      idx: 1,
      outcome: 'correct',
      label: 'success_true_positive',
      auto_tags: [],
      note: '',
    };
    const labels = parseLabelsCsv(labelsToCsv([...sheet.map(lab), stray], { sheet: true }), 'labels.csv');
    const c = buildReport(load(), benchmarks(), { labels });
    expect(c.notes).toContain('1 label row(s) name runs of WebShop, which declares no error analysis; they are not counted.');
    const hp = table(c, 'table2-hotpotqa')!;
    expect(hp.columns.map((x) => `${x.group} ${x.label}`)).toEqual([
      'ReAct Ours',
      'ReAct n',
      'ReAct Paper',
      'CoT Ours',
      'CoT n',
      'CoT Paper',
    ]);
    const row = (t: ReportTable, label: string) => t.rows.find((r) => r.label.startsWith(label))!.cells;
    // ReAct: 7 correct (idx 0 a false positive), 4 incorrect (idx 10 label ambiguity); CoT: 4 correct, 8 incorrect (idx 10 label ambiguity).
    expect(row(hp, 'Success: true positive')).toEqual({
      ReAct_ours: 85.7,
      ReAct_n: '6/7',
      ReAct_paper: 94,
      CoT_ours: 75,
      CoT_n: '3/4',
      CoT_paper: 86,
    });
    // CoT never searches: its search result error is empty in ours as in the paper (not 0.0 of 8).
    expect(row(hp, 'Failure: search result error')).toEqual({
      ReAct_ours: 75,
      ReAct_n: '3/4',
      ReAct_paper: 23,
      CoT_ours: null,
      CoT_n: null,
      CoT_paper: null,
    });
    expect(row(hp, 'Failure: hallucination')).toMatchObject({ ReAct_n: '0/4', CoT_ours: 87.5, CoT_n: '7/8', CoT_paper: 56 });
    expect(row(hp, 'Failure: label ambiguity')).toMatchObject({ ReAct_ours: 25, ReAct_paper: 29, CoT_n: '1/8', CoT_paper: 28 });
    expect(hp.notes.at(-1)).toMatch(/^Paper: Table 2, Yao et al\., ReAct .*\(PaLM-540B\)\.$/);
    const fv = table(c, 'table2-fever')!;
    expect(fv.columns.map((x) => x.label)).toEqual(['Ours', 'n', 'Ours', 'n']);
    expect(row(fv, 'Success: true positive')).toEqual({ ReAct_ours: 83.3, ReAct_n: '5/6', CoT_ours: 87.5, CoT_n: '7/8' });
    expect(fv.notes.at(-1)).toBe('The anchors file has no published Table 2 shares for FEVER: no paper column.');
    // The order of the section: the labelled tables first, then the automatic tags.
    expect(c.sections.find((s) => s.id === 'error-analysis')!.tables.map((t) => t.id)).toEqual([
      'table2-hotpotqa',
      'table2-fever',
      'table2-auto-hotpotqa',
      'table2-auto-fever',
    ]);
  });

  it('the label sheet: QA runs sampled, ALFWorld and WebShop named as not analysed; nothing to sample is a one-line error', () => {
    const file = path.join(tmp, 'sheet.csv');
    // 7 + 4 (HotpotQA ReAct) + 4 + 8 (CoT) + 6 + 6 (FEVER ReAct) + 8 + 4 (FEVER CoT).
    expect(writeLabelSheet(load(), file, undefined)).toBe(
      `wrote 47 trajectories of 4 run(s) to ${file}; runs of ALFWorld, WebShop are not analysed (the benchmark declares no error analysis): fill each row's label with one of its label_choices (success_true_positive, success_false_positive, failure_reasoning_error, failure_search_result_error, failure_hallucination, failure_label_ambiguity; success_* for a correct trajectory, failure_* for an incorrect one; README "Reports"), or label them in the HTML report's "Label Table 2" section, then \`react-repro report ... --labels ${file}\``,
    );
    const rows = parseLabelsCsv(fs.readFileSync(file, 'utf8'), file);
    expect(new Set(rows.map((r) => r.run))).toEqual(new Set(['hotpotqa-react-t', 'hotpotqa-cot-t', 'fever-react-t', 'fever-cot-t']));
    const onlyOthers = load().filter((r) => r.manifest.task === 'alfworld' || r.manifest.task === 'webshop');
    const other = path.join(tmp, 'other.csv');
    expect(() => writeLabelSheet(onlyOthers, other, undefined)).toThrow(UserError);
    expect(() => writeLabelSheet(onlyOthers, other, undefined)).toThrow(
      '--label-sheet: none of the runs is of a method its benchmark analyses (see --label-methods); runs of ALFWorld, WebShop are not analysed (the benchmark declares no error analysis)',
    );
    expect(fs.existsSync(other)).toBe(false);
  });

  it("a label that is not one of the benchmark's categories names the file and line", () => {
    const sheet = labelSheetRows(buildReport(load(), benchmarks()).samples);
    const bad = sheet.map((r, i) => (i === 2 ? { ...r, label: 'success_lucky_guess' } : r));
    const labels = parseLabelsCsv(labelsToCsv(bad, { sheet: true }), 'labels.csv');
    expect(() => buildReport(load(), benchmarks(), { labels })).toThrow(
      /^labels\.csv:\d+: label: expected one of success_true_positive, .* \(HotpotQA\) or empty, got "success_lucky_guess"$/,
    );
  });

  it("a category that does not apply to the row's method (a search result error on CoT) is neither offered nor accepted", () => {
    const sheet = labelSheetRows(buildReport(load(), benchmarks()).samples);
    const choices = (run: string) => new Set(sheet.filter((r) => r.run === run && r.outcome === 'incorrect').map((r) => r.label_choices));
    for (const run of ['hotpotqa-react-t', 'fever-react-t'])
      expect(choices(run)).toEqual(
        new Set(['failure_reasoning_error | failure_search_result_error | failure_hallucination | failure_label_ambiguity']),
      );
    for (const run of ['hotpotqa-cot-t', 'fever-cot-t'])
      expect(choices(run)).toEqual(new Set(['failure_reasoning_error | failure_hallucination | failure_label_ambiguity']));
    const at = sheet.findIndex((r) => r.run === 'fever-cot-t' && r.outcome === 'incorrect');
    const bad = sheet.map((r, i) => (i === at ? { ...r, label: 'failure_search_result_error' } : r));
    const labels = parseLabelsCsv(labelsToCsv(bad, { sheet: true }), 'labels.csv');
    expect(() => buildReport(load(), benchmarks(), { labels })).toThrow(UserError);
    expect(() => buildReport(load(), benchmarks(), { labels })).toThrow(
      `${labels[at].at}: label: failure_search_result_error does not apply to CoT trajectories (run fever-cot-t, idx ${sheet[at].idx}; expected one of failure_reasoning_error, failure_hallucination, failure_label_ambiguity, or empty)`,
    );
    // The run's method decides, not the sheet's method column (which a person may have edited).
    const relabelled = parseLabelsCsv(
      labelsToCsv(
        bad.map((r, i) => (i === at ? { ...r, method: 'react' } : r)),
        { sheet: true },
      ),
      'labels.csv',
    );
    expect(() => buildReport(load(), benchmarks(), { labels: relabelled })).toThrow(
      /does not apply to CoT trajectories \(run fever-cot-t,/,
    );
  });

  it('a benchmark that opts in says what is correct: WebShop with "full marks" samples only score 1 as correct', () => {
    const shopTags = { key: 'no-buy', label: 'never bought' };
    const withHook = benchmarks().map((b): Benchmark =>
      b.name !== 'webshop'
        ? b
        : {
            ...b,
            isCorrect: (e) => e.metrics.score === 1,
            errorAnalysis: {
              methods: ['react'],
              categories: [
                { key: 'success_bought', label: 'Success' },
                { key: 'failure_wrong_item', label: 'Failure: wrong item' },
              ],
              tags: [shopTags],
              autoTags: (e) => (e.steps.some((s) => s.action.startsWith('click[buy')) ? [] : ['no-buy']),
            },
          },
    );
    const c = buildReport(load(), withHook);
    const shop = c.samples.find((s) => s.run.manifest.task === 'webshop')!;
    expect(shop.correct.map((r) => r.idx)).toEqual([0, 3]);
    expect(shop.incorrect.map((r) => r.idx)).toEqual([1, 2, 4, 5, 6, 7]);
    expect(table(c, 'table2-auto-webshop')!.rows.map((r) => [r.label, r.cells['webshop-react-t.inc_n']])).toEqual([
      ['never bought', '6/6'],
    ]);
    expect(c.sections.find((s) => s.id === 'error-analysis')!.intro).toBe(
      'Not in the error analysis: ALFWorld (the benchmark declares none: which episodes count as correct, and the categories to label them with).',
    );
  });
});

describe("trajectory browser: outcome and tags from the record's benchmark", () => {
  const browser = (c: ReportContent) => {
    const html = renderHtml(c);
    return pageData(html) as {
      runs: { id: string }[];
      episodes: { run: number; idx: number; outcome: string; tags: string[] }[];
    };
  };

  it('QA episodes carry QA tags; ALFWorld episodes none of them; a partial WebShop reward is not "correct"', () => {
    const d = browser(buildReport(load(), benchmarks()));
    const of = (id: string) => d.episodes.filter((e) => d.runs[e.run]!.id === id);
    expect(of('hotpotqa-react-t').find((e) => e.idx === 7)).toMatchObject({ outcome: 'incorrect', tags: ['search-not-found'] });
    expect(of('hotpotqa-react-t').find((e) => e.idx === 10)).toMatchObject({ outcome: 'incorrect', tags: ['label-ambiguity'] });
    expect(of('hotpotqa-react-t').find((e) => e.idx === 11)).toMatchObject({ outcome: 'error', tags: [] });
    for (const e of of('alfworld-react-t')) expect(e.tags).toEqual([]);
    expect(of('alfworld-react-t').map((e) => e.outcome)).toEqual(['correct', 'incorrect', 'incorrect']);
    for (const e of of('webshop-react-t')) expect(e.tags).toEqual([]);
    expect(of('webshop-react-t').map((e) => e.outcome)).toEqual(SHOP_SCORES.map((s) => (s === 1 ? 'correct' : 'incorrect')));
  });
});
