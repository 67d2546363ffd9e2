// Ablations and variants name only settings a run's method reads. Every run records all of its
// benchmark's flags (--wiki, --clean-str-errors... as defaults), but a method that steps no
// environment (CoT: its manifest records none) never reads the environment's flags: they are not in
// its "Other settings" note, do not keep two of its runs out of one ablation family, and do not name
// its variants. For ReAct, which searches Wikipedia, they stay what they were.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { ablationFamilies, ablationTables } from '../../src/report/ablation.js';
import { groupRuns } from '../../src/report/grouping.js';
import { loadRuns } from '../../src/report/load.js';
import { QA_METRICS, qaRecords, writeRun } from './run-folders.js';

const roots: string[] = [];
afterAll(() => roots.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function root(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'report-ablation-settings-'));
  roots.push(d);
  return d;
}
const quiet = { warn: () => {} };
const idx = [0, 1, 2, 3, 4, 5];
const SNAPSHOT = { kind: 'snapshot', pages: 21897 };
const LIVE = { kind: 'live' };
/** The Wikipedia flags a HotpotQA run records whatever its method (the runner's defaults). */
const WIKI = { wiki: 'snapshot', wikiTimeout: 30, cleanStrErrors: 'keep' };
const title = (b: string) => (b === 'hotpotqa' ? 'HotpotQA' : b);

/** A run of the exemplars ablation (experiments/ablation-exemplars.json): ReAct searches the snapshot, CoT nothing. */
function exemplarRun(dir: string, method: 'react' | 'cot', k: number, pattern: string, over: Record<string, unknown> = {}) {
  const settings = { ...WIKI, maxSteps: 'code', exemplars: k, ...over };
  const environment = method === 'react' ? (settings.wiki === 'live' ? LIVE : SNAPSHOT) : null;
  writeRun(dir, { runId: `${method}-k${k}`, method, indices: idx, records: qaRecords(idx, pattern), settings, environment });
}

describe('ablation notes', () => {
  it("CoT's note leaves out the Wikipedia flags it never read; ReAct's keeps them", () => {
    const dir = root();
    exemplarRun(dir, 'react', 1, 'rwwwww');
    exemplarRun(dir, 'react', 3, 'rrrwww');
    exemplarRun(dir, 'cot', 1, 'rrwwww');
    exemplarRun(dir, 'cot', 3, 'rrrrww');
    const tables = ablationTables(loadRuns([dir], quiet), () => QA_METRICS, title);
    expect(tables.map((t) => t.title)).toEqual([
      'Ablation: number of exemplars (--exemplars), CoT on HotpotQA (test-model)',
      'Ablation: number of exemplars (--exemplars), ReAct on HotpotQA (test-model)',
    ]);
    const [cot, react] = tables;
    for (const s of ['wiki snapshot', 'cleanStrErrors keep', 'maxSteps code', 'model test-model']) expect(react!.notes[1]).toContain(s);
    expect(cot!.notes[1]).not.toMatch(/wiki|cleanStrErrors/);
    expect(cot!.notes[1]).toContain('model test-model');
  });
});

describe('ablation families', () => {
  it('two CoT runs that differ in the exemplars and in --wiki are one family; two such ReAct runs are none', () => {
    const dir = root();
    exemplarRun(dir, 'cot', 1, 'rrwwww', { wiki: 'live' });
    exemplarRun(dir, 'cot', 3, 'rrrrww');
    exemplarRun(dir, 'react', 1, 'rwwwww', { wiki: 'live' });
    exemplarRun(dir, 'react', 3, 'rrrwww');
    const fams = ablationFamilies(loadRuns([dir], quiet));
    expect(fams.map((f) => [f.axis, f.method, f.values, f.runs.map((r) => r.manifest.runId)])).toEqual([
      ['exemplars', 'cot', [1, 3], ['cot-k1', 'cot-k3']],
    ]);
    expect(fams[0]!.fixed).not.toHaveProperty('wiki');
  });

  it('the environment flags still make a ReAct family', () => {
    const dir = root();
    exemplarRun(dir, 'react', 3, 'rwwwww', { wiki: 'live' });
    writeRun(dir, {
      runId: 'react-snapshot',
      method: 'react',
      indices: idx,
      records: qaRecords(idx, 'rrrwww'),
      settings: { ...WIKI, maxSteps: 'code', exemplars: 3 },
      environment: SNAPSHOT,
    });
    const fams = ablationFamilies(loadRuns([dir], quiet));
    expect(fams.map((f) => [f.axis, f.method, f.values])).toEqual([['wiki', 'react', ['live', 'snapshot']]]);
  });
});

describe('variant labels', () => {
  it("name a CoT run by the settings CoT reads, and by its run id when those are all the same; ReAct's by --wiki", () => {
    const dir = root();
    exemplarRun(dir, 'cot', 1, 'rrwwww', { wiki: 'live' });
    exemplarRun(dir, 'cot', 3, 'rrrrww');
    const variants = (d: string) => new Map(groupRuns(loadRuns([d], quiet)).runs.map((r) => [r.manifest.runId, r.variant]));
    expect(variants(dir)).toEqual(
      new Map([
        ['cot-k1', 'exemplars 1'],
        ['cot-k3', 'exemplars 3'],
      ]),
    );

    // Two CoT runs whose recorded settings differ only in --clean-str-errors (their run ids differ for
    // another reason): CoT read neither value, so the settings do not tell them apart.
    const same = root();
    for (const [runId, cleanStrErrors] of [
      ['cot-aaaaaaaa', 'keep'],
      ['cot-bbbbbbbb', 'throw'],
    ]) {
      writeRun(same, {
        runId: runId!,
        method: 'cot',
        indices: idx,
        records: qaRecords(idx, 'rrwwww'),
        settings: { ...WIKI, cleanStrErrors },
        environment: null,
      });
    }
    expect(variants(same)).toEqual(
      new Map([
        ['cot-aaaaaaaa', 'run aaaaaaaa'],
        ['cot-bbbbbbbb', 'run bbbbbbbb'],
      ]),
    );

    const react = root();
    exemplarRun(react, 'react', 3, 'rwwwww', { wiki: 'live' });
    writeRun(react, {
      runId: 'react-snapshot',
      method: 'react',
      indices: idx,
      records: qaRecords(idx, 'rrrwww'),
      settings: { ...WIKI, maxSteps: 'code', exemplars: 3 },
      environment: SNAPSHOT,
    });
    expect(variants(react)).toEqual(
      new Map([
        ['react-k3', 'wiki live'],
        ['react-snapshot', 'wiki snapshot'],
      ]),
    );
  });
});
