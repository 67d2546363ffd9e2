// The persistent completion cache: hits without HTTP, per-sample rows (fewer served from cache, more
// asks only for the missing ones), replay mode, several processes writing one file, kill -9.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FatalRunError } from '../../src/errors.js';
import { CacheMissError, cacheKey, CompletionCache, createCompletionModel, resolveModelConfig } from '../../src/llm/index.js';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { modelOn, req, SECRET_KEY, tmpDir } from './helpers.js';

let srv: OpenAIServer;
let counter = 0;
beforeAll(async () => {
  // Every generated sample is distinct, so a cached answer is recognisable.
  srv = await startOpenAIServer({ respond: (_r, i) => ` gen${++counter}.${i}` });
});
afterAll(() => srv.close());

const cached = (file: string, flags: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}) =>
  modelOn(srv.baseURL, { cache: 'rw', cachePath: file, pricePrompt: 1, priceCompletion: 1, ...flags }, env);

describe('cache hits and misses', () => {
  it('a second identical request makes no HTTP call and costs nothing', async () => {
    const file = path.join(tmpDir(), 'c.sqlite');
    const { model } = await cached(file);
    srv.reset();
    const r1 = await model.complete(req('Question: x\nThought 1:', { stop: ['\nObservation 1:'] }));
    expect(r1.cachedChoices).toBe(0);
    expect(r1.costUsd).toBeGreaterThan(0);
    const r2 = await model.complete(req('Question: x\nThought 1:', { stop: ['\nObservation 1:'] }));
    expect(srv.completionRequests()).toHaveLength(1);
    expect(r2.choices).toEqual(r1.choices);
    expect(r2).toMatchObject({ cachedChoices: 1, costUsd: 0, usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } });
    expect(model.totals()).toMatchObject({ calls: 2, cacheHits: 1, cachedChoices: 1, freshChoices: 1, httpRequests: 1 });
    expect(model.describe()).toMatchObject({ cache: { mode: 'rw', path: file } });
    await model.close();
  });

  it('any parameter change is a miss; the endpoint and the key are not part of the key', async () => {
    const file = path.join(tmpDir(), 'c.sqlite');
    const { model } = await cached(file);
    srv.reset();
    const base = req('p', { stop: ['\n'] });
    await model.complete(base);
    for (const over of [
      { stop: ['\n', 'x'] },
      { maxTokens: 50 },
      { temperature: 0.7 },
      { topP: 0.9 },
      { seed: 1 },
      { frequencyPenalty: 0.1 },
      { presencePenalty: 0.1 },
      { prompt: 'p ' },
    ]) {
      expect((await model.complete({ ...base, ...over })).cachedChoices).toBe(0);
    }
    expect(srv.completionRequests()).toHaveLength(9);
    await model.close();
    // The same request through another server and another key is a hit.
    const other = await startOpenAIServer({ respond: () => ' never' });
    const { model: m2 } = await modelOn(other.baseURL, { cache: 'rw', cachePath: file }, { OPENAI_API_KEY: SECRET_KEY });
    const r = await m2.complete(base);
    expect(r.cachedChoices).toBe(1);
    expect(other.completionRequests()).toHaveLength(0);
    // ...but another model name or the chat api is not.
    const { model: m3 } = await modelOn(other.baseURL, { cache: 'rw', cachePath: file, api: 'chat' });
    expect((await m3.complete(base)).cachedChoices).toBe(0);
    const { model: m4 } = await modelOn(other.baseURL, { cache: 'rw', cachePath: file, model: 'other-model' });
    expect((await m4.complete(base)).cachedChoices).toBe(0);
    await Promise.all([m2.close(), m3.close(), m4.close()]);
    await other.close();
    // No key or endpoint in the file.
    const db = new Database(file, { readonly: true });
    const dump = JSON.stringify([db.prepare('SELECT * FROM completions').all(), db.prepare('SELECT * FROM requests').all()]);
    db.close();
    expect(dump).not.toContain(SECRET_KEY);
    expect(dump).not.toContain('127.0.0.1');
  });

  it('--cache off neither reads nor writes', async () => {
    const file = path.join(tmpDir(), 'off.sqlite');
    const { model } = await cached(file, { cache: 'off' });
    srv.reset();
    const a = await model.complete(req('same'));
    const b = await model.complete(req('same'));
    expect(a.choices[0].text).not.toBe(b.choices[0].text);
    expect(srv.completionRequests()).toHaveLength(2);
    expect(model.describe()).toMatchObject({ cache: { mode: 'off', path: null } });
    await model.close();
  });

  it('stores text, finish reason, usage and time per sample', async () => {
    const file = path.join(tmpDir(), 'c.sqlite');
    const { model } = await cached(file);
    await model.complete(req('stored', { n: 2, temperature: 0.7, maxTokens: 1 }));
    await model.close();
    const db = new Database(file, { readonly: true });
    const rows = db.prepare('SELECT * FROM completions ORDER BY sample_index').all() as any[];
    db.close();
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => r.sample_index)).toEqual([0, 1]);
    expect(rows[0]).toMatchObject({
      finish_reason: 'stop',
      model: 'test-model',
      call_n: 2,
      prompt_tokens: 1,
      completion_tokens: 2,
      total_tokens: 3,
    });
    expect(rows[0].key).toBe(cacheKey('test-model', 'completions', req('stored', { temperature: 0.7, maxTokens: 1 })));
    expect(Number.isNaN(Date.parse(rows[0].created_at))).toBe(false);
  });
});

