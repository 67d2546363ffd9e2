// alfworld_run (§8) through runInteractive against the test household: the final prompt of a scripted
// game character for character (raw and cleaned text), won and lost games, and the records' fields.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlfworldBenchmark, createAlfworldEnvHandle } from '../../../src/benchmarks/alfworld/index.js';
import { resolveEnvSettings } from '../../../src/benchmarks/alfworld/options.js';
import type { Item } from '../../../src/benchmarks/types.js';
import type { EpisodeResult } from '../../../src/methods/types.js';
import { ScriptedModel } from '../../support/scripted-model.js';
import { paperGames, solution, startAlfworldServer, type AlfworldServer } from '../../servers/alfworld-server.js';

const repo = path.resolve(__dirname, '../../..');
const d = JSON.parse(fs.readFileSync(path.join(repo, 'prompts/alfworld_3prompts.json'), 'utf8'));
const bench = createAlfworldBenchmark();

let raw: AlfworldServer;
let clean: AlfworldServer;
let short: AlfworldServer;
let noClose: AlfworldServer;
beforeAll(async () => {
  raw = await startAlfworldServer({ observations: 'raw' });
  clean = await startAlfworldServer();
  short = await startAlfworldServer({ stepLimit: 5 });
  noClose = await startAlfworldServer({ close: false });
});
afterAll(async () => {
  await Promise.all([raw, clean, short, noClose].map((s) => s?.close()));
});

async function play(srv: AlfworldServer, item: Item, completions: string[], settings: Record<string, unknown> = {}) {
  const model = ScriptedModel.sequence(completions);
  const handle = createAlfworldEnvHandle(resolveEnvSettings({ envUrl: srv.url, ...settings }));
  const method = bench.createMethod((settings.method as string) ?? 'react', bench.parseOptions(settings));
  const result: EpisodeResult = await method.run(item, { model, makeEnv: handle.makeEnv });
  return { result, model, score: bench.score(item, result), handle };
}

// Game 30: "put a saltshaker in drawer." In the household the saltshaker is in the closed cabinet 6.
const SALT = 30;
const saltScript = [
  ' think: To solve the task, I need to find and take a saltshaker, then put it in a drawer.\n> think: more',
  ' go to cabinet 6',
  ' take saltshaker 1 from cabinet 6', // the cabinet is closed: "Nothing happens."
  'open cabinet 6\n',
  '  take saltshaker 1 from cabinet 6 \t',
  ' go to drawer 3',
  ' open drawer 3',
  ' put saltshaker 1 in/on drawer 3',
];
const saltTraj =
  'Interact with a household to solve a task. Here are two examples.\n' +
  d.react_put_1 +
  d.react_put_0 +
  '\nHere is the task.\n' +
  'You are in the middle of a room. Looking quickly around you, you see a cabinet 6, a cabinet 5, a cabinet 4, a cabinet 3, a cabinet 2, a cabinet 1, a coffeemachine 1, a countertop 3, a countertop 2, a countertop 1, a drawer 3, a drawer 2, a drawer 1, a fridge 1, a garbagecan 1, a microwave 1, a shelf 3, a shelf 2, a shelf 1, a sinkbasin 1, a stoveburner 4, a stoveburner 3, a stoveburner 2, a stoveburner 1, and a toaster 1.\n' +
  'Your task is to: put a saltshaker in drawer.\n>' +
  ' think: To solve the task, I need to find and take a saltshaker, then put it in a drawer.\nOK.\n>' +
  ' go to cabinet 6\nThe cabinet 6 is closed.\n>' +
  ' take saltshaker 1 from cabinet 6\nNothing happens.\n>' +
  ' open cabinet 6\nYou open the cabinet 6. The cabinet 6 is open. In it, you see a saltshaker 1.\n>' +
  ' take saltshaker 1 from cabinet 6\nYou pick up the saltshaker 1 from the cabinet 6.\n>' +
  ' go to drawer 3\nThe drawer 3 is closed.\n>' +
  ' open drawer 3\nYou open the drawer 3. The drawer 3 is open. In it, you see nothing.\n>' +
  ' put saltshaker 1 in/on drawer 3\nYou put the saltshaker 1 in/on the drawer 3.\n>';

