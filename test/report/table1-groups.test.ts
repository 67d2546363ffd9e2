// Table 1's column groups: each comparable item set has a heading of its own (README "Reports"), so runs
// on other items never read as one column group.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { benchmarkNames, getBenchmark } from '../../src/benchmarks/registry.js';
import { buildReport } from '../../src/report/build.js';
import { loadRuns } from '../../src/report/load.js';
import { qaRecords, writeRun } from './run-folders.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'report-table1-groups-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const benchmarks = () => benchmarkNames().map(getBenchmark);
const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);

describe('Table 1 column groups', () => {
  it('groups on other items of one split and size get headings of their own: the shard, else a set letter', () => {
    const dir = path.join(tmp, 'groups');
    const a = [5, 9, 13, 20];
    const b = [5, 9, 14, 21];
    writeRun(dir, { runId: 'i-react', method: 'react', split: 'indices', indices: a, records: qaRecords(a, 'rrww') });
    writeRun(dir, { runId: 'i-cot', method: 'cot', split: 'indices', indices: b, records: qaRecords(b, 'rwww') });
    writeRun(dir, { runId: 's1', method: 'react', shard: '1/2', indices: range(0, 5), records: qaRecords(range(0, 5), 'rrrrr') });
    writeRun(dir, { runId: 's2', method: 'react', shard: '2/2', indices: range(5, 10), records: qaRecords(range(5, 10), 'wwwww') });
    const c = buildReport(loadRuns([dir], { warn: () => {} }), benchmarks());
    const t1 = c.tables.find((t) => t.id === 'table1')!;
    const groups = [...new Set(t1.columns.map((x) => x.group).filter((g) => g?.startsWith('HotpotQA')))];
    expect(groups).toEqual([
      'HotpotQA EM (indices, 4 items, set A)',
      'HotpotQA EM (indices, 4 items, set B)',
      'HotpotQA EM (offline500, 5 items, shard 1/2)',
      'HotpotQA EM (offline500, 5 items, shard 2/2)',
    ]);
  });
});

describe('Table 1 FEVER caveat', () => {
  it('a combination over a ReAct run on live Wikipedia carries no snapshot caveat (its environment is what it searched)', () => {
    const dir = path.join(tmp, 'fever-live');
    const idx = [100, 101, 102];
    writeRun(dir, {
      runId: 'f-combo',
      task: 'fever',
      method: 'react-cot-sc',
      split: 'react500',
      kind: 'combination',
      sources: [{ runId: 'f-react' }],
      environment: { kind: 'live', baseUrl: 'https://en.wikipedia.org' },
      indices: idx,
      records: qaRecords(idx, 'rrw'),
    });
    const c = buildReport(loadRuns([dir], { warn: () => {} }), benchmarks());
    const t1 = c.tables.find((t) => t.id === 'table1')!;
    expect(t1.notes.filter((n) => n.includes('searched the offline'))).toEqual([]);
  });
});
