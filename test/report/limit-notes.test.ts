// The notes on model limits sit under the tables whose numbers come from the run that reached them
// (README "Reports"): not under every table of its benchmark, and under Table 2's sample too.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { benchmarkNames, getBenchmark } from '../../src/benchmarks/registry.js';
import { buildReport } from '../../src/report/build.js';
import { loadRuns } from '../../src/report/load.js';
import { addLimitNotes } from '../../src/report/limit-notes.js';
import { qaRecords, writeRun } from './run-folders.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'report-limit-notes-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const benchmarks = () => benchmarkNames().map(getBenchmark);
const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);

describe('limit notes', () => {
  it('go under the tables and figures that draw on the run that reached the limit, and no other', () => {
    const dir = path.join(tmp, 'runs');
    const idx = range(0, 10);
    const over = (i: number) => (i < 4 ? { outcome: 'context_exceeded', outcome_step: 2, answer: null } : {});
    // Model a: its ReAct run outgrew the window on 4 questions; model b's runs and FEVER's never did.
    writeRun(dir, { runId: 'a-react', method: 'react', model: 'model-a', indices: idx, records: qaRecords(idx, 'rrwwwwrrrw', over) });
    writeRun(dir, { runId: 'a-cot', method: 'cot', model: 'model-a', indices: idx, records: qaRecords(idx, 'rrrwwwwrrw') });
    writeRun(dir, { runId: 'b-react', method: 'react', model: 'model-b', indices: idx, records: qaRecords(idx, 'rrrrwwwrrw') });
    writeRun(dir, { runId: 'b-cot', method: 'cot', model: 'model-b', indices: idx, records: qaRecords(idx, 'rrwwwwwrrw') });
    const fever = range(100, 110);
    writeRun(dir, {
      runId: 'f-react',
      task: 'fever',
      method: 'react',
      split: 'react500',
      indices: fever,
      records: qaRecords(fever, 'rrrwwrrrrw'),
    });
    writeRun(dir, {
      runId: 'f-cot',
      task: 'fever',
      method: 'cot',
      split: 'react500',
      indices: fever,
      records: qaRecords(fever, 'rrwwwrrrrw'),
    });
    const c = buildReport(loadRuns([dir], { warn: () => {} }), benchmarks());
    const note = "HotpotQA ReAct (a-react): 4 of 10 episodes outgrew the model's context window";
    const noted = (notes: string[]) => notes.some((n) => n.startsWith(note));
    const comparisons = c.sections.find((s) => s.id === 'comparisons')!.tables;
    const titled = (model: string) => comparisons.find((t) => t.title.includes(model))!;
    expect(noted(titled('model-a').notes)).toBe(true);
    expect(noted(titled('model-b').notes)).toBe(false);
    expect(noted(comparisons.find((t) => t.title.includes('FEVER'))!.notes)).toBe(false);
    expect(noted(c.tables.find((t) => t.id === 'table1')!.notes)).toBe(true);
    expect(noted(c.runsTable.notes)).toBe(true);
    // Table 2's sample of HotpotQA draws on a-react; FEVER's does not.
    const table2 = c.sections.find((s) => s.id === 'error-analysis')!.tables;
    expect(noted(table2.find((t) => t.id === 'table2-auto-hotpotqa')!.notes)).toBe(true);
    expect(noted(table2.find((t) => t.id === 'table2-auto-fever')!.notes)).toBe(false);
    // A comparison's rows name the runs behind them, as Table 1's cells do.
    expect(titled('model-a').rows[0].ref).toBe('a-react a-cot');
  });

  it('a combination carries the limit notes of its base runs (it makes no calls of its own)', () => {
    const dir = path.join(tmp, 'combination');
    const idx = range(0, 10);
    const over = (i: number) => (i < 3 ? { outcome: 'context_exceeded', outcome_step: 2, answer: null } : {});
    writeRun(dir, { runId: 'c-react', method: 'react', model: 'model-c', indices: idx, records: qaRecords(idx, 'rrwwwwrrrw', over) });
    writeRun(dir, {
      runId: 'c-combo',
      method: 'react-cot-sc',
      model: 'model-c',
      kind: 'combination',
      sources: [{ runId: 'c-react' }],
      indices: idx,
      records: qaRecords(idx, 'rrrwwwrrrw'),
    });
    const c = buildReport(loadRuns([dir], { warn: () => {} }), benchmarks());
    const table = {
      id: 'only-the-combination',
      title: 't',
      columns: [],
      notes: [] as string[],
      rows: [{ label: 'x', source: 'ours' as const, ref: 'c-combo', cells: {} }],
    };
    addLimitNotes([table], c.runs, (n) => n, c.methodLabel);
    expect(table.notes.some((n) => n.includes("(c-react): 3 of 10 episodes outgrew the model's context window"))).toBe(true);
  });
});
