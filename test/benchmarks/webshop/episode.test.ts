// Whole Act and ReAct episodes: the benchmark's methods through runInteractive (src/methods/interactive.ts)
// with a scripted model against the test site, compared with the notebook's webshop_run.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InfraError } from '../../../src/errors.js';
import { VirtualClock } from '../../../src/util/clock.js';
import { createWebshopBenchmark, createWebshopEnvHandle } from '../../../src/benchmarks/webshop/index.js';
import { webshopContext } from '../../../src/benchmarks/webshop/loop.js';
import type { EnvHandle } from '../../../src/benchmarks/types.js';
import { ScriptedModel } from '../../support/scripted-model.js';
import { startWebshopSite, type WebshopSite } from '../../servers/webshop-site.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const PROMPTS = JSON.parse(fs.readFileSync(path.join(repo, 'prompts/webshop_prompts.json'), 'utf8')) as { react: string; act: string };
const bench = createWebshopBenchmark();

let site: WebshopSite;
let handle: EnvHandle;
beforeAll(async () => {
  site = await startWebshopSite();
  handle = createWebshopEnvHandle(
    { baseUrl: site.url, timeoutMs: 10_000, goals: 'check', serverErrors: 'observe' },
    { clock: new VirtualClock(), warn: () => {}, retry: { maxAttempts: 2 } },
  );
});
afterAll(async () => {
  await site.close();
});

const START_0 =
  '\nWebShop \nInstruction:  \ni need a long clip-in hair extension which is natural looking, and price lower than 20.00 dollars \n[Search] ';
const RESULTS =
  '\n[Back to Search] \nPage 1 (Total results: 4) \n[Next >] ' +
  '\n[B000DEO001] \nBright Citrus Deodorant by Test Mama | Natural & Safe for Sensitive Skin, 3-Ounce \n$10.99 ' +
  '\n[B000DEO002] \nGinger Fresh Deodorant by Test Mama, 3-Ounce \n$10.99 ' +
  '\n[B000DEO006] \nCalming Lavender Deodorant \n$12.50 ';
const ITEM_1 =
  '\n[Back to Search] \n[< Prev] \nscent [assorted scents][bright citrus][calming lavender]\nsize [travel set (4-pack)][3 ounce (pack of 1)]' +
  '\nBright Citrus Deodorant by Test Mama | Natural & Safe for Sensitive Skin, 3-Ounce \nPrice: $10.99 \nRating: N.A. ' +
  '\n[Description] \n[Features] \n[Reviews] \n[Buy Now] ';

