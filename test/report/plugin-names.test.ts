// How a report names a benchmark's methods and which pairs it tests are the benchmark's declarations
// (Benchmark.methodLabels, Benchmark.comparisons): a plug-in's own show in the report; methods another
// benchmark labels, or pairs it tests, do not carry over.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { benchmarkNames, completeBenchmark, getBenchmark } from '../../src/benchmarks/registry.js';
import type { Benchmark } from '../../src/benchmarks/types.js';
import { UserError } from '../../src/errors.js';
import { buildReport } from '../../src/report/build.js';
import { loadRuns } from '../../src/report/load.js';
import { qaRecords, writeRun } from './run-folders.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'report-plugin-names-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const idx = [0, 1, 2, 3, 4, 5];

/** A test-only plug-in with two methods of its own, their labels and the one pair worth testing. */
function tiny(over: Partial<Benchmark> = {}): Benchmark {
  return completeBenchmark({
    name: 'tiny',
    title: 'Tiny',
    metrics: [
      { key: 'em', label: 'EM' },
      { key: 'f1', label: 'F1' },
    ],
    size: () => idx.length,
    item: (index) => ({ index, id: String(index), input: String(index) }),
    score: () => ({ em: 0, f1: 0 }),
    methods: ['fast', 'slow', 'react', 'act'],
    methodLabels: { fast: 'FastThink', slow: 'SlowThink' },
    comparisons: [['slow', 'fast']],
    createMethod: () => {
      throw new UserError('not run here');
    },
    createEnv: async () => {
      throw new UserError('not run here');
    },
    ...over,
  });
}

function runsOfTiny(): string {
  const root = path.join(dir, 'tiny');
  for (const [method, pattern] of [
    ['fast', 'rrwwww'],
    ['slow', 'rrrrww'],
    ['react', 'rrrrrw'],
    ['act', 'rwwwww'],
  ] as const)
    writeRun(root, { runId: `tiny-${method}`, task: 'tiny', method, indices: idx, records: qaRecords(idx, pattern) });
  return root;
}

describe("a plug-in's method labels and comparison pairs", () => {
  it('name its runs and make its comparisons; pairs and labels of other benchmarks do not apply', () => {
    const c = buildReport(loadRuns([runsOfTiny()], { warn: () => {} }), [...benchmarkNames().map(getBenchmark), tiny()]);
    const cmp = c.sections.find((s) => s.id === 'comparisons')!.tables;
    expect(cmp.map((t) => t.title)).toEqual(['Comparisons: Tiny, split offline500, model test-model']);
    // Only the declared pair (F1 equals EM here: one metric): ReAct − Act is the built-ins' claim, not this benchmark's.
    expect(cmp[0].rows.map((r) => [r.label, r.cells.metric, r.cells.diff])).toEqual([['SlowThink − FastThink', 'EM', 33.3]]);
    // The runs table: its labels, and the names of methods it does not label ("react", not the QA "ReAct").
    expect(c.runsTable.rows.map((r) => r.label).sort()).toEqual(['Tiny FastThink', 'Tiny SlowThink', 'Tiny act', 'Tiny react']);
  });

  it('a plug-in that declares no pairs has no comparisons section', () => {
    const c = buildReport(loadRuns([runsOfTiny()], { warn: () => {} }), [tiny({ comparisons: undefined })]);
    expect(c.sections.find((s) => s.id === 'comparisons')).toBeUndefined();
  });
});
