// Reliability (README "Reliability") in the model layer: a key inside --base-url is refused with a one-line error that does not
// echo it, a port fetch never connects to is named at once, and a cache that cannot be written (a full
// disk) warns once while the run goes on uncached -- a paid completion is never lost to it.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FatalRunError, UserError } from '../../src/errors.js';
import { cacheLayer } from '../../src/llm/cache/layer.js';
import { CacheStore } from '../../src/llm/cache/store.js';
import { resolveModelConfig } from '../../src/llm/index.js';
import type { CompletionModel, CompletionRequest, CompletionResult } from '../../src/llm/types.js';
import { req, SECRET_KEY, tmpDir } from './helpers.js';

const errorOf = (f: () => unknown): Error => {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
};

describe('credentials in the model URL', () => {
  it('--base-url http://user:KEY@host/v1 is a UserError naming the environment variable, without the key', () => {
    const e = errorOf(() => resolveModelConfig({ model: 'm', baseUrl: `http://user:${SECRET_KEY}@127.0.0.1:8000/v1` }, {}));
    expect(e).toBeInstanceOf(UserError);
    expect(e.message).toBe(
      '--base-url: the URL holds credentials (user:KEY@host), which are not accepted: put the key in the environment variable OPENAI_API_KEY (or name another with --api-key-env) and give the URL without it, e.g. http://127.0.0.1:8000/v1',
    );
    const named = errorOf(() =>
      resolveModelConfig(
        { model: 'm', apiKeyEnv: 'MY_KEY', baseUrl: [`http://127.0.0.1:8001/v1,https://:${SECRET_KEY}@h.test/v1`] },
        { MY_KEY: 'x' },
      ),
    );
    expect(named.message).toMatch(/^--base-url: the URL holds credentials .* environment variable MY_KEY .* e\.g\. https:\/\/h\.test\/v1$/);
    const env = errorOf(() => resolveModelConfig({ model: 'm' }, { OPENAI_BASE_URL: `http://u:${SECRET_KEY}@h.test/v1` }));
    expect(env.message).toMatch(/^OPENAI_BASE_URL: the URL holds credentials/);
    for (const x of [e, named, env]) expect(x.message).not.toContain(SECRET_KEY);
  });

  it("a port fetch refuses (the Fetch standard's bad ports) is named at once instead of being retried as an outage", () => {
    const e = errorOf(() => resolveModelConfig({ model: 'm', baseUrl: 'http://127.0.0.1:1/v1' }, {}));
    expect(e).toBeInstanceOf(UserError);
    expect(e.message).toBe(
      '--base-url http://127.0.0.1:1/v1: fetch never connects to port 1 (a "bad port" of the Fetch standard): serve the model on another port',
    );
    expect(() => resolveModelConfig({ model: 'm', baseUrl: 'http://127.0.0.1:6000/v1' }, {})).toThrow(/port 6000/);
    expect(resolveModelConfig({ model: 'm', baseUrl: 'http://127.0.0.1:8000/v1' }, {})).toMatchObject({
      baseURLs: ['http://127.0.0.1:8000/v1'],
    });
  });
});

/** A backend that answers every call (and counts them). */
function countingBackend(): CompletionModel & { calls: number } {
  const m = {
    model: 'test-model',
    calls: 0,
    describe: () => ({ backend: 'fake' }),
    async complete(r: CompletionRequest): Promise<CompletionResult> {
      m.calls++;
      return {
        choices: Array.from({ length: r.n }, (_, i) => ({ index: i, text: ` paid${m.calls}.${i}`, finishReason: 'stop' })),
        usage: { promptTokens: 5, completionTokens: 2, totalTokens: 7 },
        costUsd: 0.01,
        cachedChoices: 0,
        latencyMs: 1,
      };
    },
  };
  return m;
}

const diskFull = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

describe('a cache that cannot be written', () => {
  it('warns once; every paid completion is returned; the run goes on without the cache', async () => {
    const inner = countingBackend();
    const warnings: string[] = [];
    const file = path.join(tmpDir(), 'c.sqlite');
    const store = new CacheStore({ mode: 'rw', path: file, api: 'completions', warn: (l) => warnings.push(l) });
    const model = cacheLayer(store)(inner);
    // what a full disk does to SQLite (the real thing is test/cli/enospc.test.ts)
    (store as unknown as { cache: { put: () => never } }).cache.put = () => {
      throw diskFull();
    };
    const a = await model.complete(req('Question: a'));
    const b = await model.complete(req('Question: b', { n: 3 }));
    const c = await model.complete(req('Question: a'));
    expect(a.choices.map((x) => x.text)).toEqual([' paid1.0']);
    expect(b.choices.map((x) => x.text)).toEqual([' paid2.0', ' paid2.1', ' paid2.2']);
    expect(c.choices.map((x) => x.text)).toEqual([' paid3.0']); // uncached from now on
    expect(inner.calls).toBe(3);
    expect(warnings).toEqual([
      `warning: the completion cache ${file} failed (SQLITE_FULL: database or disk is full); the run goes on without it (completions are no longer cached)`,
    ]);
    store.close();
  });

  it('replay cannot go on without its cache: a read failure is fatal', async () => {
    const file = path.join(tmpDir(), 'r.sqlite');
    const rwStore = new CacheStore({ mode: 'rw', path: file, api: 'completions' });
    await cacheLayer(rwStore)(countingBackend()).complete(req('Question: a'));
    rwStore.close();
    const inner = countingBackend();
    const store = new CacheStore({ mode: 'replay', path: file, api: 'completions', warn: () => undefined });
    const replay = cacheLayer(store)(inner);
    (store as unknown as { cache: { get: () => never } }).cache.get = () => {
      throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_READ' });
    };
    await expect(replay.complete(req('Question: a'))).rejects.toThrow(FatalRunError);
    expect(inner.calls).toBe(0);
    store.close();
  });

  it('a store closed twice leaves the file open for another store of the process on the same path', async () => {
    const file = path.join(tmpDir(), 's.sqlite');
    const a = new CacheStore({ mode: 'rw', path: file, api: 'completions' });
    const b = new CacheStore({ mode: 'rw', path: file, api: 'completions' });
    const inner = countingBackend();
    await cacheLayer(a)(inner).complete(req('Question: a'));
    a.close();
    a.close();
    const hit = await cacheLayer(b)(inner).complete(req('Question: a'));
    expect([hit.cachedChoices, inner.calls]).toEqual([1, 1]);
    b.close();
  });
});
