// One rule for "is this episode correct?" (src/report/correct.ts): a benchmark registered in this file
// only declares a rule other than the default (its "pass" metric, not full marks on its primary
// "score"), and the trajectory browser's outcome, Table 2's sample (the label sheet) and export's
// successful trajectories and `correct` column, each through the CLI's own main(), all follow it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { registerBenchmark } from '../../src/benchmarks/registry.js';
import type { BenchmarkDefinition } from '../../src/benchmarks/types.js';
import { main } from '../../src/cli/main.js';
import { pageData } from '../../src/report/html/render.js';
import { parseLabelsCsv } from '../../src/report/error-tags.js';
import { correctRule, episodeCorrectness } from '../../src/report/correct.js';
import { loadRun } from '../../src/report/load.js';
import type { EpisodeRecord } from '../../src/runlog/schema.js';
import { qa, writeRun } from './run-folders.js';

/** A task graded two ways: a partial `score` and a `pass` mark, which is what counts as correct. */
const graded: BenchmarkDefinition = {
  name: 'graded',
  metrics: [
    { key: 'score', label: 'Score' },
    { key: 'pass', label: 'Pass' },
  ],
  size: () => 6,
  item: (index) => ({ index, id: `q${index}`, input: `question ${index}?` }),
  score: () => ({ score: 0, pass: 0 }),
  isCorrect: (e) => e.metrics.pass === 1,
  methods: ['react'],
  createMethod: () => {
    throw new Error('not run in this test');
  },
  createEnv: () => {
    throw new Error('not run in this test');
  },
  errorAnalysis: {
    methods: ['react'],
    categories: [
      { key: 'success_passed', label: 'Passed' },
      { key: 'failure_failed', label: 'Failed' },
    ],
    tags: [],
    autoTags: () => [],
  },
};
registerBenchmark('graded', () => graded);

// (score, pass) per item: full marks that do not pass, partial scores that do, and an outage.
const MARKS: [number, number][] = [
  [1, 1],
  [1, 0],
  [0.6, 1],
  [0, 0],
  [0.4, 1],
];
const PASSED = [0, 2, 4];
const FULL_MARKS = [0, 1];

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((s: string | Uint8Array) => ((stdout += String(s)), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string | Uint8Array) => ((stderr += String(s)), true)) as typeof process.stderr.write;
  try {
    return { code: await main(args), stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    process.exitCode = undefined;
  }
}

let tmp: string;
let runDir: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'correct-rule-'));
  const records: EpisodeRecord[] = [
    ...MARKS.map(([score, pass], i) => qa(i, 'right', { metrics: { score, pass } })),
    qa(5, 'error', { metrics: { score: 0, pass: 0 } }),
  ];
  runDir = writeRun(path.join(tmp, 'runs'), {
    runId: 'graded-react-t',
    task: 'graded',
    method: 'react',
    indices: [0, 1, 2, 3, 4, 5],
    records,
  });
  // The run-folder helper declares QA's metrics for a task it does not know: this one declares its own.
  const file = path.join(runDir, 'manifest.json');
  fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), metrics: graded.metrics }, null, 2) + '\n');
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("a benchmark's own rule of what is correct", () => {
  it('the HTML outcome, Table 2 sample and export all follow it, and agree', async () => {
    const runs = path.join(tmp, 'runs');
    const page = path.join(tmp, 'report.html');
    const sheet = path.join(tmp, 'sheet.csv');
    for (const args of [
      ['report', runs, '--out', page],
      ['report', runs, '--label-sheet', sheet],
    ]) {
      const r = await cli(args);
      expect({ args, code: r.code }).toEqual({ args, code: 0 });
    }
    const finetune = await cli(['export', runs, '--format', 'finetune']);
    const flat = await cli(['export', runs, '--format', 'jsonl']);
    expect([finetune.code, flat.code]).toEqual([0, 0]);

    const data = pageData(fs.readFileSync(page, 'utf8')) as { episodes: { idx: number; outcome: string }[] };
    const browserCorrect = data.episodes.filter((e) => e.outcome === 'correct').map((e) => e.idx);
    expect(data.episodes.map((e) => e.outcome)).toEqual(['correct', 'incorrect', 'correct', 'incorrect', 'correct', 'error']);

    const rows = parseLabelsCsv(fs.readFileSync(sheet, 'utf8'), sheet);
    const sampledCorrect = rows.filter((r) => r.outcome === 'correct').map((r) => r.idx);
    expect(rows.filter((r) => r.outcome === 'incorrect').map((r) => r.idx)).toEqual([1, 3]);

    const examples = finetune.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { prompt: string });
    const exportedCorrect = examples.map((e) => Number(/^question (\d+)\?\n$/.exec(e.prompt)![1]));
    const flatRows = flat.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { idx: number; correct: boolean | null });
    expect(flatRows.map((r) => r.correct)).toEqual([true, false, true, false, true, null]);
    const flatCorrect = flatRows.filter((r) => r.correct === true).map((r) => r.idx);

    // One answer everywhere: the benchmark's, not full marks on its primary metric.
    for (const got of [browserCorrect, sampledCorrect, exportedCorrect, flatCorrect]) expect(got).toEqual(PASSED);
    expect(PASSED).not.toEqual(FULL_MARKS);
  });
});

describe('the default rule', () => {
  it("without a rule of its benchmark's, an episode is correct with its run's primary metric at 1 (a partial score is not)", () => {
    const run = loadRun(runDir);
    const isCorrect = episodeCorrectness([{ name: 'graded' }]);
    expect(run.records.filter((r) => isCorrect(run, r)).map((r) => r.idx)).toEqual(FULL_MARKS);
    // An outage is never correct, even where its benchmark's rule would say so of its metrics.
    const outage = { ...run.records[0], error: { source: 'llm' as const, message: 'down' } };
    expect(episodeCorrectness([graded])(run, outage)).toBe(false);
    // A run that declares no metrics (schema 1): the first its records carry is its primary metric.
    const undeclared = { manifest: { metrics: undefined }, records: run.records };
    expect(run.records.filter((r) => correctRule(undefined, undeclared)(r)).map((r) => r.idx)).toEqual(FULL_MARKS);
  });
});
