// The ALFWorld plug-in's declarations: items, split, item references, options, files, fidelity.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAlfworldBenchmark } from '../../../src/benchmarks/alfworld/index.js';
import { UserError } from '../../../src/errors.js';
import type { EpisodeResult } from '../../../src/methods/types.js';
import { paperGames } from '../../servers/alfworld-server.js';

const bench = createAlfworldBenchmark();
const repo = path.resolve(__dirname, '../../..');

describe('ALFWorld benchmark plug-in', () => {
  it("items are the paper's 134 games in loader order, with task type and goal", () => {
    expect(bench.name).toBe('alfworld');
    expect(bench.metrics).toEqual([{ key: 'success', label: 'Success' }]);
    expect(bench.size()).toBe(134);
    const it30 = bench.item(30);
    expect(it30).toEqual({ index: 30, id: paperGames[30], input: 'put a saltshaker in drawer.', meta: { task_type: 'put' } });
    expect(() => bench.item(134)).toThrow(UserError);
    expect(() => bench.item(-1)).toThrow(/0\.\.133/);
  });

  it('one split, valid_unseen, all 134 in order; --limit takes the first N', () => {
    expect(bench.splitNames()).toEqual(['valid_unseen']);
    expect(bench.defaultSplit).toBe('valid_unseen');
    const s = bench.split('valid_unseen');
    expect(s.indices).toEqual([...Array(134).keys()]);
    expect(bench.split('valid_unseen', { limit: 3 }).indices).toEqual([0, 1, 2]);
    expect(() => bench.split('train')).toThrow(/--split train/);
    expect(() => bench.split('valid_unseen', { limit: 0 })).toThrow(/--limit/);
  });

  it('env play names a game by name or index', () => {
    expect(bench.itemRefKey).toBe('game');
    expect(bench.itemByRef(paperGames[7]).index).toBe(7);
    expect(bench.itemByRef(7).id).toBe(paperGames[7]);
    expect(() => bench.itemByRef('pick_and_place_simple-X-None-Y-1/trial_0')).toThrow(/not one of the paper's 134 games/);
    expect(() => bench.itemByRef({})).toThrow(/"game": expected/);
  });

  it('methods, options, input files and fidelity', () => {
    expect(bench.methods).toEqual(['act', 'react']);
    expect(bench.defaultMethod).toBe('react');
    expect(Object.keys(bench.options)).toEqual(['env-url', 'games', 'alfworld-obs', 'prompt-set', 'env-timeout']);
    expect(bench.options['alfworld-obs'].choices).toEqual(['clean', 'raw']);
    expect(bench.inputFiles('react', bench.parseOptions({}))).toEqual([
      'prompts/alfworld_3prompts.json',
      'envs/alfworld/alfworld_tasks_suffix.json',
      'envs/alfworld/eval_out_of_distribution_134_games.json',
    ]);
    expect(
      bench.inputFiles('react', bench.parseOptions({ games: path.join(repo, 'envs/alfworld/eval_out_of_distribution_134_games.json') })),
    ).not.toContain('envs/alfworld/eval_out_of_distribution_134_games.json');
    expect(bench.fidelity!(bench.parseOptions({ promptSet: '0,2' }))).toMatchObject({
      promptSet: '0,2',
      maxActions: 49,
      success: 'won flag (not done)',
    });
    const m = bench.createMethod('act', bench.parseOptions({ promptSet: '2,1' }));
    expect(m.describe()).toMatchObject({ method: 'act', promptSet: '2,1', maxActions: 49, stop: ['\n'] });
    expect((m.describe().heads as Record<string, { exemplars: string[] }>).cool.exemplars).toEqual(['act_cool_2', 'act_cool_1']);
  });

  it('success is won on the done step; done alone (the step limit) or won without done scores 0', () => {
    const item = bench.item(0);
    const res = (done: boolean, won: boolean): EpisodeResult => ({
      answer: null,
      finalInfo: { won },
      reward: won ? 1 : 0,
      done,
      traj: '',
      steps: [],
      n_calls: 0,
      n_badcalls: 0,
    });
    expect(bench.score(item, res(true, true))).toEqual({ success: 1 });
    expect(bench.score(item, res(true, false))).toEqual({ success: 0 });
    expect(bench.score(item, res(false, true))).toEqual({ success: 0 });
    expect(bench.observe('think: x', { observation: 'Nothing happens.', reward: 0, done: false, info: {} })).toBe('OK.');
  });

  it('experiments/alfworld-table3.json runs the 6 prompt sets for Act and ReAct with valid settings', () => {
    const exp = JSON.parse(fs.readFileSync(path.join(repo, 'experiments/alfworld-table3.json'), 'utf8'));
    expect(exp.defaults).toEqual({ task: 'alfworld', split: 'valid_unseen' });
    const runs = exp.runs as { method: string; promptSet: string }[];
    for (const m of ['act', 'react']) {
      expect(
        runs
          .filter((r) => r.method === m)
          .map((r) => r.promptSet)
          .sort(),
      ).toEqual(['0,1', '0,2', '1,0', '1,2', '2,0', '2,1']);
    }
    for (const r of runs) expect(() => bench.createMethod(r.method, bench.parseOptions(r))).not.toThrow();
    const nb = JSON.parse(fs.readFileSync(path.join(repo, 'experiments/alfworld-notebook.json'), 'utf8'));
    expect(nb).toMatchObject({ task: 'alfworld', method: 'react', promptSet: '1,0' });
  });
});
