// Context-window refusals in the completion cache: a request the server refused because its prompt
// outgrew the window is stored under its key, thrown again as the same error by --cache replay (no
// model call), asked again in the default read-write mode, and replaced by a completion stored later.
// A cache file made before the `refusals` table is read as before and gains the table when written.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordError } from '../../src/envs/recording.js';
import { InfraError } from '../../src/errors.js';
import { CacheMissError, cacheKey, CompletionCache, ContextLengthError } from '../../src/llm/index.js';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { modelOn, req, tmpDir } from './helpers.js';

// vLLM's check: prompt + max_tokens (100, the paper's) must fit 150 tokens.
const WINDOW = 150;
const LONG = `Question: ${'word '.repeat(80)}\nThought 1:`;
const SHORT = 'Question: short\nThought 1:';

let small: OpenAIServer;
let large: OpenAIServer;
let counter = 0;
beforeAll(async () => {
  const respond = () => ` gen${++counter}`;
  small = await startOpenAIServer({ respond, contextWindow: { tokens: WINDOW, family: 'vllm' } });
  large = await startOpenAIServer({ respond, contextWindow: { tokens: 4096, family: 'vllm' } });
});
afterAll(async () => {
  await Promise.all([small.close(), large.close()]);
});

const on = (srv: OpenAIServer, file: string, cache: 'rw' | 'replay' | 'off' = 'rw') =>
  modelOn(srv.baseURL, { cache, cachePath: file, pricePrompt: 1, priceCompletion: 1 }).then((m) => m.model);

const refusalRows = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT * FROM refusals').all() as Array<Record<string, unknown>>;
  } finally {
    db.close();
  }
};
const completionRows = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT * FROM completions').all() as Array<Record<string, unknown>>;
  } finally {
    db.close();
  }
};

/** What a run keeps of an error (its recording line) and of a context refusal (the error's fields). */
const asRun = (e: unknown) => {
  expect(e).toBeInstanceOf(ContextLengthError);
  const c = e as ContextLengthError;
  return { record: recordError(c), name: c.name, message: c.message, limit: c.limit, source: c.source, status: c.status };
};

/** A refused request through `model`: its error. */
const refused = async (model: { complete: (r: ReturnType<typeof req>) => Promise<unknown> }, prompt = LONG) => {
  const e = await model.complete(req(prompt)).then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ContextLengthError);
  return e;
};