describe('samples as separate entries', () => {
  it('n=21 then n=5 is served from the cache at zero cost', async () => {
    const file = path.join(tmpDir(), 'c.sqlite');
    const { model } = await cached(file);
    srv.reset();
    const r21 = await model.complete(req('cot-sc', { n: 21, temperature: 0.7 }));
    expect(r21.choices).toHaveLength(21);
    const r5 = await model.complete(req('cot-sc', { n: 5, temperature: 0.7 }));
    expect(srv.completionRequests()).toHaveLength(1);
    expect(r5.choices).toEqual(r21.choices.slice(0, 5));
    expect(r5).toMatchObject({ cachedChoices: 5, costUsd: 0 });
    await model.close();
  });

  it('n=5 then n=8 asks the backend only for 3 more and stores them at indices 5..7', async () => {
    const file = path.join(tmpDir(), 'c.sqlite');
    const { model } = await cached(file);
    srv.reset();
    const r5 = await model.complete(req('grow', { n: 5, temperature: 0.7 }));
    const r8 = await model.complete(req('grow', { n: 8, temperature: 0.7 }));
    const bodies = srv.completionRequests().map((r) => r.body);
    expect(bodies.map((b) => b.n)).toEqual([5, 3]);
    expect(r8.choices.slice(0, 5)).toEqual(r5.choices);
    expect(r8.choices.map((c) => c.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(new Set(r8.choices.map((c) => c.text)).size).toBe(8);
    expect(r8.cachedChoices).toBe(5);
    expect(r8.usage.completionTokens).toBe(3); // billed only for the new 3
    const again = await model.complete(req('grow', { n: 8, temperature: 0.7 }));
    expect(again.choices).toEqual(r8.choices);
    expect(srv.completionRequests()).toHaveLength(2);
    await model.close();
  });

  it('with a fixed seed, topping up asks for all n and keeps the new indices', async () => {
    const file = path.join(tmpDir(), 'c.sqlite');
    const { model } = await cached(file);
    srv.reset();
    await model.complete(req('seeded', { n: 2, temperature: 0.7, seed: 3 }));
    const r = await model.complete(req('seeded', { n: 4, temperature: 0.7, seed: 3 }));
    expect(srv.completionRequests().map((x) => x.body.n)).toEqual([2, 4]);
    expect(r.choices).toHaveLength(4);
    expect(r.cachedChoices).toBe(2);
    await model.close();
  });

  it('concurrent identical requests in one process make one HTTP call', async () => {
    const file = path.join(tmpDir(), 'c.sqlite');
    const { model } = await cached(file);
    srv.reset();
    const rs = await Promise.all(Array.from({ length: 5 }, () => model.complete(req('dup', { n: 3, temperature: 0.7 }))));
    expect(srv.completionRequests()).toHaveLength(1);
    for (const r of rs) expect(r.choices).toEqual(rs[0].choices);
    await model.close();
  });
});

describe('replay mode', () => {
  it('serves what is cached and fails a miss with a one-line error naming the file, without calling the model', async () => {
    const file = path.join(tmpDir(), 'c.sqlite');
    const { model: rw } = await cached(file);
    const first = await rw.complete(req('known', { n: 2, temperature: 0.7 }));
    await rw.close();
    srv.reset();
    const { model } = await cached(file, { cache: 'replay' });
    expect((await model.complete(req('known', { n: 2, temperature: 0.7 }))).choices).toEqual(first.choices);
    const e = await model.complete(req('unknown')).catch((x) => x);
    expect(e).toBeInstanceOf(CacheMissError);
    expect(e).toBeInstanceOf(FatalRunError);
    expect(e.message).toContain(file);
    expect(e.message).toMatch(/not in the cache file/);
    expect(e.message).toMatch(/replay makes no model calls/);
    expect(e.message).not.toContain('\n');
    const more = await model.complete(req('known', { n: 3, temperature: 0.7 })).catch((x) => x);
    expect(more).toBeInstanceOf(CacheMissError);
    expect(more.message).toMatch(/2 of 3 samples/);
    expect(srv.completionRequests()).toHaveLength(0);
    await model.close();
  });

  it('replaying a run made on OpenAI needs only --model: no endpoint, no key, no network', async () => {
    const file = path.join(tmpDir(), 'c.sqlite');
    const r = req('from openai');
    const cache = CompletionCache.open(file);
    cache.put(
      cacheKey('gpt-3.5-turbo-instruct', 'completions', r),
      '{}',
      'gpt-3.5-turbo-instruct',
      0,
      [{ text: ' recorded', finishReason: 'stop' }],
      undefined,
      1,
    );
    cache.close();
    const cfg = resolveModelConfig({ model: 'gpt-3.5-turbo-instruct', cache: 'replay', cachePath: file }, {});
    expect(cfg).toMatchObject({ kind: 'openai', baseURLs: ['https://api.openai.com/v1'], apiKey: undefined });
    const model = await createCompletionModel(cfg);
    expect((await model.complete(r)).choices[0].text).toBe(' recorded');
    await expect(model.complete(req('not recorded'))).rejects.toBeInstanceOf(CacheMissError);
    expect(model.totals().httpRequests).toBe(0);
    await model.close();
    expect(() => resolveModelConfig({ cache: 'replay', cachePath: file }, {})).toThrow(/no language model configured/);
  });

  it('a replay cache file that does not exist is an error at start-up', async () => {
    const file = path.join(tmpDir(), 'missing.sqlite');
    const cfg = resolveModelConfig({ model: 'm', baseUrl: srv.baseURL, cache: 'replay', cachePath: file }, {});
    await expect(createCompletionModel(cfg)).rejects.toThrow(/does not exist.*replay mode makes no model calls/);
  });

  it('replay with --llm loads no weights; the GGUF sha256 keys its entries', async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'c.sqlite');
    const gguf = path.join(dir, 'tiny.gguf');
    fs.writeFileSync(gguf, 'not a real model: replay never loads it');
    const sha = createHash('sha256').update(fs.readFileSync(gguf)).digest('hex');
    const cfg = resolveModelConfig({ llm: `llama:${gguf}`, cache: 'replay', cachePath: file }, {});
    // Fill the cache as the llama backend would have (model name = file name, api carries the sha256).
    const cache = CompletionCache.open(file);
    const r = req('hello');
    cache.put(
      cacheKey('tiny.gguf', `llama;sha256=${sha}`, r),
      '{}',
      'tiny.gguf',
      0,
      [{ text: ' world', finishReason: 'stop' }],
      undefined,
      1,
    );
    // An entry of another GGUF file with the same basename must not be served.
    cache.put(
      cacheKey('tiny.gguf', 'llama;sha256=' + '0'.repeat(64), req('other')),
      '{}',
      'tiny.gguf',
      0,
      [{ text: ' nope', finishReason: 'stop' }],
      undefined,
      1,
    );
    cache.close();
    const model = await createCompletionModel(cfg);
    expect((await model.complete(r)).choices[0].text).toBe(' world');
    await expect(model.complete(req('other'))).rejects.toBeInstanceOf(CacheMissError);
    await model.close();
  });

  it('replay with --llm and no GGUF file is a one-line ConfigError', async () => {
    const dir = tmpDir();
    const cfg = resolveModelConfig({ llm: `llama:${dir}/absent.gguf`, cache: 'replay', cachePath: path.join(dir, 'c.sqlite') }, {});
    await expect(createCompletionModel(cfg)).rejects.toThrow(/absent\.gguf not found; replay needs the GGUF file/);
  });
});

