// Record/replay at the Env interface, the run recording, the tar format, and bundle → re-run through
// executeRun with doubles: an environment that never answers the same twice (so only a replay can be
// identical), a model behind the real SQLite completion cache, retried episodes, --cache off runs.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Benchmark, EnvHandle, Item } from '../../src/benchmarks/types.js';
import type { Env, StepResult } from '../../src/envs/types.js';
import type { CompletionModel, CompletionRequest, CompletionResult } from '../../src/llm/types.js';
import type { Method } from '../../src/methods/types.js';
import { CacheStore } from '../../src/llm/cache/store.js';
import { CallLedger } from '../../src/methods/episode.js';
import { InfraError } from '../../src/errors.js';
import { recordingEnvHandle, replayEnvHandle, ReplayDivergence, type EnvEvent } from '../../src/envs/recording.js';
import { executeRun, type RunDeps } from '../../src/run/execute.js';
import { openBundle, packBundle } from '../../src/run/bundle.js';
import { compareEpisodes, runFromBundle } from '../../src/run/from-bundle.js';
import { tarPack, tarUnpack } from '../../src/util/tar.js';
import { fakeBenchmark, quietIO } from './doubles.js';
import { parseRecording } from '../../src/runlog/schema.js';
import { readRecording } from '../../src/runlog/store.js';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bundle-'));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const item = (index: number): Item => ({ index, id: `q${index}`, input: `question ${index}?`, gold: `answer${index}` });

/** An environment whose observations carry a random token: a live re-run never matches, a replay does. */
function noisyEnv(it: Item, failFirst: Set<number>): Env {
  let steps = 0;
  return {
    reset: async () => ({ observation: `Question: ${it.input}`, info: { token: randomBytes(4).toString('hex') } }),
    step: async (action: string): Promise<StepResult> => {
      steps++;
      if (failFirst.delete(it.index)) throw new InfraError(`wiki unreachable (item ${it.index})`, 'env');
      const done = action.startsWith('Finish');
      return {
        observation: `${action} -> ${randomBytes(4).toString('hex')}`,
        reward: done ? 1 : 0,
        done,
        info: { steps, answer: done ? `answer${it.index}` : null },
      };
    },
  };
}

/** A two-turn loop over the env: search, then finish (the model decides the actions). */
const loopMethod: Method = {
  name: 'react',
  needsEnv: true,
  describe: () => ({ loop: 'test' }),
  async run(it, ctx) {
    const env = ctx.makeEnv!(it);
    const ledger = new CallLedger(ctx.model, ctx.signal);
    let history = (await env.reset({ signal: ctx.signal })).observation + '\n';
    const steps = [];
    let last: StepResult | undefined;
    for (let i = 1; i <= 3 && !last?.done; i++) {
      const action = (await ledger.llm(history + `Action ${i}:`, ['\n'])).trim();
      last = await env.step(action, { signal: ctx.signal });
      steps.push({ step: i, action, observation: last.observation });
      history += `Action ${i}: ${action}\nObservation ${i}: ${last.observation}\n`;
    }
    return {
      answer: (last?.info.answer as string | null) ?? null,
      reward: last?.reward ?? 0,
      traj: history,
      steps,
      n_calls: ledger.calls,
      n_badcalls: 0,
    };
  },
};

