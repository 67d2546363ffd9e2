// Table 2 pieces on crafted trajectories: automatic tags, the seeded 50 + 50 sample, the labels CSV
// round trip, and the table rebuilt from labels beside the paper's numbers.
import { describe, expect, it } from 'vitest';
import {
  autoTags, labelsToCsv, parseLabelsCsv, sampleForAnalysis, seededShuffle, table2FromLabels, type LabelRow, type TaggableRecord,
} from '../../src/report/error-tags.js';
import { classAAnchors, loadAnchors } from '../../src/report/anchors.js';
import { UserError } from '../../src/errors.js';

const rec = (over: Partial<TaggableRecord> & { steps?: { action: string; observation: string }[] }): TaggableRecord => ({
  idx: 0, metrics: { em: 0, f1: 0 }, steps: [], error: null, ...over,
});
const step = (action: string, observation: string) => ({ action, observation });

describe('autoTags', () => {
  it('search found nothing useful: every search observed "Could not find"', () => {
    const r = rec({
      steps: [
        step('search[Colorado orogeny eastern sector]', "Could not find Colorado orogeny eastern sector. Similar: ['Colorado orogeny']."),
        step('lookup[eastern]', 'No more results.\n'),
        step('search[High Plains elevation]', 'Could not find High Plains elevation. Similar: [].'),
        step('finish[unknown]', 'Episode finished, reward = 0\n'),
      ],
    });
    expect(autoTags(r)).toEqual(['search-not-found']);
    // One useful search is enough to clear it; no search at all never sets it.
    expect(autoTags(rec({ steps: [step('search[A]', 'Could not find A.'), step('search[B]', 'B is a letter.')] }))).toEqual([]);
    expect(autoTags(rec({ steps: [step('finish[yes]', 'Episode finished, reward = 0\n')] }))).toEqual([]);
  });

  it('repeated identical actions: twice in a row or three times in all', () => {
    expect(autoTags(rec({ steps: [step('search[X]', 'x'), step('Search[X] ', 'x')] }))).toEqual(['repeated-action']);
    expect(autoTags(rec({ steps: [step('go to desk 1', 'a'), step('go to shelf 1', 'b'), step('go to desk 1', 'a'), step('look', 'c'), step('go to desk 1', 'a')] }))).toEqual(['repeated-action']);
    expect(autoTags(rec({ steps: [step('go to desk 1', 'a'), step('go to shelf 1', 'b'), step('go to desk 1', 'a')] }))).toEqual([]);
  });

  it('no answer within the step limit, and label ambiguity (F1 > 0, EM 0)', () => {
    expect(autoTags(rec({ forced_finish: true }))).toEqual(['step-limit']);
    expect(autoTags(rec({ forced_finish: false }))).toEqual([]);
    expect(autoTags(rec({ metrics: { em: 0, f1: 0.5 } }))).toEqual(['label-ambiguity']);
    expect(autoTags(rec({ metrics: { em: 1, f1: 1 } }))).toEqual([]);
    expect(autoTags(rec({ metrics: { success: 0 } }))).toEqual([]);
    const all = rec({
      metrics: { em: 0, f1: 0.4 }, forced_finish: true,
      steps: [step('search[A]', 'Could not find A.'), step('search[A]', 'Could not find A.')],
    });
    expect(autoTags(all)).toEqual(['search-not-found', 'repeated-action', 'step-limit', 'label-ambiguity']);
  });
});

describe('sampleForAnalysis', () => {
  const records = Array.from({ length: 300 }, (_, i) => rec({ idx: i, metrics: { em: i % 3 === 0 ? 1 : 0, f1: 0 }, error: i % 50 === 7 ? { source: 'llm', message: 'x' } : null }));

  it('draws 50 correct and 50 incorrect, seeded, in item order, never an error episode', () => {
    const s = sampleForAnalysis(records, { primary: 'em' });
    expect(s.correct).toHaveLength(50);
    expect(s.incorrect).toHaveLength(50);
    expect(s.available).toEqual({ correct: 98, incorrect: 196 }); // 2 of the 6 error episodes had em 1
    expect(s.correct.every((r) => r.metrics.em === 1 && !r.error)).toBe(true);
    expect(s.incorrect.every((r) => r.metrics.em === 0 && !r.error)).toBe(true);
    expect(s.correct.map((r) => r.idx)).toEqual([...s.correct.map((r) => r.idx)].sort((a, b) => a - b));
    expect(sampleForAnalysis(records, { primary: 'em' })).toEqual(s);
    expect(sampleForAnalysis(records, { primary: 'em', seed: 1 }).correct.map((r) => r.idx)).not.toEqual(s.correct.map((r) => r.idx));
    // Fewer than 50 available: all of them.
    expect(sampleForAnalysis(records.slice(0, 30), { primary: 'em' }).correct).toHaveLength(10);
  });

  it('seededShuffle is a permutation', () => {
    const xs = Array.from({ length: 100 }, (_, i) => i);
    const sh = seededShuffle(xs, 42);
    expect([...sh].sort((a, b) => a - b)).toEqual(xs);
    expect(sh).not.toEqual(xs);
  });
});