function runNode(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: path.resolve(__dirname, '../..') });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => resolve({ code, out, err }));
  });
}

describe('several processes, one file', () => {
  it('concurrent writers: all entries present, no SQLITE_BUSY, the same samples for everyone', async () => {
    const file = path.join(tmpDir(), 'shared.sqlite');
    const workers = 3;
    const distinct = 40;
    const shared = 10;
    const results = await Promise.all(
      Array.from({ length: workers }, (_, w) =>
        runNode(['test/llm/cache-writer.ts', file, srv.baseURL, String(w), String(distinct), String(shared)]),
      ),
    );
    for (const r of results) {
      expect(r.err).not.toMatch(/SQLITE_BUSY|database is locked/);
      expect(r.code).toBe(0);
    }
    const outs = results.map((r) => JSON.parse(r.out.trim().split('\n').at(-1)!));
    // Whoever stored a shared sample first wins, and every process returned the stored one.
    for (const o of outs) expect(o.sharedTexts).toEqual(outs[0].sharedTexts);
    const db = new Database(file, { readonly: true });
    const count = (db.prepare('SELECT COUNT(*) AS n FROM completions').get() as any).n;
    const keys = (db.prepare('SELECT COUNT(*) AS n FROM requests').get() as any).n;
    const mode = db.pragma('journal_mode', { simple: true });
    db.close();
    expect(count).toBe(workers * distinct + shared * 2);
    expect(keys).toBe(workers * distinct + shared);
    expect(mode).toBe('wal');
  });

  it('kill -9 in the middle of writing leaves a sound file with whole calls only', async () => {
    const file = path.join(tmpDir(), 'killed.sqlite');
    const p = spawn(process.execPath, ['--import', 'tsx', 'test/llm/cache-writer.ts', file, srv.baseURL, 'k', '0', '0', 'forever'], {
      cwd: path.resolve(__dirname, '../..'),
    });
    await new Promise<void>((resolve, reject) => {
      p.stdout.on('data', (d) => String(d).includes('ready') && resolve());
      p.on('exit', () => reject(new Error('writer exited early')));
    });
    p.kill('SIGKILL');
    await new Promise((r) => p.on('close', r));
    const db = new Database(file);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const perKey = db.prepare('SELECT key, COUNT(*) AS n, MAX(sample_index) AS mx FROM completions GROUP BY key').all() as any[];
    db.close();
    expect(perKey.length).toBeGreaterThanOrEqual(21);
    for (const k of perKey) expect([k.n, k.mx]).toEqual([3, 2]);
    // And it can be used again.
    const { model } = await cached(file);
    expect((await model.complete(req('after crash'))).cachedChoices).toBe(0);
    await model.close();
  });
});

