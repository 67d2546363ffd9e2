// The per-episode model chain (src/run/model-chain.ts) and the one meter (src/run/meter.ts): the order
// of the layers, what each figure counts (a cache hit, a refused call, an aborted call, a restarted
// attempt), the budget reading the meter, and the one money formatter and OpenAI rule.
import { describe, expect, it } from 'vitest';
import type { CompleteOptions, CompletionModel, CompletionRequest, CompletionResult } from '../../src/llm/types.js';
import { PAPER_SAMPLING } from '../../src/llm/types.js';
import { episodeModel } from '../../src/run/model-chain.js';
import { EpisodeMeter, SpendMeter } from '../../src/run/meter.js';
import { Budget, BudgetStop } from '../../src/run/budget.js';
import type { CallSink } from '../../src/run/run-recording.js';
import type { LlmLine } from '../../src/runlog/schema.js';
import { errorRecord, recordFromResult } from '../../src/run/record.js';
import { usd, usdExact, usdFigure } from '../../src/util/money.js';
import { isOfficialOpenAI } from '../../src/llm/endpoints.js';
import { cacheKey } from '../../src/llm/cache/key.js';
import { cacheLayer } from '../../src/llm/cache/layer.js';
import { CacheStore } from '../../src/llm/cache/store.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const req = (prompt: string, n = 1): CompletionRequest => ({ ...PAPER_SAMPLING, prompt, stop: ['\n'], n });
const usage = (p: number, c: number) => ({ promptTokens: p, completionTokens: c, totalTokens: p + c });

/** A run's model double: "hit:" prompts are cache hits (nothing spent, `total` what they stand for). */
function model(): CompletionModel & { sent: number } {
  const m = {
    model: 'm',
    sent: 0,
    cacheApi: 'completions',
    describe: () => ({ backend: 'double' }),
    async complete(r: CompletionRequest, opts?: { signal?: AbortSignal }): Promise<CompletionResult> {
      if (r.prompt.startsWith('slow:')) {
        m.sent++;
        await new Promise((_, reject) => opts?.signal?.addEventListener('abort', () => reject(opts.signal!.reason as Error)));
      }
      const choices = Array.from({ length: r.n }, (_, index) => ({
        index,
        text: 'x',
        finishReason: r.prompt.includes('long') ? 'length' : 'stop',
      }));
      if (r.prompt.startsWith('hit:'))
        return { choices, usage: usage(0, 0), costUsd: 0, cachedChoices: r.n, latencyMs: 0, total: { usage: usage(10, 2), costUsd: 0.5 } };
      m.sent++;
      return { choices, usage: usage(10, 2), costUsd: 0.5, cachedChoices: 0, latencyMs: 0 };
    },
  };
  return m;
}

function sink(): CallSink & { lines: LlmLine[] } {
  const lines: LlmLine[] = [];
  return { item: 3, attempt: 's.0', cursor: { steps: 0 }, api: 'completions', write: (l) => lines.push(l), lines };
}