describe('labels CSV', () => {
  const rows: LabelRow[] = [
    { run: 'react-hotpotqa-aaaa', method: 'react', idx: 3687, outcome: 'correct', label: 'success_true_positive', auto_tags: [], note: '' },
    { run: 'react-hotpotqa-aaaa', method: 'react', idx: 6238, outcome: 'incorrect', label: 'failure_search_result_error', auto_tags: ['search-not-found', 'step-limit'], note: 'searched "Arthur\'s", got nothing,\nthen gave up' },
    { run: 'cot-hotpotqa-bbbb', method: 'cot', idx: 5388, outcome: 'incorrect', label: '', auto_tags: ['label-ambiguity'], note: '' },
  ];

  it('round-trips, quotes, commas and newlines included', () => {
    const csv = labelsToCsv(rows);
    expect(csv.split('\n')[0]).toBe('run,method,idx,outcome,label,auto_tags,note');
    expect(parseLabelsCsv(csv, 'labels.csv')).toEqual(rows);
    // A spreadsheet's CRLF line ends and BOM read the same.
    expect(parseLabelsCsv('\ufeff' + csv.replace(/\n(?=react-|cot-|$)/g, '\r\n'), 'labels.csv')).toEqual(rows);
  });

  it('says which line and field is wrong', () => {
    const csv = labelsToCsv(rows);
    expect(() => parseLabelsCsv(csv.replace('failure_search_result_error', 'failure_typo'), 'labels.csv')).toThrow(UserError);
    expect(() => parseLabelsCsv(csv.replace('failure_search_result_error', 'failure_typo'), 'labels.csv')).toThrow(/^labels\.csv:3: label: expected one of/);
    expect(() => parseLabelsCsv(csv.replace('success_true_positive', 'failure_hallucination'), 'labels.csv')).toThrow('labels.csv:2: label: failure_hallucination does not fit a correct trajectory');
    expect(() => parseLabelsCsv(csv.replace(',3687,', ',x1,'), 'labels.csv')).toThrow('labels.csv:2: idx: expected a non-negative integer, got "x1"');
    expect(() => parseLabelsCsv('run,method\n', 'labels.csv')).toThrow('labels.csv:1: expected the header');
    expect(() => parseLabelsCsv(`${csv}a,b,1,correct,,"open`, 'labels.csv')).toThrow(/a quoted field is not closed/);
  });
});

describe('table2FromLabels', () => {
  it('counts labelled shares per method beside the paper\'s Table 2', () => {
    const anchors = loadAnchors();
    const paper = (method: string, cat: string) =>
      classAAnchors(anchors, { benchmark: 'hotpotqa', method, metric: 'error_share', subset: cat })[0]?.value ?? null;
    const mk = (method: string, outcome: 'correct' | 'incorrect', label: LabelRow['label'], n: number): LabelRow[] =>
      Array.from({ length: n }, (_, i) => ({ run: `r-${method}`, method, idx: i, outcome, label, auto_tags: [], note: '' }));
    const rows = [
      ...mk('react', 'correct', 'success_true_positive', 47), ...mk('react', 'correct', 'success_false_positive', 3),
      ...mk('react', 'incorrect', 'failure_reasoning_error', 20), ...mk('react', 'incorrect', 'failure_search_result_error', 12),
      ...mk('react', 'incorrect', 'failure_label_ambiguity', 15), ...mk('react', 'incorrect', '', 3),
      ...mk('cot', 'correct', 'success_true_positive', 1),
    ];
    const t = table2FromLabels(rows, paper, ['react', 'cot']);
    const row = (label: string) => t.rows.find((r) => r.label.startsWith(label))!.cells;
    expect(row('Success: true positive')).toMatchObject({ react_ours: 94, react_n: '47/50', react_paper: 94, cot_ours: 100, cot_n: '1/1', cot_paper: 86 });
    expect(row('Failure: reasoning error')).toMatchObject({ react_ours: 42.6, react_n: '20/47', react_paper: 47 });
    expect(row('Failure: search result error')).toMatchObject({ react_ours: 25.5, cot_ours: null, cot_n: '0/0', cot_paper: null });
    expect(row('Failure: hallucination')).toMatchObject({ react_ours: 0, react_paper: 0, cot_paper: 56 });
    expect(t.notes[0]).toBe('react: 97 of 100 sampled trajectories labelled (50 correct, 50 incorrect).');
  });
});