describe('alfworld_run through runInteractive', () => {
  it('raw text: the final prompt equals the notebook\'s, character for character (banner and "You arrive at loc N. " removed, think → OK., invalid action kept)', async () => {
    const item = bench.item(SALT);
    expect(item.id).toBe(paperGames[SALT]);
    const { result, model, score } = await play(raw, item, saltScript, { alfworldObs: 'raw' });
    expect(result.traj).toBe(saltTraj);
    expect(score).toEqual({ success: 1 });
    expect(result.done).toBe(true);
    expect(result.reward).toBe(1);
    expect(result.n_calls).toBe(8);
    // Every call completes the prompt so far, with stop ["\n"] and the paper's greedy sampling.
    expect(model.requests[0].prompt).toBe(
      saltTraj.slice(0, saltTraj.indexOf(' think: To solve the task, I need to find and take a saltshaker')),
    );
    expect(model.requests[7].prompt).toBe(saltTraj.slice(0, saltTraj.lastIndexOf(' put saltshaker')));
    for (const r of model.requests) {
      expect(r.stop).toEqual(['\n']);
      expect(r).toMatchObject({ temperature: 0, maxTokens: 100, topP: 1 });
    }
    // The think action still went to the game (which said "Nothing happens."): only the prompt says OK.
    const steps = raw.requests.filter((r) => r.path === '/step').map((r) => r.body!.action);
    expect(steps[0]).toBe('think: To solve the task, I need to find and take a saltshaker, then put it in a drawer.');
    expect(steps[2]).toBe('take saltshaker 1 from cabinet 6');
    expect(result.steps[0]).toEqual({ step: 1, action: steps[0], observation: 'OK.', reward: 0 });
    expect(result.steps[1].observation).toBe('The cabinet 6 is closed.');
    expect(result.extra).toMatchObject({ task_type: 'put', game: paperGames[SALT], game_id: SALT });
  });

  it('cleaned text from the server gives the same prompt (one adapter for both)', async () => {
    const { result, handle } = await play(clean, bench.item(SALT), saltScript);
    expect(result.traj).toBe(saltTraj);
    // The episode had an env id of its own; the handle frees it when the run closes it.
    expect(clean.requests.filter((r) => r.path === '/create')).toHaveLength(1);
    expect(clean.requests.filter((r) => r.path === '/close')).toHaveLength(0);
    await handle.close!();
    expect(clean.requests.filter((r) => r.path === '/close').map((r) => r.body)).toEqual([{ id: 0 }]);
    expect(clean.liveEnvs()).toEqual([]);
    const reset = clean.requests.find((r) => r.path === '/reset')!;
    expect(reset.body).toEqual({ id: 0, game: SALT, world_type: 'Text' });
  });

  it('wins each of the six task types (Act prompts too), and success is the won flag', async () => {
    const picks = ['put', 'clean', 'heat', 'cool', 'examine', 'puttwo'].map((t) =>
      paperGames.findIndex((_, i) => bench.item(i).meta?.task_type === t),
    );
    expect(picks.every((i) => i >= 0)).toBe(true);
    for (const [k, idx] of picks.entries()) {
      const item = bench.item(idx);
      const acts = solution(item.id).map((a) => ` ${a}`);
      const { result, score } = await play(clean, item, acts, { method: k % 2 ? 'act' : 'react', promptSet: '2,0' });
      expect(score).toEqual({ success: 1 });
      expect(result.steps).toHaveLength(acts.length);
      expect(result.extra?.task_type).toBe(item.meta?.task_type);
      const kind = k % 2 ? 'act' : 'react';
      const t = item.meta?.task_type as string;
      expect(
        result.traj.startsWith(
          'Interact with a household to solve a task. Here are two examples.\n' +
            d[`${kind}_${t}_2`] +
            d[`${kind}_${t}_0`] +
            '\nHere is the task.\n',
        ),
      ).toBe(true);
    }
  });

  it('lost: 49 actions without winning end the episode without done (success 0, no 50th call)', async () => {
    const item = bench.item(0);
    const { result, model, score } = await play(clean, item, Array(60).fill(' look'));
    expect(model.requests).toHaveLength(49);
    expect(result.steps).toHaveLength(49);
    expect(result.done).toBe(false);
    expect(score).toEqual({ success: 0 });
    expect(result.traj.endsWith(' look\nYou are in the middle of a room. Looking quickly around you, you see nothing.\n>')).toBe(true);
  });

  it("lost: done at the env's step limit without won is a failure, not a success", async () => {
    const { result, model, score } = await play(short, bench.item(1), Array(10).fill(' inventory'));
    expect(model.requests).toHaveLength(5);
    expect(result.done).toBe(true);
    expect(result.reward).toBe(0);
    expect(score).toEqual({ success: 0 });
  });

  it('a server without /close (agentenv-alfworld): its 404 is ignored and not asked again', async () => {
    const handle = createAlfworldEnvHandle(resolveEnvSettings({ envUrl: noClose.url }));
    const method = bench.createMethod('react', bench.parseOptions({}));
    // Two episodes at once hold two env ids; both are free when the handle closes.
    const results = await Promise.all(
      [2, 3].map((idx) =>
        method.run(bench.item(idx), { model: ScriptedModel.sequence(solution(paperGames[idx])), makeEnv: handle.makeEnv }),
      ),
    );
    results.forEach((r, k) => expect(bench.score(bench.item(2 + k), r)).toEqual({ success: 1 }));
    expect(noClose.requests.filter((r) => r.path === '/create')).toHaveLength(2);
    await handle.close!();
    expect(noClose.requests.filter((r) => r.path === '/close')).toHaveLength(1);
    await handle.close!();
    expect(noClose.requests.filter((r) => r.path === '/close')).toHaveLength(1);
  });
});