describe('the model chain of an episode', () => {
  it('records, then admits, then meters every call: a cache hit stands for its tokens and spends nothing', async () => {
    const session = new SpendMeter();
    const meter = new EpisodeMeter(session);
    const rec = sink();
    const m = episodeModel({ model: model(), meter, recording: rec });
    await m.complete(req('fresh: a'));
    await m.complete(req('hit: a'));
    await m.complete(req('fresh: long'));
    expect(meter).toMatchObject({ calls: 3, cachedCalls: 1, answers: 3, lengthStops: 1 });
    expect(meter.attempt).toEqual({ usage: usage(30, 6), costUsd: 1.5, unknownCalls: 0 });
    expect(meter.spent).toEqual({ usage: usage(20, 4), costUsd: 1, unknownCalls: 0 });
    expect(session.spent).toEqual({
      calls: 2,
      prompt_tokens: 20,
      completion_tokens: 4,
      total_tokens: 24,
      cost_usd: 1,
      paid_unknown_calls: 0,
    });
    expect(meter.prompts.map((p) => p.promptTokens)).toEqual([10, 10, 10]);
    // The recording says what each call spent and, for the hit, what it stands for.
    expect(rec.lines.map((l) => [l.call, l.cached, l.cost, l.total?.costUsd])).toEqual([
      [0, 0, 0.5, undefined],
      [1, 1, 0, 0.5],
      [2, 0, 0.5, undefined],
    ]);
    // The record's accounting is the meter's.
    const item = { index: 3, id: 'q3', input: 'q3' };
    const r = recordFromResult(item, { answer: 'a', traj: '', steps: [], n_calls: 3, n_badcalls: 0 }, { em: 1 }, 0, meter);
    expect(r).toMatchObject({
      usage: { prompt_tokens: 30, completion_tokens: 6, total_tokens: 36 },
      cost: 1.5,
      spent_usage: { prompt_tokens: 20, completion_tokens: 4, total_tokens: 24 },
      spent_cost: 1,
      cached_calls: 1,
    });
  });

  it('a restarted attempt starts its own figures; the episode keeps what every attempt used and spent', async () => {
    const meter = new EpisodeMeter();
    const m = episodeModel({ model: model(), meter });
    await m.complete(req('fresh: long'));
    meter.restart();
    await m.complete(req('hit: b'));
    expect(meter).toMatchObject({ calls: 1, cachedCalls: 1, lengthStops: 0, answers: 2 });
    expect(meter.attempt.costUsd).toBe(0.5);
    expect(meter.used.costUsd).toBe(1);
    expect(meter.spent.costUsd).toBe(0.5);
    const err = errorRecord({ index: 1, id: 'q1', input: 'q1' }, { source: 'llm', message: 'down' }, 0, meter, ['em']);
    expect(err).toMatchObject({ n_calls: 1, cost: 1, spent_cost: 0.5, cached_calls: 1 });
  });

  it('the budget admits against the meter: a refused call is recorded, never sent, never paid', async () => {
    const budget = new Budget(0.9);
    const session = new SpendMeter(budget.meter);
    const meter = new EpisodeMeter(session);
    const rec = sink();
    const backend = model();
    const stops: BudgetStop[] = [];
    const m = episodeModel({ model: backend, meter, recording: rec, budget: { budget, prices: null, onStop: (s) => stops.push(s) } });
    await m.complete(req('fresh: 1'));
    await m.complete(req('fresh: 2'));
    expect(budget.spent).toBe(1); // the meter's figure, summed over the sessions of the command
    await expect(m.complete(req('fresh: 3'))).rejects.toBeInstanceOf(BudgetStop);
    expect(stops).toHaveLength(1);
    expect(backend.sent).toBe(2);
    // Asked for (the runner drops its episode unwritten), never answered.
    expect(meter).toMatchObject({ calls: 3, answers: 2 });
    expect(rec.lines.at(-1)?.error).toMatchObject({ name: 'BudgetStop' });
    expect(session.spent).toMatchObject({ calls: 2, cost_usd: 1, paid_unknown_calls: 0 });
    expect(budget.stopped?.message).toBe(
      'stopped at the --max-cost budget of $0.9000: $1.00 spent by this command when it stopped, and the next call (up to $0.0000) could pass it',
    );
  });

  it('admits each call once, at the admission layer: the backend is not handed the admission to call again', async () => {
    const seen: unknown[] = [];
    const backend: CompletionModel = {
      model: 'm',
      describe: () => ({ backend: 'double' }),
      async complete(_r: CompletionRequest, opts?: CompleteOptions): Promise<CompletionResult> {
        seen.push(opts?.admit);
        return { choices: [{ index: 0, text: 'x', finishReason: 'stop' }], usage: usage(1, 1), costUsd: 0, cachedChoices: 0, latencyMs: 0 };
      },
    };
    const budget = new Budget(1);
    const m = episodeModel({ model: backend, meter: new EpisodeMeter(), budget: { budget, prices: null, onStop: () => undefined } });
    await m.complete(req('a'));
    expect(seen).toEqual([undefined]);
  });

  it('a call answered without usage is paid-unknown, never "0 tokens, $0": the budget keeps its estimate', async () => {
    const unreported: CompletionModel & { sent: number } = {
      model: 'm',
      sent: 0,
      describe: () => ({ backend: 'double' }),
      async complete(): Promise<CompletionResult> {
        unreported.sent++;
        const choices = [{ index: 0, text: 'x', finishReason: 'stop' }];
        return { choices, usage: usage(0, 0), costUsd: 0, cachedChoices: 0, latencyMs: 0, usageUnknown: true };
      },
    };
    const prices = { promptPerM: 1_000_000, completionPerM: 0 }; // the estimate: chars/4 dollars
    const budget = new Budget(250);
    const session = new SpendMeter(budget.meter);
    const rec = sink();
    const m = episodeModel({
      model: unreported,
      meter: new EpisodeMeter(session),
      recording: rec,
      budget: { budget, prices, onStop: () => undefined },
    });
    await m.complete(req('x'.repeat(400))); // estimated $100, kept
    await m.complete(req('y'.repeat(400))); // $200 kept
    await expect(m.complete(req('z'.repeat(400)))).rejects.toThrow(
      // Nothing was counted, so the spend is no figure (never "$0.0000 spent"): only its bound is.
      'stopped at the --max-cost budget of $250.00: an unknown amount spent by this command when it stopped (up to $200.00 for calls answered without usage)',
    );
    expect(unreported.sent).toBe(2);
    expect(session.spent).toEqual({
      calls: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      cost_usd: 0,
      paid_unknown_calls: 2,
    });
    expect(rec.lines.slice(0, 2).map((l) => l.usageUnknown)).toEqual([true, true]);
  });

  it('counts every call that went to the model, whatever it was billed; a cache hit is not one', async () => {
    const free: CompletionModel = {
      model: 'm',
      describe: () => ({ backend: 'double' }),
      complete: async (r) => ({
        choices: [{ index: 0, text: 'x', finishReason: 'stop' }],
        usage: usage(0, 0),
        costUsd: 0,
        cachedChoices: r.prompt.startsWith('hit:') ? 1 : 0,
        latencyMs: 0,
      }),
    };
    const session = new SpendMeter();
    const m = episodeModel({ model: free, meter: new EpisodeMeter(session) });
    await m.complete(req('a'));
    await m.complete(req('hit: a'));
    expect(session.spent).toMatchObject({ calls: 1, total_tokens: 0, paid_unknown_calls: 0 });
  });

  it('a call aborted in flight counts as paid-unknown in the session and the command', async () => {
    const command = new SpendMeter();
    const meter = new EpisodeMeter(new SpendMeter(command));
    const m = episodeModel({ model: model(), meter });
    const ac = new AbortController();
    const call = m.complete(req('slow: x'), { signal: ac.signal });
    ac.abort(new Error('interrupted'));
    await expect(call).rejects.toThrow('interrupted');
    expect(command.spent.paid_unknown_calls).toBe(1);
    expect(meter.answers).toBe(0);
  });
});

