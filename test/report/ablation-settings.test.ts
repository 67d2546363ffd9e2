// Ablations and variants name only settings a run's method reads. Every run records all of its
// benchmark's flags (--wiki, --clean-str-errors... as defaults), but a method that steps no
// environment (CoT: its manifest records none) never reads the environment's flags: they are not in
// its "Other settings" note, do not keep two of its runs out of one ablation family, and do not name
// its variants. For ReAct, which searches Wikipedia, they stay what they were. Nor do the flags of
// another method of the benchmark count (Benchmark.methodFlags): ReAct never reads CoT-SC's
// --samples, CoT never reads ReAct's --max-steps.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { benchmarkNames, getBenchmark, registerBenchmark } from '../../src/benchmarks/registry.js';
import { methodLabels } from '../../src/report/names.js';
import { runDefaults } from '../../src/run/deps.js';
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

/** A ReAct run on the snapshot with 3 exemplars, beside exemplarRun's 3-exemplar run on --wiki live. */
function snapshotReactRun(dir: string) {
  const settings = { ...WIKI, maxSteps: 'code', exemplars: 3 };
  writeRun(dir, {
    runId: 'react-snapshot',
    method: 'react',
    indices: idx,
    records: qaRecords(idx, 'rrrwww'),
    settings,
    environment: SNAPSHOT,
  });
}

