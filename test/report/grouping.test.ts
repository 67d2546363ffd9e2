// The grouping rules on crafted run folders (README "Reports"): a cell holds one comparable set of episodes
// (benchmark, split, item set, model); a merge supersedes its shards; reruns of one run id count once;
// methods are compared on the items scored in all of them (and the tables say so, with split and n).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { benchmarkNames, getBenchmark } from '../../src/benchmarks/registry.js';
import { buildReport } from '../../src/report/build.js';
import { loadRuns } from '../../src/report/load.js';
import { effectiveSettings, groupRuns } from '../../src/report/grouping.js';
import { renderMarkdown } from '../../src/report/render-md.js';
import { qaRecords, writeRun } from './run-folders.js';

const roots: string[] = [];
afterAll(() => roots.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function root(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'report-grouping-'));
  roots.push(d);
  return d;
}
const benchmarks = () => benchmarkNames().map(getBenchmark);
const quiet = { warn: () => {} };
const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);

describe('grouping', () => {
  it('two splits and two benchmarks are separate comparable sets, each stating its split and n', () => {
    const dir = root();
    writeRun(dir, {
      runId: 'h-react',
      method: 'react',
      split: 'offline500',
      indices: range(0, 10),
      records: qaRecords(range(0, 10), 'rrrrrrrwww'),
    });
    writeRun(dir, {
      runId: 'h-cot',
      method: 'cot',
      split: 'offline500',
      indices: range(0, 10),
      records: qaRecords(range(0, 10), 'rrrrrwwwww'),
    });
    writeRun(dir, {
      runId: 'f-react',
      task: 'fever',
      method: 'react',
      split: 'react500',
      indices: [100, 101, 102],
      records: qaRecords([100, 101, 102], 'rrw'),
    });
    const c = buildReport(loadRuns([dir], quiet), benchmarks());
    expect(c.cohorts.map((x) => [x.benchmark, x.split, x.common.length])).toEqual([
      ['hotpotqa', 'offline500', 10],
      ['fever', 'react500', 3],
    ]);
    const [t1] = c.tables;
    expect(t1!.id).toBe('table1');
    const react = t1!.rows.find((r) => r.label === 'ReAct')!;
    const groups = [...new Set(t1!.columns.map((x) => x.group))];
    expect(groups).toEqual(['HotpotQA EM', 'FEVER Acc']);
    expect(react.cells).toMatchObject({ '0.ours': 70, '0.n': '10', '1.ours': 66.7, '1.n': '3' });
    const notes = t1!.notes.join('\n');
    expect(notes).toContain('HotpotQA EM: split offline500, n = 10 items scored in all 2 runs (of 10 planned).');
    expect(notes).toContain('FEVER Acc: split react500, n = 3 items scored in the run (of 3 planned).');
    // Every table of the report says its split and n.
    for (const t of [...c.tables, ...c.sections.flatMap((s) => s.tables.filter((x) => x.id !== 'published-elsewhere')), c.runsTable]) {
      const text = [t.title, ...t.notes, ...t.columns.map((x) => x.label)].join(' ');
      expect(text, t.id).toMatch(/split|Split/);
      expect(text, t.id).toMatch(/\bn\b|Done/);
    }
  });

  it('methods are compared on the intersection: items scored in every run of the set', () => {
    const dir = root();
    const idx = range(0, 10);
    writeRun(dir, { runId: 'react', method: 'react', indices: idx, records: qaRecords(idx, 'rrrerrrwww') }); // error on 3
    writeRun(dir, { runId: 'cot', method: 'cot', indices: idx, records: qaRecords(idx.slice(0, 9), 'rrrrrwwww') }); // 9 not run yet
    const c = buildReport(loadRuns([dir], quiet), benchmarks());
    expect(c.cohorts[0]!.common).toEqual([0, 1, 2, 4, 5, 6, 7, 8]);
    const t1 = c.tables[0]!;
    expect(t1.rows.find((r) => r.label === 'ReAct')!.cells).toMatchObject({ '0.ours': 75, '0.n': '8' }); // 6 of 8
    expect(t1.rows.find((r) => r.label === 'CoT')!.cells).toMatchObject({ '0.ours': 50, '0.n': '8' }); // 4 of 8
    expect(t1.notes.join('\n')).toContain(
      'n = 8 items scored in all 2 runs (of 10 planned; left out where a run has none: CoT 1 not run; ReAct 1 error)',
    );
    // The runs table keeps each run as stored: ReAct 6 of 9 scored, CoT 5 of 9.
    const runsRow = (id: string) => c.runsTable.rows.find((r) => r.cells.run === id)!.cells;
    expect(runsRow('react')).toMatchObject({ done: '10/10', errors: 1, 'm.em': 66.7 });
    expect(runsRow('cot')).toMatchObject({ done: '9/10', errors: 0, 'm.em': 55.6 });
    // The comparison pairs the two on the same 8 items.
    const cmp = c.sections.find((s) => s.id === 'comparisons')!.tables[0]!;
    expect(cmp.rows[0]!.cells).toMatchObject({ n: 8, a: 75, b: 50, diff: 25 });
  });

  it('a merged run supersedes its shards; the note names them', () => {
    const dir = root();
    const all = range(0, 6);
    writeRun(dir, { runId: 'react-s1of2', method: 'react', shard: '1/2', indices: [0, 2, 4], records: qaRecords([0, 2, 4], 'rrw') });
    writeRun(dir, { runId: 'react-s2of2', method: 'react', shard: '2/2', indices: [1, 3, 5], records: qaRecords([1, 3, 5], 'rww') });
    writeRun(dir, {
      runId: 'react-merged',
      kind: 'merge',
      method: 'react',
      indices: all,
      records: qaRecords(all, 'rrrwww'),
      sources: [
        { runId: 'react-s1of2', shard: '1/2' },
        { runId: 'react-s2of2', shard: '2/2' },
      ],
    });
    const g = groupRuns(loadRuns([dir], quiet));
    expect(g.runs.map((r) => r.manifest.runId)).toEqual(['react-merged']);
    expect(g.notes).toEqual([
      'Merged run react-merged supersedes its 2 shard run(s) (react-s1of2, react-s2of2): they are not counted again.',
    ]);
    const c = buildReport(loadRuns([dir], quiet), benchmarks());
    expect(
      c.tables[0]!.rows.filter((r) => r.label.startsWith('ReAct') && r.cells['0.ours'] !== null).map((r) => [
        r.label,
        r.cells['0.ours'],
        r.cells['0.n'],
      ]),
    ).toEqual([['ReAct', 50, '6']]);
    expect(c.runsTable.rows.map((r) => r.cells.run)).toEqual(['react-merged']);
    expect(renderMarkdown(c)).toMatch(/^\| ReAct \| 50\.0 \| \[\d+\.\d, \d+\.\d\] \| 6 \| 27\.4 \| 30\.8 \|/m);
    // Shards alone (no merge) are each their own item set, and the notes say to merge them.
    fs.rmSync(path.join(dir, 'react-merged'), { recursive: true });
    const alone = groupRuns(loadRuns([dir], quiet));
    expect(alone.cohorts).toHaveLength(2);
    expect(alone.notes[0]).toMatch(/2 shard run\(s\) without a merge .*`react-repro merge` them/);
  });

  it('reruns of one run id count once: the folder with more records, said so', () => {
    const a = root();
    const b = root();
    const idx = range(0, 6);
    writeRun(a, { runId: 'hotpotqa-react-x', method: 'react', indices: idx, records: qaRecords(idx.slice(0, 4), 'rrrr') });
    writeRun(b, { runId: 'hotpotqa-react-x', method: 'react', indices: idx, records: qaRecords(idx, 'rrrrww'), folder: 'copy-of-run' });
    const g = groupRuns(loadRuns([a, b], quiet));
    expect(g.runs).toHaveLength(1);
    expect(g.runs[0]!.dir).toBe(path.join(b, 'copy-of-run'));
    expect(g.notes[0]).toBe(
      `Run hotpotqa-react-x is in 2 folders (${path.join(b, 'copy-of-run')}: 6 records; ${path.join(a, 'hotpotqa-react-x')}: 4 records); it counts once, from ${path.join(b, 'copy-of-run')} (the most records).`,
    );
    const c = buildReport(loadRuns([a, b], quiet), benchmarks());
    expect(c.runsTable.rows).toHaveLength(1);
    expect(renderMarkdown(c)).toContain('## Notes');
  });

  it('runs of one method that differ in a setting are rows of their own, named by the setting; other models get a Model column', () => {
    const dir = root();
    const idx = range(0, 4);
    writeRun(dir, { runId: 'react-7', method: 'react', indices: idx, records: qaRecords(idx, 'rrrw'), settings: { maxSteps: 'code' } });
    writeRun(dir, { runId: 'react-3', method: 'react', indices: idx, records: qaRecords(idx, 'rwww'), settings: { maxSteps: '3' } });
    writeRun(dir, { runId: 'cot-m2', method: 'cot', model: 'other-model', indices: idx, records: qaRecords(idx, 'rrww') });
    const c = buildReport(loadRuns([dir], quiet), benchmarks());
    const t1 = c.tables[0]!;
    expect(t1.columns[0]).toEqual({ key: 'model', label: 'Model', identifies: true });
    const ours = t1.rows.filter((r) => r.cells['0.ours'] !== null).map((r) => [r.label, r.cells.model, r.cells['0.ours']]);
    expect(ours).toEqual([
      ['CoT', 'other-model', 50],
      ['ReAct (maxSteps 3)', 'test-model', 25],
      ['ReAct (maxSteps code)', 'test-model', 75],
    ]);
    expect(c.cohorts).toHaveLength(2); // one per model
    // The ablation table groups the two ReAct runs (they differ only in maxSteps).
    const abl = c.sections.find((s) => s.id === 'ablations')!.tables;
    expect(abl).toHaveLength(1);
    expect(abl[0]!.title).toBe('Ablation: step limit (--max-steps), ReAct on HotpotQA (test-model)');
    expect(abl[0]!.rows.map((r) => [r.label, r.cells.em, r.cells.diff])).toEqual([
      ['maxSteps 3', 25, null],
      ['maxSteps code', 75, 50],
    ]);
  });

  it('settings a flag declares operational (limits on answers, timeouts, addresses) never set runs apart; an old run’s unknown ones are judged by name', () => {
    const dir = root();
    const idx = range(0, 4);
    const env = { kind: 'snapshot' };
    writeRun(dir, {
      runId: 'react-a',
      method: 'react',
      indices: idx,
      records: qaRecords(idx, 'rrww'),
      environment: env,
      settings: { envDeadline: 60, envMaxBytes: 1e6, llmMaxBytes: 1e6, wikiTimeout: 5 },
    });
    writeRun(dir, {
      runId: 'react-b',
      method: 'react',
      indices: idx,
      records: qaRecords(idx, 'rrww'),
      environment: env,
      settings: { envDeadline: 90, envMaxBytes: 2e6, llmMaxBytes: 2e6, wikiTimeout: 9, someOldTimeout: 3 },
    });
    const g = groupRuns(loadRuns([dir], quiet));
    expect(g.aligned.map((r) => r.variant ?? '')).not.toContain('envDeadline 60');
    expect(effectiveSettings(g.runs[0]!)).toEqual({});
    expect(effectiveSettings(g.runs[1]!)).toEqual({});
    const c = buildReport(loadRuns([dir], quiet), benchmarks());
    expect(c.sections.find((s) => s.id === 'ablations')?.tables ?? []).toHaveLength(0);
  });

  it('keeps one array where restricting leaves a run as it was, and one plan for runs that plan the same items', () => {
    const dir = root();
    const idx = range(0, 8);
    writeRun(dir, { runId: 'h-react', method: 'react', indices: idx, records: qaRecords(idx, 'rrwwrrww') });
    writeRun(dir, { runId: 'h-cot', method: 'cot', indices: idx, records: qaRecords(idx, 'rwrwrwrw') });
    writeRun(dir, { runId: 'h-act', method: 'act', model: 'other', indices: idx, records: qaRecords(idx, 'rrweeeww') });
    writeRun(dir, { runId: 'h-std', method: 'standard', model: 'other', indices: idx, records: qaRecords(idx, 'rrrrrrrr') });
    const { runs, aligned, cohorts } = groupRuns(loadRuns([dir], { slim: true, ...quiet }));
    const [react, cot, act, std] = ['h-react', 'h-cot', 'h-act', 'h-std'].map((id) => aligned.find((a) => a.manifest.runId === id)!);
    // Nothing left out: the run's own arrays, not copies alike.
    expect(react.records).toBe(react.full!.records);
    expect(react.manifest.indices).toBe(react.full!.manifest.indices);
    // Every run planned items 0..7: one array for all of them.
    expect(cot.full!.manifest.indices).toBe(react.full!.manifest.indices);
    expect(act.full!.manifest.indices).toBe(react.full!.manifest.indices);
    // Errors left out: the records restricted, the items the cohort's common ones.
    const other = cohorts.find((c) => c.runIds.includes('h-act'))!;
    expect(other.common).toEqual([0, 1, 2, 6, 7]);
    expect(act.records.map((r) => r.idx)).toEqual(other.common);
    expect(std.manifest.indices).toBe(act.manifest.indices);
    expect(std.records).not.toBe(std.full!.records);
    expect(runs.map((r) => r.records.length)).toEqual([8, 8, 8, 8]);
  });

  it('Figure 2 with a ReAct run of only error episodes: no figure over no questions, and no NaN in any format', async () => {
    const dir = root();
    const idx = range(0, 4);
    writeRun(dir, { runId: 'react-down', method: 'react', indices: idx, records: qaRecords(idx, 'eeee') });
    writeRun(dir, {
      runId: 'cot-sc',
      method: 'cot-sc',
      indices: idx,
      records: qaRecords(idx, 'rrww', () => ({ samples: ['a', 'b', 'a'] })),
    });
    const c = buildReport(loadRuns([dir], quiet), benchmarks());
    expect(c.cohorts[0]!.common).toEqual([]);
    expect(c.figures).toEqual([]);
    expect(c.tables[0]!.rows.find((r) => r.label === 'ReAct')!.cells).toMatchObject({ '0.ours': null, '0.n': '0' });
    const { renderCsv } = await import('../../src/report/render-csv.js');
    const { renderTex } = await import('../../src/report/render-tex.js');
    const { renderHtml } = await import('../../src/report/render-html.js');
    for (const text of [renderMarkdown(c), renderCsv(c), renderTex(c), renderHtml(c)]) expect(text).not.toMatch(/NaN|Infinity/);
    expect(c.tables[0]!.notes[0]).toBe(
      'HotpotQA EM: split offline500, n = 0 items scored in all 2 runs (of 4 planned; left out where a run has none: ReAct 4 errors).',
    );
  });
});