/** The model behind the cache: searches on turn 1, finishes on turn 2; usage as a server reports it. */
function scriptedModel(): CompletionModel & { calls: number } {
  const m = {
    model: 'test-model',
    calls: 0,
    describe: () => ({
      backend: 'openai-compatible',
      model: 'test-model',
      api: 'completions',
      pricesUsdPer1M: { prompt: 1, completion: 2 },
    }),
    async complete(req: CompletionRequest): Promise<CompletionResult> {
      m.calls++;
      const text = req.prompt.endsWith('Action 1:') ? ' Search[x]' : ' Finish[y]';
      const usage = { promptTokens: req.prompt.length, completionTokens: 3 * req.n, totalTokens: req.prompt.length + 3 * req.n };
      // n > 1 (sampling): a different answer per sample, as a sampled model gives
      const choices = Array.from({ length: req.n }, (_, index) => ({
        index,
        text: req.n > 1 ? ` ${randomBytes(3).toString('hex')}` : text,
        finishReason: 'stop',
      }));
      return { choices, usage, costUsd: (usage.promptTokens + 2 * usage.completionTokens) / 1e6, cachedChoices: 0, latencyMs: 5 };
    },
  };
  return m;
}

/** CoT-SC-like: one call for several samples, no environment. */
const samplingMethod: Method = {
  name: 'cot-sc',
  needsEnv: false,
  describe: () => ({ samples: 3 }),
  async run(it, ctx) {
    const ledger = new CallLedger(ctx.model, ctx.signal);
    const choices = await ledger.complete({
      prompt: `Question: ${it.input}\nThought:`,
      stop: ['\n'],
      maxTokens: 100,
      temperature: 0.7,
      topP: 1,
      n: 3,
      frequencyPenalty: 0,
      presencePenalty: 0,
    });
    const samples = choices.map((c) => c.text.trim());
    return {
      answer: samples[0],
      traj: samples.join('|'),
      steps: [],
      n_calls: 1,
      n_badcalls: 0,
      extra: { samples },
    };
  },
};

interface World {
  deps: RunDeps;
  getBenchmark: (name: string) => Benchmark;
  inner: ReturnType<typeof scriptedModel>;
  envCalls: { n: number };
}

function world(opts: { cache?: 'rw' | 'off'; failFirst?: number[]; cacheFile?: string } = {}): World {
  const failFirst = new Set(opts.failFirst ?? []);
  const envCalls = { n: 0 };
  const inner = scriptedModel();
  const base = fakeBenchmark('hotpotqa', { createMethod: (name) => (name === 'cot-sc' ? samplingMethod : loopMethod) });
  const handle: EnvHandle = {
    makeEnv: (it) => {
      envCalls.n++;
      return noisyEnv(it, failFirst);
    },
    describe: () => ({ kind: 'live', url: 'http://127.0.0.1:1' }),
  };
  const bench: Benchmark = { ...base, createEnv: async () => handle };
  const getBenchmark = () => bench;
  const deps: RunDeps = {
    getBenchmark,
    createModel: async () =>
      opts.cache === 'off'
        ? { backend: inner }
        : {
            backend: inner,
            cache: new CacheStore({ mode: 'rw', path: path.join(tmp, opts.cacheFile ?? 'cache.sqlite'), api: 'completions' }),
          },
    secrets: () => [],
  };
  return { deps, getBenchmark, inner, envCalls };
}

const settings = (resultsDir: string) => ({
  task: 'hotpotqa',
  method: 'react',
  model: 'test-model',
  indices: '0,1,2',
  resultsDir,
  concurrency: 3,
});