describe('unusable cache file', () => {
  it('a file that is not a SQLite database is a one-line ConfigError naming it', async () => {
    const file = path.join(tmpDir(), 'junk.sqlite');
    (await import('node:fs')).writeFileSync(file, 'this is not a database, just text that is long enough to have a header'.repeat(20));
    const cfg = resolveModelConfig({ model: 'm', baseUrl: srv.baseURL, cachePath: file }, {});
    const e = await createCompletionModel(cfg).catch((x) => x);
    expect(e.name).toBe('UserError');
    expect(e.message).toMatch(/^--cache-path: cannot use .*junk\.sqlite as the completion cache \(file is not a database\)$/);
  });
});

describe('usage of cache hits (a replayed run is not "0 tokens")', () => {
  type Accounted = { total?: { usage: { promptTokens: number; completionTokens: number; totalTokens: number }; costUsd: number } };

  it('a hit spends nothing but reports what the call used when it was made, at the run prices; replay too', async () => {
    const file = path.join(tmpDir(), 'c.sqlite');
    const { model } = await cached(file);
    const r1 = await model.complete(req('Question: usage\nThought 1:'));
    expect(r1.usage.totalTokens).toBeGreaterThan(0);
    expect((r1 as Accounted).total).toEqual({ usage: r1.usage, costUsd: r1.costUsd }); // a miss: total = what it spent
    const r2 = await model.complete(req('Question: usage\nThought 1:'));
    expect(r2).toMatchObject({ cachedChoices: 1, costUsd: 0, usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } });
    expect((r2 as Accounted).total).toEqual({ usage: r1.usage, costUsd: r1.costUsd });
    await model.close();
    const { model: replay } = await modelOn(srv.baseURL, { cache: 'replay', cachePath: file, pricePrompt: 1, priceCompletion: 1 });
    srv.reset();
    const r3 = await replay.complete(req('Question: usage\nThought 1:'));
    expect(srv.completionRequests()).toHaveLength(0);
    expect(r3.usage.totalTokens).toBe(0);
    expect((r3 as Accounted).total).toEqual({ usage: r1.usage, costUsd: r1.costUsd });
    await replay.close();
  });

  it("n samples: the prompt once and each served sample's share of its call; a top-up adds the cached share to what it spent", async () => {
    const file = path.join(tmpDir(), 'c.sqlite');
    const { model } = await cached(file, { priceCompletion: 2 });
    const four = await model.complete(req('Question: share\nThought:', { n: 4, temperature: 0.7 }));
    const { promptTokens: P, completionTokens: C } = four.usage;
    const two = await model.complete(req('Question: share\nThought:', { n: 2, temperature: 0.7 }));
    const shareOf2 = Math.round((C / 4) * 2);
    expect((two as Accounted).total!.usage).toEqual({ promptTokens: P, completionTokens: shareOf2, totalTokens: P + shareOf2 });
    expect((two as Accounted).total!.costUsd).toBeCloseTo((P * 1 + shareOf2 * 2) / 1e6, 12);
    // Six: two fresh samples (spent), four from the cache (their completion share added to the total).
    const six = await model.complete(req('Question: share\nThought:', { n: 6, temperature: 0.7 }));
    expect(six.cachedChoices).toBe(4);
    expect(six.usage.completionTokens).toBeGreaterThan(0);
    expect((six as Accounted).total!.usage).toEqual({
      promptTokens: six.usage.promptTokens,
      completionTokens: six.usage.completionTokens + C,
      totalTokens: six.usage.totalTokens + C,
    });
    expect((six as Accounted).total!.costUsd).toBeCloseTo(six.costUsd + (C * 2) / 1e6, 12);
    await model.close();
  });
});