describe('ablation notes', () => {
  it("CoT's note leaves out the Wikipedia flags it never read; ReAct's keeps them", () => {
    const dir = root();
    exemplarRun(dir, 'react', 1, 'rwwwww');
    exemplarRun(dir, 'react', 3, 'rrrwww');
    exemplarRun(dir, 'cot', 1, 'rrwwww');
    exemplarRun(dir, 'cot', 3, 'rrrrww');
    const tables = ablationTables(loadRuns([dir], quiet), () => QA_METRICS, title, methodLabels(benchmarkNames().map(getBenchmark)));
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

/** Every flag a HotpotQA run records by default (the runner's defaults), whatever its method. */
const RECORDED = { ...runDefaults('hotpotqa'), cleanStrErrors: 'keep' };

/** The settings an "Other settings: a 1, b 2." note lists, sorted. */
const listed = (note: string | undefined) =>
  (note ?? '')
    .replace(/^Other settings: /, '')
    .replace(/\.$/, '')
    .split(', ')
    .sort();

/** A run as the runner records it: every default flag of HotpotQA, and these. */
function recordedRun(dir: string, runId: string, method: string, pattern: string, over: Record<string, unknown>) {
  const settings = { ...RECORDED, ...over };
  const environment = method === 'react' || method === 'act' ? SNAPSHOT : null;
  writeRun(dir, { runId, method, indices: idx, records: qaRecords(idx, pattern), settings, environment });
}

describe("a method's notes leave out the flags only other methods read", () => {
  it("ReAct's note has no CoT-SC setting; CoT's has no step limit or empty action", () => {
    const dir = root();
    recordedRun(dir, 'react-k1', 'react', 'rwwwww', { exemplars: 1 });
    recordedRun(dir, 'react-k3', 'react', 'rrrwww', { exemplars: 3 });
    recordedRun(dir, 'cot-k1', 'cot', 'rrwwww', { exemplars: 1 });
    recordedRun(dir, 'cot-k3', 'cot', 'rrrrww', { exemplars: 3 });
    const tables = ablationTables(loadRuns([dir], quiet), () => QA_METRICS, title, methodLabels(benchmarkNames().map(getBenchmark)));
    expect(tables.map((t) => t.title)).toEqual([
      'Ablation: number of exemplars (--exemplars), CoT on HotpotQA (test-model)',
      'Ablation: number of exemplars (--exemplars), ReAct on HotpotQA (test-model)',
    ]);
    const [cot, react] = tables;
    expect(listed(react!.notes[1])).toEqual([
      'cleanStrErrors keep',
      'emptyAction invalid',
      'maxSteps code',
      'model test-model',
      'wiki snapshot',
    ]);
    expect(react!.notes[1]).not.toMatch(/samples|scTemperature|majorityRule/);
    expect(cot!.notes[1]).toBe('Other settings: model test-model.');
    expect(cot!.notes[1]).not.toMatch(/maxSteps|emptyAction/);
  });

  it('a CoT-SC family over --samples keeps its axis and its temperature, and no step limit', () => {
    const dir = root();
    for (const n of [5, 21]) recordedRun(dir, `cot-sc-n${n}`, 'cot-sc', n === 5 ? 'rrwwww' : 'rrrwww', { samples: n });
    const fams = ablationFamilies(loadRuns([dir], quiet));
    expect(fams.map((f) => [f.axis, f.method, f.values, f.runs.map((r) => r.manifest.runId)])).toEqual([
      ['samples', 'cot-sc', [5, 21], ['cot-sc-n5', 'cot-sc-n21']],
    ]);
    expect(fams[0]!.fixed).toEqual({ scTemperature: 0.7, model: 'test-model' });
    const [table] = ablationTables(loadRuns([dir], quiet), () => QA_METRICS, title, methodLabels(benchmarkNames().map(getBenchmark)));
    expect(table!.title).toBe('Ablation: CoT-SC samples (--samples), CoT-SC on HotpotQA (test-model)');
    expect(listed(table!.notes[1])).toEqual(['model test-model', 'scTemperature 0.7']);
  });

  it('two ReAct runs that differ only in --samples (which ReAct never read) are no family, and their variants are named by run id', () => {
    const dir = root();
    recordedRun(dir, 'react-aaaaaaaa', 'react', 'rwwwww', { samples: 5 });
    recordedRun(dir, 'react-bbbbbbbb', 'react', 'rrrwww', { samples: 21 });
    expect(ablationFamilies(loadRuns([dir], quiet))).toEqual([]);
    const variants = new Map(groupRuns(loadRuns([dir], quiet)).runs.map((r) => [r.manifest.runId, r.variant]));
    expect(variants).toEqual(
      new Map([
        ['react-aaaaaaaa', 'run aaaaaaaa'],
        ['react-bbbbbbbb', 'run bbbbbbbb'],
      ]),
    );
  });

  it("a combination's note keeps every flag its base runs read, and the majority rule", () => {
    const dir = root();
    for (const rule of ['paper', 'author'])
      writeRun(dir, {
        runId: `cot-sc-react-${rule}`,
        method: 'cot-sc-react',
        kind: 'combination',
        indices: idx,
        records: qaRecords(idx, rule === 'paper' ? 'rrwwww' : 'rrrwww'),
        settings: { ...RECORDED, majorityRule: rule },
        environment: SNAPSHOT,
      });
    const [table] = ablationTables(loadRuns([dir], quiet), () => QA_METRICS, title, methodLabels(benchmarkNames().map(getBenchmark)));
    expect(listed(table!.notes[1])).toEqual([
      'cleanStrErrors keep',
      'emptyAction invalid',
      'maxSteps code',
      'model test-model',
      'samples 21',
      'scTemperature 0.7',
      'wiki snapshot',
    ]);
  });
});

describe('a combination made from given runs', () => {
  it("its note leaves out the flags its base runs read (they ran with their own, not this invocation's defaults)", () => {
    const dir = root();
    for (const rule of ['paper', 'author'])
      writeRun(dir, {
        runId: `cot-sc-react-given-${rule}`,
        method: 'cot-sc-react',
        kind: 'combination',
        indices: idx,
        records: qaRecords(idx, rule === 'paper' ? 'rrwwww' : 'rrrwww'),
        settings: { ...RECORDED, majorityRule: rule, fromRuns: ['results/cot-sc-x', 'results/react-y'] },
        environment: SNAPSHOT,
      });
    const [table] = ablationTables(loadRuns([dir], quiet), () => QA_METRICS, title, methodLabels(benchmarkNames().map(getBenchmark)));
    expect(table!.title).toMatch(/^Ablation: majorityRule, /);
    expect(listed(table!.notes[1])).toEqual(['model test-model']);
  });
});

describe('where nothing says which flags a method reads', () => {
  const variants = (d: string) => new Map(groupRuns(loadRuns([d], quiet)).runs.map((r) => [r.manifest.runId, r.variant]));

  it('a method its benchmark does not declare (a run of another version) keeps every recorded setting', () => {
    const dir = root();
    recordedRun(dir, 'ircot-n5', 'ircot', 'rwwwww', { samples: 5 });
    recordedRun(dir, 'ircot-n21', 'ircot', 'rrrwww', { samples: 21 });
    expect(variants(dir)).toEqual(
      new Map([
        ['ircot-n5', 'samples 5'],
        ['ircot-n21', 'samples 21'],
      ]),
    );
  });

  it('a benchmark without methodFlags keeps every recorded setting', () => {
    registerBenchmark('toy-without-method-flags', () => ({
      name: 'toy-without-method-flags',
      options: { alpha: { type: 'number', describe: 'a flag of the toy' } },
      metrics: QA_METRICS,
      size: () => idx.length,
      item: (index) => ({ index, id: String(index), input: 'x', gold: 'x' }),
      score: () => ({ em: 0, f1: 0 }),
      methods: ['m'],
      createMethod: () => {
        throw new Error('not run in this test');
      },
      createEnv: async () => {
        throw new Error('not run in this test');
      },
    }));
    const dir = root();
    for (const alpha of [1, 2])
      writeRun(dir, {
        runId: `toy-a${alpha}`,
        task: 'toy-without-method-flags',
        method: 'm',
        indices: idx,
        records: qaRecords(idx, 'rwwwww'),
        settings: { alpha },
      });
    expect(variants(dir)).toEqual(
      new Map([
        ['toy-a1', 'alpha 1'],
        ['toy-a2', 'alpha 2'],
      ]),
    );
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
    snapshotReactRun(dir);
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
    snapshotReactRun(react);
    expect(variants(react)).toEqual(
      new Map([
        ['react-k3', 'wiki live'],
        ['react-snapshot', 'wiki snapshot'],
      ]),
    );
  });
});