describe('recordingEnvHandle / replayEnvHandle', () => {
  it('records resets and steps per item and attempt, and replays them; another action is a divergence', async () => {
    const events: EnvEvent[] = [];
    const handle = recordingEnvHandle(
      { makeEnv: (it) => noisyEnv(it, new Set([1])), describe: () => ({ kind: 'x' }) },
      (e) => events.push(e),
      { attemptPrefix: 's.' },
    );
    const env0 = handle.makeEnv(item(0));
    const reset = await env0.reset();
    const s1 = await env0.step('Search[a]');
    const env1 = handle.makeEnv(item(1));
    await env1.reset();
    await expect(env1.step('Search[b]')).rejects.toThrow(InfraError);
    expect(events.map((e) => [e.item, e.attempt, e.step, e.call, e.action ?? null, e.error?.name ?? null])).toEqual([
      [0, 's.0', 0, 'reset', null, null],
      [0, 's.0', 1, 'step', 'Search[a]', null],
      [1, 's.1', 0, 'reset', null, null],
      [1, 's.1', 1, 'step', 'Search[b]', 'InfraError'],
    ]);
    const traces = new Map([0, 1].map((i) => [i, events.filter((e) => e.item === i)]));
    const replay = replayEnvHandle(traces, { describe: { kind: 'x' } });
    expect(replay.describe()).toEqual({ kind: 'x' });
    const r0 = replay.makeEnv(item(0));
    expect(await r0.reset()).toEqual(reset);
    expect(await r0.step('Search[a]')).toEqual(s1);
    await expect(r0.step('Search[a]')).rejects.toThrow(
      'replay diverged at episode 0, step 2: action "Search[a]" is not in the bundle (the recorded episode ended after 2 environment calls)',
    );
    const r1 = replay.makeEnv(item(1));
    await r1.reset();
    // the recorded outage replays as the same InfraError (an error record, not a divergence)
    const err = await r1.step('Search[b]').catch((e) => e);
    expect(err).toBeInstanceOf(InfraError);
    expect(err.message).toBe('wiki unreachable (item 1)');
    const r0b = replayEnvHandle(traces, { describe: {} }).makeEnv(item(0));
    await r0b.reset();
    const d = await r0b.step('Search[other]').catch((e) => e);
    expect(d).toBeInstanceOf(ReplayDivergence);
    expect(d.message).toBe(
      'replay diverged at episode 0, step 1: action "Search[other]" is not in the bundle (recorded: action "Search[a]")',
    );
    await expect(replayEnvHandle(traces, { describe: {} }).makeEnv(item(7)).reset()).rejects.toThrow(
      'replay diverged at episode 7, step 0: reset is not in the bundle (the bundle holds no environment traffic for this episode)',
    );
  });
});

describe('tar', () => {
  it('round-trips members, long names through a PAX header, and reads back what GNU tar lists', () => {
    const long = `runs/${'x'.repeat(150)}/${'y'.repeat(120)}.jsonl`;
    const entries = [
      { name: 'bundle.json', data: Buffer.from('{}\n') },
      { name: `runs/${'r'.repeat(120)}/episodes.jsonl`, data: Buffer.from('a'.repeat(513)) },
      { name: long, data: Buffer.from('é\n') },
      { name: 'empty', data: Buffer.alloc(0) },
    ];
    const tar = tarPack(entries);
    expect(tar.length % 512).toBe(0);
    expect(tarUnpack(tar, 't').map((e) => [e.name, e.data.toString()])).toEqual(entries.map((e) => [e.name, e.data.toString()]));
    const sys = spawnSync('tar', ['--version'], { encoding: 'utf8' });
    if (sys.status === 0) {
      const file = path.join(tmp, 't.tar.gz');
      fs.writeFileSync(file, zlib.gzipSync(tar));
      const listed = spawnSync('tar', ['tzf', file], { encoding: 'utf8' });
      expect(listed.status).toBe(0);
      expect(listed.stdout.trim().split('\n')).toEqual(entries.map((e) => e.name));
    }
    const bad = Buffer.from(tar);
    bad[10] ^= 1;
    expect(() => tarUnpack(bad, 'b.tar')).toThrow('b.tar: not a tar archive, or damaged (bad header checksum at byte 0)');
    expect(() => tarPack([{ name: '../x', data: Buffer.alloc(1) }])).toThrow(/unsafe member name/);
  });
});