/** A backend double that pays for every call it answers, at prices it describes (USD per 1M tokens). */
function paidBackend(): CompletionModel & { sent: number } {
  const m = {
    model: 'm',
    sent: 0,
    describe: () => ({ backend: 'double', pricesUsdPer1M: { prompt: 10_000, completion: 50_000 } }),
    async complete(r: CompletionRequest): Promise<CompletionResult> {
      m.sent++;
      await new Promise((res) => setTimeout(res, 5)); // in flight long enough for a second episode to ask
      const choices = Array.from({ length: r.n }, (_, index) => ({ index, text: `answer ${m.sent}`, finishReason: 'stop' }));
      return { choices, usage: usage(10, 2), costUsd: 0.2, cachedChoices: 0, latencyMs: 0 };
    },
  };
  return m;
}

describe('the cache layer in the chain', () => {
  const withStore = async (fn: (store: CacheStore) => Promise<void>) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chain-cache-'));
    const store = new CacheStore({ mode: 'rw', path: path.join(dir, 'cache.sqlite'), api: 'completions' });
    try {
      await fn(store);
    } finally {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };

  it('sits below metering: one store serves every episode, and a hit spends nothing but stands for its tokens', () =>
    withStore(async (store) => {
      const backend = paidBackend();
      const first = new EpisodeMeter();
      const rec1 = sink();
      await episodeModel({ model: backend, cache: store, meter: first, recording: rec1 }).complete(req('q'));
      // Another episode, its own chain over the same store: served from the file.
      const second = new EpisodeMeter();
      const rec2 = sink();
      const r = await episodeModel({ model: backend, cache: store, meter: second, recording: rec2 }).complete(req('q'));
      expect(backend.sent).toBe(1);
      expect(r.choices[0].text).toBe('answer 1');
      expect(first.spent).toEqual({ usage: usage(10, 2), costUsd: 0.2, unknownCalls: 0 });
      expect(second).toMatchObject({ calls: 1, cachedCalls: 1, answers: 1 });
      expect(second.spent).toEqual({ usage: usage(0, 0), costUsd: 0, unknownCalls: 0 });
      // What the hit stands for: its stored tokens at the backend's prices.
      expect(second.attempt).toEqual({ usage: usage(10, 2), costUsd: 0.2, unknownCalls: 0 });
      // The recording is above the cache: its key is the cache's key, its line says what the call spent.
      const key = cacheKey('m', 'completions', req('q'));
      expect(rec1.lines.map((l) => [l.key, l.cached, l.cost])).toEqual([[key, 0, 0.2]]);
      expect(rec2.lines.map((l) => [l.key, l.cached, l.cost, l.total?.costUsd])).toEqual([[key, 1, 0, 0.2]]);
      expect(store.accumulator.snapshot()).toMatchObject({ calls: 2, cacheHits: 1 });
    }));

  it('shares the key of one call between the recording and the cache; a request object changed and sent again gets its own', () =>
    withStore(async (store) => {
      const backend = paidBackend();
      const rec = sink();
      const m = episodeModel({ model: backend, cache: store, meter: new EpisodeMeter(), recording: rec });
      const r = req('first');
      await m.complete(r);
      r.prompt = 'second';
      await m.complete(r);
      // Without a recording above it, the cache computes the key itself: both answers are stored under their own keys.
      const bare = episodeModel({ model: backend, cache: store, meter: new EpisodeMeter() });
      const hits = await Promise.all([bare.complete(req('first')), bare.complete(req('second'))]);
      expect(backend.sent).toBe(2);
      expect(hits.map((h) => h.cachedChoices)).toEqual([1, 1]);
      expect(rec.lines.map((l) => l.key)).toEqual([
        cacheKey('m', 'completions', req('first')),
        cacheKey('m', 'completions', req('second')),
      ]);
      // With no cache below it, the recording still writes the key.
      const plain = sink();
      await episodeModel({ model: model(), meter: new EpisodeMeter(), recording: plain }).complete(req('q'));
      expect(plain.lines.map((l) => l.key)).toEqual([cacheKey(model().model, plain.api, req('q'))]);
    }));

  it("serialises one request asked by two episodes at once: the second waits for the first's answer", () =>
    withStore(async (store) => {
      const backend = paidBackend();
      const meters = [new EpisodeMeter(), new EpisodeMeter()];
      const rs = await Promise.all(meters.map((meter) => episodeModel({ model: backend, cache: store, meter }).complete(req('same'))));
      expect(backend.sent).toBe(1);
      expect(rs.map((r) => r.cachedChoices)).toEqual([0, 1]);
      expect(meters.map((m) => m.spent.costUsd)).toEqual([0.2, 0]);
    }));

  it('is above the admission: a refused request never reaches the backend, and a cache hit is never refused', () =>
    withStore(async (store) => {
      const backend = paidBackend();
      const budget = new Budget(0.1);
      const meter = new EpisodeMeter(new SpendMeter(budget.meter));
      const stops: BudgetStop[] = [];
      const m = episodeModel({ model: backend, cache: store, meter, budget: { budget, prices: null, onStop: (s) => stops.push(s) } });
      await m.complete(req('a'));
      await expect(m.complete(req('b'))).rejects.toBeInstanceOf(BudgetStop);
      expect(backend.sent).toBe(1);
      expect(stops).toHaveLength(1);
      expect(store.accumulator.snapshot()).toMatchObject({ calls: 1, failedCalls: 0 });
      // The budget is spent and has stopped the run, yet what the cache holds is served: it costs nothing.
      const hit = await m.complete(req('a'));
      expect(hit.cachedChoices).toBe(1);
      expect(backend.sent).toBe(1);
      expect(meter.spent.costUsd).toBe(0.2);
    }));

  it('admits only what the cache cannot answer, at the estimate of the samples it asks for', () =>
    withStore(async (store) => {
      const backend = paidBackend();
      const prices = { promptPerM: 1_000_000, completionPerM: 0 }; // $1 a prompt token: the estimate is chars/4 dollars
      const warm = episodeModel({ model: backend, cache: store, meter: new EpisodeMeter() });
      await warm.complete(req('x'.repeat(400)));
      // A budget far below one fresh call's estimate ($100): the cached call passes, a fresh one is refused.
      const budget = new Budget(1);
      const m = episodeModel({
        model: backend,
        cache: store,
        meter: new EpisodeMeter(new SpendMeter(budget.meter)),
        budget: { budget, prices, onStop: () => undefined },
      });
      expect((await m.complete(req('x'.repeat(400)))).cachedChoices).toBe(1);
      await expect(m.complete(req('y'.repeat(400)))).rejects.toThrow('the next call (up to $100.00) could pass it');
      expect(backend.sent).toBe(1);
    }));

  it("holds a paid call's admission until the meter has counted it, however long the cache takes to store it", async () => {
    const backend = paidBackend(); // $0.20 a call, as the meter counts it
    let open: () => void = () => {};
    const gate = new Promise<void>((r) => (open = r));
    let stored = 0;
    // A store whose write waits (another process holds the file's lock): the answer is paid, not yet counted.
    const slowStore = {
      api: 'completions',
      describe: () => ({ mode: 'rw', path: null }),
      async complete(inner: CompletionModel, r: CompletionRequest, opts?: { signal?: AbortSignal }) {
        const res = await inner.complete(r, opts);
        await gate;
        stored++;
        return res;
      },
    } as unknown as CacheStore;
    const prices = { promptPerM: 1_000_000, completionPerM: 0 }; // the estimate: chars/4 dollars, $1 here
    const budget = new Budget(1.5);
    const chainOf = () =>
      episodeModel({
        model: backend,
        cache: slowStore,
        meter: new EpisodeMeter(new SpendMeter(budget.meter)),
        budget: { budget, prices, onStop: () => undefined },
      });
    const first = chainOf().complete(req('abcd'));
    await new Promise((r) => setTimeout(r, 20)); // answered by the backend, held in the store
    expect(backend.sent).toBe(1);
    // Its $1 estimate is still held: a second $1 call could pass the $1.50 budget, so it waits.
    const second = chainOf().complete(req('efgh'));
    await new Promise((r) => setTimeout(r, 20));
    expect(backend.sent).toBe(1);
    expect(budget.stopped).toBeNull();
    open();
    await first;
    // Counted at what it cost ($0.20), the first leaves room for the second.
    await second;
    expect(backend.sent).toBe(2);
    expect(stored).toBe(2);
    expect(budget.spent).toBeCloseTo(0.4, 12);
  });

  it('names the cache in the description, never in the identity', () =>
    withStore(async (store) => {
      const backend = paidBackend();
      const m = episodeModel({ model: backend, cache: store, meter: new EpisodeMeter() });
      expect(m.describe()).toMatchObject({ backend: 'double', cache: { mode: 'rw' } });
      expect(m.cacheApi).toBe('completions');
      expect(cacheLayer(store)(backend).identity?.()).toEqual(backend.describe());
    }));
});

describe('money and endpoints, one rule each', () => {
  it('writes money one way per use', () => {
    expect(usd(0.1229)).toBe('$0.1229');
    expect(usd(1234.5)).toBe('$1,234.50');
    expect(usd(0)).toBe('$0.0000');
    expect(usdExact(1.75031)).toBe('$1.7503');
    expect(usdFigure(0.00012)).toBe('0.0001');
  });

  it('knows OpenAI by its host name only', () => {
    expect(isOfficialOpenAI('https://api.openai.com/v1')).toBe(true);
    expect(isOfficialOpenAI(' https://api.openai.com/v1 ')).toBe(true);
    expect(isOfficialOpenAI('http://127.0.0.1:8000/v1')).toBe(false);
    expect(isOfficialOpenAI('https://api.openai.com.example.org/v1')).toBe(false);
    expect(isOfficialOpenAI('not a url')).toBe(false);
  });
});