describe('Act', () => {
  it('a purchase with the right options: reward 1, the notebook traj byte for byte, the prompts it sent', async () => {
    // Completions as an API would return them before the stop "\n" cut, with leading spaces.
    const model = ScriptedModel.sequence([
      ' search[bright citrus deodorant]\nObservation: made up',
      'click[B000DEO001]',
      '  click[bright citrus]',
      'click[3 ounce (pack of 1)]\n',
      ' click[Buy Now]',
    ]);
    const method = bench.createMethod('act', bench.parseOptions({}));
    const item = bench.item(0);
    const res = await method.run(item, { model, makeEnv: (i) => handle.makeEnv(i) });
    const history =
      `${START_0}\n\nAction:` +
      ` search[bright citrus deodorant]\nObservation: ${RESULTS}\n\nAction:` +
      ` click[B000DEO001]\nObservation: ${ITEM_1}\n\nAction:` +
      ` click[bright citrus]\nObservation: You have clicked bright citrus.\n\nAction:` +
      ` click[3 ounce (pack of 1)]\nObservation: You have clicked 3 ounce (pack of 1).\n\nAction:` +
      ` click[Buy Now]\nObservation: Your score (min 0.0, max 1.0): 1.0\n\nAction:`;
    expect(res.traj).toBe(PROMPTS.act + history);
    expect(res).toMatchObject({ reward: 1, done: true, n_calls: 5, n_badcalls: 0 });
    expect(res.steps.map((s) => [s.action, s.reward])).toEqual([
      ['search[bright citrus deodorant]', 0],
      ['click[B000DEO001]', 0],
      ['click[bright citrus]', 0],
      ['click[3 ounce (pack of 1)]', 0],
      ['click[Buy Now]', 1],
    ]);
    expect(bench.score(item, res)).toEqual({ score: 1, success: 1 });
    // The first call: init prompt + the opening (no "reset" is written); stop "\n"; greedy paper sampling.
    expect(model.requests[0]).toMatchObject({
      prompt: PROMPTS.act + `${START_0}\n\nAction:`,
      stop: ['\n'],
      temperature: 0,
      maxTokens: 100,
    });
    // The episode records the instruction and the goals check (fixed_0 is the vendored goal: a match).
    expect(res.extra).toMatchObject({
      session: 'fixed_0',
      instruction: 'i need a long clip-in hair extension which is natural looking, and price lower than 20.00 dollars',
      goal_check: { status: 'match' },
    });
  });

  it('a wrong purchase scores its partial reward and is no success', async () => {
    const model = ScriptedModel.sequence(['search[deodorant]', 'click[B000DEO001]', 'click[calming lavender]', 'click[Buy Now]']);
    const item = bench.item(1);
    const res = await bench.createMethod('act', bench.parseOptions({})).run(item, { model, makeEnv: (i) => handle.makeEnv(i) });
    expect(res).toMatchObject({ reward: 0.5, done: true });
    expect(bench.score(item, res)).toEqual({ score: 0.5, success: 0 });
  });
});

describe('ReAct', () => {
  it('thinks ("OK."), recovers from an invalid action, buys; the traj is the notebook\'s', async () => {
    const model = ScriptedModel.sequence([
      'think[I should search for deodorant.]',
      'search[deodorant]',
      'click[Next >]',
      'think[B000DEO001 looks right.]',
      'click[B000DEO001]',
      'click[bright citrus]',
      'click[3 ounce (pack of 1)]',
      'click[Buy Now]',
    ]);
    const item = bench.item(2);
    const res = await bench.createMethod('react', bench.parseOptions({})).run(item, { model, makeEnv: (i) => handle.makeEnv(i) });
    const start =
      "\nWebShop \nInstruction:  \ni'm looking for hair treatments that are sulfate and paraben free and are of high quality too. i need it in bottle for with 60 capsules, and price lower than 50.00 dollars \n[Search] ";
    const history =
      `${start}\n\nAction:` +
      ` think[I should search for deodorant.]\nObservation: OK.\n\nAction:` +
      ` search[deodorant]\nObservation: ${RESULTS}\n\nAction:` +
      ` click[Next >]\nObservation: Invalid action!\n\nAction:` +
      ` think[B000DEO001 looks right.]\nObservation: OK.\n\nAction:` +
      ` click[B000DEO001]\nObservation: ${ITEM_1}\n\nAction:` +
      ` click[bright citrus]\nObservation: You have clicked bright citrus.\n\nAction:` +
      ` click[3 ounce (pack of 1)]\nObservation: You have clicked 3 ounce (pack of 1).\n\nAction:` +
      ` click[Buy Now]\nObservation: Your score (min 0.0, max 1.0): 1.0\n\nAction:`;
    expect(res.traj).toBe(PROMPTS.react + history);
    expect(res).toMatchObject({ reward: 1, done: true, n_calls: 8 });
    expect(res.steps[2]).toMatchObject({ action: 'click[Next >]', observation: 'Invalid action!', reward: 0 });
    expect(bench.score(item, res)).toEqual({ score: 1, success: 1 });
  });

  it('at most 15 environment steps counting the reset: 14 model turns, then score 0; the context keeps the last 6400 - len(prompt) characters', async () => {
    // Browsing without buying: a long history that the context window truncates.
    const cycle = ['click[B000DEO001]', 'click[< Prev]'];
    const model = ScriptedModel.sequence([
      `think[${'long thought '.repeat(60)}]`,
      'search[deodorant]',
      ...Array.from({ length: 12 }, (_, i) => cycle[i % 2]),
    ]);
    const item = bench.item(3);
    const res = await bench.createMethod('react', bench.parseOptions({})).run(item, { model, makeEnv: (i) => handle.makeEnv(i) });
    expect(res.n_calls).toBe(14);
    expect(res.steps).toHaveLength(14);
    expect(res.done).toBe(false);
    expect(bench.score(item, res)).toEqual({ score: 0, success: 0 });
    // Each prompt = init prompt + the history so far, cut to its last (6400 - len(init prompt)) characters.
    const history = res.traj.slice(PROMPTS.react.length);
    const ends: number[] = [];
    for (let at = history.indexOf('\n\nAction:'); at >= 0; at = history.indexOf('\n\nAction:', at + 1))
      ends.push(at + '\n\nAction:'.length);
    expect(ends).toHaveLength(15);
    model.requests.forEach((req, k) => {
      const soFar = history.slice(0, ends[k]);
      expect(req.prompt).toBe(PROMPTS.react + soFar.slice(-(6400 - PROMPTS.react.length)));
    });
    expect(model.requests[13].prompt.length).toBe(6400);
    expect(history.length).toBeGreaterThan(6400 - PROMPTS.react.length);
  });

  it('webshopContext slices by code points, as Python does', () => {
    const head = 'h'.repeat(6398);
    expect(webshopContext(head, 'ab😀')).toBe(head + 'b😀');
    expect(webshopContext('x'.repeat(6400), 'abc')).toBe('x'.repeat(6400) + 'abc');
    expect(webshopContext('x'.repeat(6401), 'abc')).toBe('x'.repeat(6401) + 'bc');
  });
});

