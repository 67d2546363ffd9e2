// Ablation tables: runs of one method on the same items that differ in exactly one setting (exemplars,
// temperature, model...), on the items scored in all of them, with the paired difference to the first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { benchmarkNames, getBenchmark } from '../../src/benchmarks/registry.js';
import { ablationFamilies, ablationTables } from '../../src/report/ablation.js';
import { methodLabels } from '../../src/report/names.js';
import { loadRuns } from '../../src/report/load.js';
import { qaRecords, writeRun } from './run-folders.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'report-ablation-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const idx = [0, 1, 2, 3, 4, 5];
const metrics = () => [
  { key: 'em', label: 'EM' },
  { key: 'f1', label: 'F1' },
];

describe('ablation families', () => {
  it('groups by the one setting that differs: exemplars for ReAct, the model for CoT; other differences make no family', () => {
    writeRun(dir, { runId: 'react-k1', method: 'react', indices: idx, records: qaRecords(idx, 'rwwwww'), settings: { exemplars: 1 } });
    writeRun(dir, { runId: 'react-k3', method: 'react', indices: idx, records: qaRecords(idx, 'rrrwwe'), settings: { exemplars: 3 } });
    writeRun(dir, { runId: 'react-k6', method: 'react', indices: idx, records: qaRecords(idx, 'rrrrww') });
    // Differs in two settings from every other ReAct run: in no family.
    writeRun(dir, {
      runId: 'react-odd',
      method: 'react',
      indices: idx,
      records: qaRecords(idx, 'wwwwww'),
      settings: { exemplars: 2, maxSteps: '3' },
    });
    writeRun(dir, { runId: 'cot-a', method: 'cot', model: 'model-a', indices: idx, records: qaRecords(idx, 'rrwwww') });
    writeRun(dir, { runId: 'cot-b', method: 'cot', model: 'model-b', indices: idx, records: qaRecords(idx, 'rrrrrw') });
    // Another item set: never in a family with the others.
    writeRun(dir, {
      runId: 'cot-c-other-items',
      method: 'cot',
      model: 'model-c',
      indices: [0, 1, 2],
      records: qaRecords([0, 1, 2], 'rrr'),
    });
    const runs = loadRuns([dir], { warn: () => {} });
    const fams = ablationFamilies(runs);
    expect(fams.map((f) => [f.axis, f.method, f.values, f.runs.map((r) => r.manifest.runId)])).toEqual([
      ['model', 'cot', ['model-a', 'model-b'], ['cot-a', 'cot-b']],
      ['exemplars', 'react', [1, 3, undefined], ['react-k1', 'react-k3', 'react-k6']],
    ]);
    const [models, exemplars] = ablationTables(
      runs,
      metrics,
      (b) => (b === 'hotpotqa' ? 'HotpotQA' : b),
      methodLabels(benchmarkNames().map(getBenchmark)),
    );
    expect(models!.title).toBe('Ablation: model, CoT on HotpotQA');
    expect(models!.rows.map((r) => [r.label, r.cells.em, r.cells.n, r.cells.diff])).toEqual([
      ['model model-a', 33.3, 6, null],
      ['model model-b', 83.3, 6, 50],
    ]);
    expect(models!.rows[1]!.ci!.diff).toEqual({ lo: expect.any(Number), hi: expect.any(Number) });
    // The exemplar family is compared on the 5 items scored in all three (k3 has an error on item 5).
    expect(exemplars!.title).toBe('Ablation: number of exemplars (--exemplars), ReAct on HotpotQA (test-model)');
    expect(exemplars!.rows.map((r) => [r.label, r.cells.em, r.cells.n])).toEqual([
      ['exemplars 1', 20, 5],
      ['exemplars 3', 60, 5],
      ['exemplars (default)', 80, 5],
    ]);
    expect(exemplars!.notes[0]).toBe(
      'Split offline500; n = 5 items scored in all 3 runs (of 6 planned; left out: exemplars 3: 1 error). The runs differ only in exemplars.',
    );
    expect(exemplars!.columns.find((c) => c.key === 'diff')!.label).toBe('Δ EM vs 1');
  });
});