describe('bundle and run --from-bundle (executeRun with doubles)', () => {
  it('re-runs a recorded run with no model and no environment: identical records, accounting included', async () => {
    const { io } = quietIO();
    const w = world();
    const first = await executeRun(settings(path.join(tmp, 'results')), w.deps, io);
    expect(first.status).toBe('complete');
    expect(w.inner.calls).toBe(6);
    const rec = readRecording(first.dir);
    expect(rec.sessions).toHaveLength(1);
    expect(rec.sessions[0]).toMatchObject({ model: 'test-model', api: 'completions' });
    expect([...rec.final.keys()].sort()).toEqual([0, 1, 2]);
    const a0 = rec.final.get(0)!;
    expect(a0.env.map((e) => e.call)).toEqual(['reset', 'step', 'step']);
    expect(a0.llm.map((l) => [l.call, l.step, l.n, l.cached])).toEqual([
      [0, 1, 1, 0],
      [1, 2, 1, 0],
    ]);

    const out = path.join(tmp, 'b.tar.gz');
    const packed = packBundle([first.dir, first.dir], out);
    expect(packed.manifest.runs).toHaveLength(1); // the same run given twice is packed once
    expect(packed.manifest.cache).toMatchObject({ entries: 6, samples: 6, fromCache: 6, fromRecording: 0 });
    const opened = openBundle(out);
    expect(opened.sha256).toBe(packed.sha256);
    const cacheLines = opened.members
      .get('cache/completions.jsonl')!
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(cacheLines[0]).toMatchObject({ source: 'cache', model: 'test-model', samples: [{ index: 0, callN: 1 }] });
    expect(JSON.parse(cacheLines[0].request)).toHaveProperty('prompt'); // the canonical request the key hashes

    const again = world();
    const rerun = path.join(tmp, 'rerun');
    const replayed = await runFromBundle(out, { resultsDir: rerun, getBenchmark: again.getBenchmark }, io);
    expect(replayed).toHaveLength(1);
    expect(replayed[0]).toMatchObject({ runId: first.runId, status: 'complete', compared: 3 });
    expect(again.inner.calls).toBe(0);
    expect(again.envCalls.n).toBe(0);
    const norm = (f: string) =>
      fs
        .readFileSync(f, 'utf8')
        .trim()
        .split('\n')
        .map((l) => {
          const r = JSON.parse(l);
          delete r.latency_ms;
          return JSON.stringify(r);
        })
        .sort();
    expect(norm(path.join(replayed[0].dir, 'episodes.jsonl'))).toEqual(norm(path.join(first.dir, 'episodes.jsonl')));
    const r0 = JSON.parse(fs.readFileSync(path.join(first.dir, 'episodes.jsonl'), 'utf8').split('\n')[0]);
    expect(r0.usage.total_tokens).toBeGreaterThan(0);
    expect(r0.cost).toBeGreaterThan(0);

    // A live re-run of the same settings (own cache) is not identical: the environment's tokens change.
    const live = await executeRun(settings(path.join(tmp, 'live')), world({ cacheFile: 'other.sqlite' }).deps, io);
    expect(
      compareEpisodes(
        fs.readFileSync(path.join(first.dir, 'episodes.jsonl'), 'utf8'),
        fs.readFileSync(path.join(live.dir, 'episodes.jsonl'), 'utf8'),
        { bundled: 'a', rerun: 'b' },
      ),
    ).toMatch(
      /^episode \d: traj differs at character \d+ \(bundle "…[^"]*Search\[x\] -> [0-9a-f]{8}\\nAction 2: Finish\[y\][^"]*", re-run "…[^"]*-> [0-9a-f]{8}[^"]*"\)$/,
    );
  });

  it('replays the attempt whose record the run kept: an error episode retried, then a cache-hit rerun', async () => {
    const { io } = quietIO();
    const w = world({ failFirst: [1] });
    const s = settings(path.join(tmp, 'results'));
    const first = await executeRun(s, w.deps, io);
    expect(first.summary.n_errors).toBe(1);
    const retried = await executeRun({ ...s, retryErrors: true }, w.deps, io);
    expect(retried.summary.n_errors).toBe(0);
    const rec = readRecording(first.dir);
    expect(rec.sessions).toHaveLength(2);
    const attempts1 = rec.attempts.filter((a) => a.item === 1);
    expect(attempts1.map((a) => a.written)).toEqual([true, true]);
    expect(rec.final.get(1)).toBe(attempts1[1]);
    // the retry's first call was served by the cache (cached: 1, no tokens spent), the second was not
    expect(attempts1[1].llm.map((l) => [l.cached, l.usage!.totalTokens === 0])).toEqual([
      [1, true],
      [0, false],
    ]);
    const out = path.join(tmp, 'b.tar.gz');
    packBundle([first.dir], out);
    const replayed = await runFromBundle(out, { resultsDir: path.join(tmp, 'rerun'), getBenchmark: world().getBenchmark }, io);
    expect(replayed[0].status).toBe('complete');
    const line = (dir: string, idx: number) =>
      fs
        .readFileSync(path.join(dir, 'episodes.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((r) => r.idx === idx)
        .at(-1);
    const orig1 = line(first.dir, 1);
    expect(orig1.cached_calls).toBe(1);
    expect(line(replayed[0].dir, 1)).toEqual({ ...orig1, latency_ms: line(replayed[0].dir, 1).latency_ms });
  });

  it('bundles a --cache off run from its recording, and an error episode replays as the same error', async () => {
    const { io } = quietIO();
    const w = world({ cache: 'off', failFirst: [2] });
    const first = await executeRun(settings(path.join(tmp, 'results')), w.deps, io);
    expect(first.summary.n_errors).toBe(1);
    const out = path.join(tmp, 'off.tar.gz');
    const packed = packBundle([first.dir], out);
    expect(packed.manifest.cache).toMatchObject({ entries: 5, fromCache: 0, fromRecording: 5 });
    const replayed = await runFromBundle(out, { resultsDir: path.join(tmp, 'rerun'), getBenchmark: world().getBenchmark }, io);
    expect(replayed[0]).toMatchObject({ status: 'complete', compared: 3 });
    const err = fs
      .readFileSync(path.join(replayed[0].dir, 'episodes.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((r) => r.idx === 2);
    expect(err.error).toEqual({ source: 'env', message: 'wiki unreachable (item 2)' });
  });

  it('a method without an environment, sampling several completions per call, replays from the cache entries', async () => {
    const { io } = quietIO();
    const first = await executeRun({ ...settings(path.join(tmp, 'results')), method: 'cot-sc' }, world().deps, io);
    const out = path.join(tmp, 'sc.tar.gz');
    const packed = packBundle([first.dir], out);
    expect(packed.manifest.cache).toMatchObject({ entries: 3, samples: 9, fromCache: 3 });
    expect(packed.manifest.runs[0]).toMatchObject({ envCalls: 0, modelCalls: 3 });
    const again = world();
    const replayed = await runFromBundle(out, { resultsDir: path.join(tmp, 'rerun'), getBenchmark: again.getBenchmark }, io);
    expect(replayed[0]).toMatchObject({ status: 'complete', compared: 3 });
    expect(again.inner.calls).toBe(0);
    const samples = (dir: string) =>
      fs
        .readFileSync(path.join(dir, 'episodes.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .sort((a, b) => a.idx - b.idx)
        .map((r) => r.samples);
    expect(samples(replayed[0].dir)).toEqual(samples(first.dir));
    expect(samples(first.dir)[0]).toHaveLength(3);
  });

  it('a re-run pays for nothing: its session spent 0, also when it diverges; the records keep what the original spent', async () => {
    const { io } = quietIO();
    const first = await executeRun(settings(path.join(tmp, 'results')), world().deps, io);
    expect(first.spent).toMatchObject({ calls: 6 });
    expect(first.spent!.cost_usd).toBeGreaterThan(0);
    const out = path.join(tmp, 'b.tar.gz');
    packBundle([first.dir], out);
    const manifest = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    const spentColumns = (dir: string) => {
      const [head, row] = fs.readFileSync(path.join(dir, 'summary.csv'), 'utf8').trim().split('\n');
      const vals = row.split(',');
      return head.split(',').flatMap((c, i) => (c.startsWith('spent_') ? [vals[i]] : []));
    };
    const nothing = { calls: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cost_usd: 0, paid_unknown_calls: 0 };

    const [replayed] = await runFromBundle(out, { resultsDir: path.join(tmp, 'rerun'), getBenchmark: world().getBenchmark }, io);
    expect(replayed).toMatchObject({ status: 'complete', spent: nothing });
    expect(replayed.summary).toMatchObject({ spent_tokens: 0, spent_cost_usd: 0, total_tokens: first.summary.total_tokens });
    expect(manifest(replayed.dir).sessions.map((x: { spent: unknown }) => x.spent)).toEqual([nothing]);
    expect(spentColumns(replayed.dir)).toEqual(['0', '0']);
    // The records are the original's, what each episode spent then included.
    const spentOf = (dir: string) =>
      fs
        .readFileSync(path.join(dir, 'episodes.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .sort((a, b) => a.idx - b.idx)
        .map((r) => [r.usage, r.cost, r.spent_usage, r.spent_cost, r.cached_calls]);
    expect(spentOf(replayed.dir)).toEqual(spentOf(first.dir));
    expect(spentOf(first.dir)[0][3]).toBeGreaterThan(0);

    // Episode 2's second prompt is not the recorded one: the re-run stops after answering its first call.
    const w = world();
    const bench = w.getBenchmark('hotpotqa');
    const diverging: Method = {
      ...loopMethod,
      run: (it, ctx) => {
        if (it.index !== 2) return loopMethod.run(it, ctx);
        let n = 0;
        const model: CompletionModel = {
          model: ctx.model.model,
          describe: () => ctx.model.describe(),
          complete: (req, o) => ctx.model.complete(++n === 2 ? { ...req, prompt: `${req.prompt} (changed)` } : req, o),
        };
        return loopMethod.run(it, { ...ctx, model });
      },
    };
    const stopped = path.join(tmp, 'rerun-diverged');
    await expect(
      runFromBundle(out, { resultsDir: stopped, getBenchmark: () => ({ ...bench, createMethod: () => diverging }) }, io),
    ).rejects.toThrow(/^replay diverged at episode 2, step 2: the prompt of model call 2 is not in the bundle/);
    const dir = path.join(stopped, first.runId);
    expect(manifest(dir).sessions.map((x: { spent: unknown }) => x.spent)).toEqual([nothing]);
    expect(manifest(dir).fromBundle).toMatchObject({ runId: first.runId });
    expect(spentColumns(dir)).toEqual(['0', '0']);
  });

  it('refuses unfinished runs, and a bundle from a newer version', async () => {
    const { io } = quietIO();
    const r = await executeRun(settings(path.join(tmp, 'results')), world().deps, io);
    const file = path.join(r.dir, 'episodes.jsonl');
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    fs.writeFileSync(file, lines.slice(0, 2).join('\n') + '\n');
    expect(() => packBundle([r.dir], path.join(tmp, 'x.tar.gz'))).toThrow(
      /is unfinished \(1 of 3 episodes missing, first: item \d\); finish it with --resume /,
    );
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const out = path.join(tmp, 'ok.tar.gz');
    packBundle([r.dir], out);
    const members = tarUnpack(zlib.gunzipSync(fs.readFileSync(out)), out);
    const m = JSON.parse(members[0].data.toString());
    members[0].data = Buffer.from(JSON.stringify({ ...m, schema: 99 }));
    fs.writeFileSync(out, zlib.gzipSync(tarPack(members)));
    expect(() => openBundle(out)).toThrow(/bundle schema 99 was made by a newer react-repro \(this one reads schema 1\)/);
    fs.writeFileSync(out, 'not a bundle');
    expect(() => openBundle(out)).toThrow(/not a react-repro bundle \(not gzip data/);
  });
});

describe('parseRecording', () => {
  it('ignores a torn last line, and an attempt the runner did not write is never the final one', () => {
    const lines = [
      { t: 'session', v: 1, session: 'a', startedAt: 'x', model: 'm', api: 'completions' },
      { t: 'env', item: 0, attempt: 'a.0', step: 0, call: 'reset', result: { observation: 'o', info: {} } },
      { t: 'end', item: 0, attempt: 'a.0', written: true },
      { t: 'env', item: 0, attempt: 'a.1', step: 0, call: 'reset', result: { observation: 'o', info: {} } },
      { t: 'end', item: 0, attempt: 'a.1', written: false },
    ].map((l) => JSON.stringify(l));
    const p = parseRecording(lines.join('\n') + '\n{"t":"env","item":3,', 'rec');
    expect(p.attempts.map((a) => a.attempt)).toEqual(['a.0', 'a.1']);
    expect(p.final.get(0)!.attempt).toBe('a.0');
    expect(() => parseRecording('{"t":"env","item":0,"attempt":"zz.0"}\n', 'rec')).toThrow(
      'rec:1: attempt zz.0 has no session line before it',
    );
    expect(() => parseRecording('{"t":"session","v":2}\n', 'rec')).toThrow('rec:1: recording schema 2; this version reads schema 1');
  });
});

describe('compareEpisodes', () => {
  const rec = {
    idx: 3,
    item: 'q',
    answer: 'yes',
    metrics: { em: 1 },
    usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
    latency_ms: 5,
  };
  const other = {
    idx: 0,
    item: 'p',
    answer: 'no',
    metrics: { em: 0 },
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    latency_ms: 1,
  };
  const lines = (...recs: object[]) => recs.map((r) => JSON.stringify(r) + '\n').join('');
  const compare = (rerun: object) => compareEpisodes(lines(other, rec), lines(rerun, other), { bundled: 'b', rerun: 'r' });

  it('the same record with its fields in another order: says so, with both lines and the first field out of place', () => {
    const { idx, item, answer, metrics, usage } = rec;
    expect(compare({ idx, item, metrics, answer, usage, latency_ms: 9 })).toBe(
      `episode 3: the record holds the same fields and values as the bundled one in another order (line 2 of the bundled episodes.jsonl, line 1 of the re-run's): the first field out of place is "answer", where the re-run has "metrics"`,
    );
    expect(compare({ ...rec, usage: { completion_tokens: 2, prompt_tokens: 5, total_tokens: 7 } })).toBe(
      `episode 3: usage holds the same fields and values as the bundled one in another order (line 2 of the bundled episodes.jsonl, line 1 of the re-run's): the first field out of place is "prompt_tokens", where the re-run has "completion_tokens"`,
    );
  });

  it('a value that differs, a field added or missing, and latency_ms alone (not compared)', () => {
    expect(compare({ ...rec, answer: 'no' })).toBe('episode 3: answer differs at character 0 (bundle "yes", re-run "no")');
    expect(compare({ ...rec, usage: { ...rec.usage, total_tokens: 8 } })).toBe(
      'episode 3: usage.total_tokens differs (bundle 7, re-run 8)',
    );
    const { answer: _a, ...noAnswer } = rec;
    expect(compare(noAnswer)).toBe('episode 3: answer differs (bundle "yes", re-run (absent))');
    expect(compare({ ...rec, latency_ms: 99 })).toBeNull();
    // A value of another type is shown as what it is: the number 1 is not the text "1".
    expect(compare({ ...rec, metrics: { em: '1' } })).toBe('episode 3: metrics.em differs (bundle 1, re-run "1")');
    expect(compare({ ...rec, answer: null })).toBe('episode 3: answer differs (bundle "yes", re-run null)');
  });
});