describe('outages', () => {
  it('a site that is down makes the episode an InfraError (recorded as an error), never a score of 0', async () => {
    await site.stop();
    try {
      const model = ScriptedModel.sequence([]);
      await expect(
        bench.createMethod('act', bench.parseOptions({})).run(bench.item(4), { model, makeEnv: (i) => handle.makeEnv(i) }),
      ).rejects.toBeInstanceOf(InfraError);
      expect(model.requests).toHaveLength(0);
    } finally {
      await site.start();
    }
  });

  it('the site failing mid-episode is an InfraError too', async () => {
    const model = ScriptedModel.sequence(['search[deodorant]', 'click[B000DEO001]']);
    const run = bench.createMethod('act', bench.parseOptions({})).run(bench.item(5), {
      model,
      makeEnv: (i) => {
        const env = handle.makeEnv(i);
        const step = env.step.bind(env);
        env.step = async (a, o) => {
          if (a === 'click[B000DEO001]') site.setFault({ kind: '503' });
          return step(a, o);
        };
        return env;
      },
    });
    try {
      await expect(run).rejects.toBeInstanceOf(InfraError);
    } finally {
      site.setFault(undefined);
    }
  });
  it("each retry reaches the run's onRetry hook (the progress line counts them)", async () => {
    const events: unknown[] = [];
    const clock = new VirtualClock();
    const h = createWebshopEnvHandle(
      { baseUrl: site.url, timeoutMs: 10_000, goals: 'off', serverErrors: 'observe' },
      { clock, random: () => 0.5, onRetry: (e) => events.push(e) },
    );
    site.setFault({ kind: '503', count: 2, retryAfter: '7' });
    try {
      await h.makeEnv(bench.item(6)).reset();
    } finally {
      site.setFault(undefined);
    }
    expect(clock.sleeps).toEqual([7000, 7000]);
    expect(events).toEqual(
      [1, 2].map((attempt) => expect.objectContaining({ service: 'WebShop site', attempt, reason: 'HTTP 503', delayMs: 7000 })),
    );
  });
});