describe('a context-window refusal in the cache', () => {
  it('is stored under the request key; --cache replay throws the same error without a model call', async () => {
    const file = path.join(tmpDir(), 'c.sqlite');
    const rw = await on(small, file);
    small.reset();
    const original = await refused(rw);
    expect(small.completionRequests()).toHaveLength(1);
    await rw.close();
    const rows = refusalRows(file);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ key: cacheKey('test-model', 'completions', req(LONG)), kind: 'context_length', model: 'test-model' });
    expect(JSON.parse(String(rows[0].detail))).toMatchObject({ family: 'vllm', window: WINDOW, promptTokens: expect.any(Number) });
    expect(completionRows(file)).toHaveLength(0);

    small.reset();
    const replay = await on(small, file, 'replay');
    const again = await refused(replay);
    expect(again).toBeInstanceOf(InfraError);
    expect(asRun(again)).toEqual(asRun(original));
    expect((again as ContextLengthError).limit).toMatchObject({ family: 'vllm', window: WINDOW });
    // Not a miss; a request never made is still one.
    await expect(replay.complete(req(SHORT))).rejects.toBeInstanceOf(CacheMissError);
    expect(small.requests).toHaveLength(0);
    expect(replay.totals()).toMatchObject({ httpRequests: 0, failedCalls: 2 });
    await replay.close();
  });

  it('read-write mode asks again: refused again, the one entry is replaced; answered, the completion is stored and wins', async () => {
    const file = path.join(tmpDir(), 'c.sqlite');
    const first = await on(small, file);
    small.reset();
    await refused(first);
    await refused(first);
    // Both calls reached the server: a stored refusal is not served in rw mode.
    expect(small.completionRequests()).toHaveLength(2);
    await first.close();
    expect(refusalRows(file)).toHaveLength(1);

    // The window was raised: the same request is sent again, answered and stored.
    const bigger = await on(large, file);
    large.reset();
    const r = await bigger.complete(req(LONG));
    expect(large.completionRequests()).toHaveLength(1);
    expect(r.cachedChoices).toBe(0);
    expect(r.usage.totalTokens).toBeGreaterThan(0);
    // ...and from then on it is a cache hit.
    const hit = await bigger.complete(req(LONG));
    expect(hit).toMatchObject({ cachedChoices: 1, costUsd: 0, choices: r.choices });
    expect(large.completionRequests()).toHaveLength(1);
    await bigger.close();
    expect(refusalRows(file)).toHaveLength(0);
    expect(completionRows(file)).toHaveLength(1);

    const replay = await on(small, file, 'replay');
    small.reset();
    expect((await replay.complete(req(LONG))).choices).toEqual(r.choices);
    expect(small.requests).toHaveLength(0);
    await replay.close();
  });

  it('a completion stored by another process wins over the refusal, whichever was stored last', async () => {
    const file = path.join(tmpDir(), 'c.sqlite');
    const rw = await on(small, file);
    await refused(rw);
    await rw.close();
    const key = cacheKey('test-model', 'completions', req(LONG));
    const cache = CompletionCache.open(file);
    expect(cache.getRefusal(key)).toMatchObject({ kind: 'context_length', limit: { family: 'vllm', window: WINDOW } });
    cache.put(key, '{}', 'test-model', 0, [{ text: ' later', finishReason: 'stop' }], undefined, 1);
    expect(cache.getRefusal(key)).toBeUndefined();
    // A refusal stored after it (another shard behind a smaller window) does not hide it either.
    cache.putRefusal(key, '{}', 'test-model', { kind: 'context_length', message: 'too long' });
    cache.close();
    const replay = await on(small, file, 'replay');
    small.reset();
    expect((await replay.complete(req(LONG))).choices[0].text).toBe(' later');
    expect(small.requests).toHaveLength(0);
    await replay.close();
  });

  it('--cache off stores nothing', async () => {
    const file = path.join(tmpDir(), 'off.sqlite');
    const off = await on(small, file, 'off');
    await refused(off);
    await off.close();
    expect(fs.existsSync(file)).toBe(false);
  });
});

describe('a cache file made before the refusals table', () => {
  /** The file as an earlier version wrote it: the two tables, one completion. */
  function oldFile(): string {
    const file = path.join(tmpDir(), 'old.sqlite');
    const db = new Database(file);
    db.exec(`
      CREATE TABLE completions (key TEXT NOT NULL, sample_index INTEGER NOT NULL, text TEXT NOT NULL, finish_reason TEXT NOT NULL,
        model TEXT NOT NULL, call_n INTEGER NOT NULL, prompt_tokens INTEGER, completion_tokens INTEGER, total_tokens INTEGER,
        created_at TEXT NOT NULL, PRIMARY KEY (key, sample_index));
      CREATE TABLE requests (key TEXT PRIMARY KEY, request TEXT NOT NULL, created_at TEXT NOT NULL);
    `);
    db.prepare('INSERT INTO completions VALUES (?, 0, ?, ?, ?, 1, 3, 1, 4, ?)').run(
      cacheKey('test-model', 'completions', req(SHORT)),
      ' old',
      'stop',
      'test-model',
      new Date().toISOString(),
    );
    db.close();
    return file;
  }

  it('read-only, it serves its completions and has no refusals', () => {
    const file = oldFile();
    const cache = CompletionCache.open(file, { readonly: true });
    expect(cache.get(cacheKey('test-model', 'completions', req(SHORT)))).toHaveLength(1);
    expect(cache.getRefusal(cacheKey('test-model', 'completions', req(LONG)))).toBeUndefined();
    cache.close();
  });

  it('replayed, its completions are served and a request it lacks is a miss; written, it gains the table', async () => {
    const file = oldFile();
    const replay = await on(small, file, 'replay');
    small.reset();
    expect((await replay.complete(req(SHORT))).choices[0].text).toBe(' old');
    await expect(replay.complete(req(LONG))).rejects.toBeInstanceOf(CacheMissError);
    await replay.close();
    const rw = await on(small, file);
    await refused(rw);
    await rw.close();
    expect(refusalRows(file)).toHaveLength(1);
    expect(completionRows(file)).toHaveLength(1);
    const again = await on(small, file, 'replay');
    await refused(again);
    expect(small.completionRequests()).toHaveLength(1);
    await again.close();
  });
});
