// A CoT-SC episode whose prompt outgrew the context window is a scored outcome with no samples
// (README "Model limits are outcomes"): the combinations made after such a run treat it as no vote
// (docs/protocol.md §5), and Figure 2 counts it as Table 1 does, instead of failing or leaving it out.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import '../../../src/benchmarks/builtin.js';
import { qaDerivedMethods } from '../../../src/benchmarks/qa/derived.js';
import type { QaOptions } from '../../../src/benchmarks/qa/benchmark.js';
import type { Item, StoredEpisode } from '../../../src/benchmarks/types.js';
import { buildSweeps } from '../../../src/benchmarks/qa/report/sweep.js';
import { loadRuns } from '../../../src/report/load.js';
import { qaRecords, writeRun } from '../../report/run-folders.js';
import { fakeTask } from './fake-task.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cot-sc-window-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const outgrew = { outcome: 'context_exceeded', outcome_step: null, outcome_detail: { server: 'vllm', window: 300 } };
const stored = (answer: string | null, extra: Record<string, unknown>): StoredEpisode => ({
  answer,
  traj: '',
  steps: [],
  metrics: { em: 0, f1: 0 },
  extra,
  n_calls: 1,
  n_badcalls: 0,
});
const item: Item = { index: 7, id: '7', input: 'Which city?', gold: 'Paris' };
const options = (majorityRule: 'paper' | 'author') => ({ combination: { majorityRule } }) as unknown as QaOptions;

describe('combinations after a CoT-SC episode that outgrew the window', () => {
  const derived = qaDerivedMethods(fakeTask('hotpotqa', []));
  const cotSc = stored(null, { ...outgrew });

  it('ReAct→CoT-SC keeps an answer ReAct gave, and has none when ReAct gave none', () => {
    const react = stored('Paris', { forced_finish: false });
    expect(derived['react-cot-sc'].combine(item, [cotSc, react], options('paper'))).toMatchObject({
      answer: 'Paris',
      extra: { answer_from: 'react', majority_votes: 0, samples: [] },
    });
    const forced = stored('', { forced_finish: true });
    expect(derived['react-cot-sc'].combine(item, [cotSc, forced], options('paper'))).toMatchObject({
      answer: null,
      extra: { answer_from: 'cot-sc' },
    });
  });

  it('CoT-SC→ReAct: no votes are no majority, under either rule, so ReAct answers', () => {
    const react = stored('Paris', { forced_finish: false });
    for (const rule of ['paper', 'author'] as const) {
      expect(derived['cot-sc-react'].combine(item, [cotSc, react], options(rule))).toMatchObject({
        answer: 'Paris',
        extra: { answer_from: 'react', majority_votes: 0 },
      });
    }
  });

  it('carries the outcome of the episode whose answer it takes, unless a shorter step limit would have forced the finish first', () => {
    const split = stored(null, { samples: ['a', 'b', 'c'] }); // no majority: CoT-SC→ReAct takes ReAct's
    const steps = (n: number) => Array.from({ length: n }, (_, i) => ({ step: i + 1, action: 'Search[x]', observation: 'o' }));
    const outgrewAt = (step: number): StoredEpisode => ({
      ...stored(null, { ...outgrew, outcome_step: step }),
      steps: steps(step - 1) as StoredEpisode['steps'],
    });
    const judged = (maxSteps?: number) => ({ combination: { majorityRule: 'paper', maxSteps } }) as unknown as QaOptions;
    // As it ran (no limit given) and at a limit it reached the window within: carried.
    expect(derived['cot-sc-react'].combine(item, [split, outgrewAt(7)], judged()).extra).toMatchObject({
      outcome: 'context_exceeded',
      outcome_step: 7,
    });
    expect(derived['cot-sc-react'].combine(item, [split, outgrewAt(4)], judged(5)).extra).toMatchObject({ outcome: 'context_exceeded' });
    // Judged at 5 steps, a window reached at step 7 is never reached: no answer in time, no outcome.
    const at5 = derived['cot-sc-react'].combine(item, [split, outgrewAt(7)], judged(5));
    expect(at5.answer).toBeNull();
    expect(at5.extra?.outcome).toBeUndefined();
    // The CoT-SC side (one call, no step) is carried whatever the limit.
    const react = stored(null, { forced_finish: true });
    expect(derived['react-cot-sc'].combine(item, [cotSc, react], judged(5)).extra).toMatchObject({
      outcome: 'context_exceeded',
      answer_from: 'cot-sc',
    });
  });

  it('a CoT-SC record with no samples and no model limit is still refused', () => {
    expect(() => derived['react-cot-sc'].combine(item, [stored('x', {}), stored('Paris', {})], options('paper'))).toThrow(
      /stores no samples for item 7/,
    );
  });
});

describe('Figure 2 after a CoT-SC run with episodes that outgrew the window', () => {
  it('counts them over the same questions as Table 1: no vote at any k', () => {
    const dir = path.join(tmp, 'runs');
    const idx = [0, 1, 2, 3];
    // 0 and 1 right by every sample; 2 and 3 outgrew the window (no samples, scored 0).
    const over = (i: number) => (i < 2 ? { samples: [`gold ${i}`, `gold ${i}`, 'x'] } : { ...outgrew, answer: null });
    writeRun(dir, { runId: 'cot-sc', method: 'cot-sc', indices: idx, records: qaRecords(idx, 'rrww', over) });
    writeRun(dir, { runId: 'react', method: 'react', indices: idx, records: qaRecords(idx, 'rwwr') });
    const [s] = buildSweeps(loadRuns([dir], { warn: () => {} }));
    expect(s.questions).toBe(4);
    expect(s.n).toBe(3);
    // CoT-SC: 2 of 4 at every k, as Table 1 scores the run (EM 50.0).
    expect(s.series[0].em).toEqual([50, 50, 50]);
    // ReAct→CoT-SC: ReAct answered every item (right on 0 and 3), so CoT-SC is never asked.
    expect(s.series[1].em).toEqual([50, 50, 50]);
    // CoT-SC→ReAct: 0 and 1 by CoT-SC's majority, 3 by ReAct (its CoT-SC episode cast no vote).
    expect(s.series[2].em).toEqual([75, 75, 75]);
  });
});
