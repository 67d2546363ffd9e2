// Several base URLs for one model (round-robin, least-busy), the run-wide in-flight cap, and the
// requests/tokens-per-minute limiter on a virtual clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/util/clock.js';
import { EndpointPool } from '../../src/llm/endpoints.js';
import { openModel, resolveModelConfig } from '../../src/llm/index.js';
import { FatalRunError } from '../../src/errors.js';
import { ConcurrencyLimiter, estimateTokens, RateLimiter } from '../../src/llm/limits.js';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { modelOn, req } from './helpers.js';

let a: OpenAIServer;
let b: OpenAIServer;
beforeAll(async () => {
  a = await startOpenAIServer({ respond: () => ' from a' });
  b = await startOpenAIServer({ respond: () => ' from b' });
});
afterAll(async () => {
  await a.close();
  await b.close();
});

describe('balancing over several base URLs', () => {
  it('round-robin alternates between two servers (repeated flag or comma list)', async () => {
    const { model } = await modelOn(`${a.baseURL},${b.baseURL}`, { balance: 'round-robin' });
    a.reset();
    b.reset();
    const texts: string[] = [];
    for (let i = 0; i < 6; i++) texts.push((await model.complete(req(`q${i}`))).choices[0].text);
    expect(texts).toEqual([' from a', ' from b', ' from a', ' from b', ' from a', ' from b']);
    expect(model.describe().endpoints).toEqual([a.baseURL, b.baseURL]);
    await model.close();
  });

  it('least-busy sends new requests to the server with fewer in flight', async () => {
    // The slow server answers only once the test lets it, so it stays busy however slow the machine.
    let answer: () => void = () => {};
    const answered = new Promise<void>((r) => (answer = r));
    const slow = await startOpenAIServer({ respond: async () => (await answered, ' slow') });
    const fast = await startOpenAIServer({ respond: () => ' fast' });
    const { model } = await modelOn([slow.baseURL, fast.baseURL], { balance: 'least-busy' });
    // The first request occupies the slow server; the rest, sent one after another while it is busy,
    // all go to the fast one (0 in flight there vs 1).
    try {
      const first = model.complete(req('q0'));
      const rest: string[] = [];
      // A request sent to the busy slow server would wait for ever: bounded, to fail with a message.
      const orStuck = <T>(p: Promise<T>, what: string) =>
        Promise.race([
          p,
          new Promise<never>((_, no) => setTimeout(() => no(new Error(`${what} waited on the slow server`)), 10_000).unref()),
        ]);
      for (let i = 1; i <= 4; i++) rest.push((await orStuck(model.complete(req(`q${i}`)), `q${i}`)).choices[0].text);
      answer();
      expect((await first).choices[0].text).toBe(' slow');
      expect(rest).toEqual([' fast', ' fast', ' fast', ' fast']);
    } finally {
      answer();
      await model.close();
      await slow.close();
      await fast.close();
    }
  });

  it('least-busy spreads concurrent requests evenly', async () => {
    const s1 = await startOpenAIServer({ respond: () => ' 1', latencyMs: 50 });
    const s2 = await startOpenAIServer({ respond: () => ' 2', latencyMs: 50 });
    const { model } = await modelOn([s1.baseURL, s2.baseURL]);
    await Promise.all(Array.from({ length: 8 }, (_, i) => model.complete(req(`c${i}`))));
    expect(s1.completionRequests()).toHaveLength(4);
    expect(s2.completionRequests()).toHaveLength(4);
    await model.close();
    await s1.close();
    await s2.close();
  });

  it('a failing server is passed over while it backs off', async () => {
    const { model } = await modelOn([a.baseURL, b.baseURL], { balance: 'round-robin' });
    a.reset();
    b.reset();
    a.enqueueFaults({ kind: 'status', status: 503 });
    const r = await model.complete(req('q'));
    expect(r.choices[0].text).toBe(' from b');
    expect(a.completionRequests()).toHaveLength(1);
    await model.close();
  });

  it('each endpoint counts what its attempts got: answered (a 400 too: the request was at fault), failed by kind', async () => {
    const cfg = resolveModelConfig({ model: 'test-model', baseUrl: [a.baseURL, b.baseURL], cache: 'off', balance: 'round-robin' }, {});
    const clock = new VirtualClock();
    const opened = await openModel(cfg, { clock, random: () => 0.5 });
    a.reset();
    b.reset();
    a.enqueueFaults({ kind: 'status', status: 503 }, { kind: 'drop' }, { kind: 'malformed' });
    // Each failure is retried on b; the clock then moves past a's cooling, so a gets the next call (the
    // fourth, answered; the fifth goes to b).
    for (let i = 0; i < 5; i++) {
      await opened.backend.complete(req(`t${i}`));
      clock.advance(60_000);
    }
    // a's next answer is a 400: an answer (about the request), not the endpoint's failure.
    a.enqueueFaults({ kind: 'status', status: 400, message: 'bad request' });
    await expect(opened.backend.complete(req('bad'))).rejects.toBeInstanceOf(FatalRunError);
    const [ta, tb] = opened.endpointTallies();
    expect(ta).toEqual({
      endpoint: a.baseURL,
      attempts: a.completionRequests().length,
      answered: a.completionRequests().length - 3,
      failures: { 'HTTP 503': 1, dropped: 1, malformed: 1 },
    });
    expect(tb).toEqual({
      endpoint: b.baseURL,
      attempts: b.completionRequests().length,
      answered: b.completionRequests().length,
      failures: {},
    });
    await opened.backend.close?.();
    opened.cache.close();
  });

  it("an endpoint's tally is named without its query: a key may sit under any parameter name there", async () => {
    const cfg = resolveModelConfig({ model: 'test-model', baseUrl: [`${a.baseURL}/?code=tallysecret123456`, b.baseURL], cache: 'off' }, {});
    const opened = await openModel(cfg, { clock: new VirtualClock(), random: () => 0.5 });
    expect(opened.endpointTallies().map((t) => t.endpoint)).toEqual([a.baseURL, b.baseURL]);
    opened.cache.close();
  });

  it('EndpointPool round-robin skips cooling endpoints unless all are cooling', () => {
    const p = new EndpointPool(
      [
        { label: 'x', client: 1 },
        { label: 'y', client: 2 },
        { label: 'z', client: 3 },
      ],
      'round-robin',
    );
    p.endpoints[1].coolUntil = 100;
    expect([p.pick(0), p.pick(0), p.pick(0)].map((e) => e.label)).toEqual(['x', 'z', 'x']);
    p.endpoints.forEach((e) => (e.coolUntil = 100));
    expect(p.pick(0).label).toBe('y');
    expect(p.pick(100).label).toBe('z');
  });
});

describe('run-wide in-flight cap', () => {
  it('--max-in-flight bounds the requests the server sees at once', async () => {
    // The first answers wait until three requests are at the server (or 5 s: then fewer came, and the
    // count below says so), so the cap is reached however slow the machine.
    let arrived = 0;
    let three: () => void = () => {};
    const threeArrived = new Promise<void>((r) => (three = r));
    const s = await startOpenAIServer({
      respond: async () => {
        if (++arrived >= 3) three();
        await Promise.race([threeArrived, new Promise((r) => setTimeout(r, 5000).unref())]);
        return ' x';
      },
    });
    const { model } = await modelOn(s.baseURL, { maxInFlight: 3 });
    await Promise.all(Array.from({ length: 12 }, (_, i) => model.complete(req(`p${i}`))));
    expect(s.completionRequests()).toHaveLength(12);
    expect(s.maxInFlight).toBe(3);
    await model.close();
    await s.close();
  });

  it('ConcurrencyLimiter is FIFO and a waiter can be aborted', async () => {
    const lim = new ConcurrencyLimiter(1);
    const order: number[] = [];
    const r0 = await lim.acquire();
    const p1 = lim.acquire().then((rel) => (order.push(1), rel));
    const ac = new AbortController();
    const p2 = lim.acquire(ac.signal).catch(() => 'aborted');
    const p3 = lim.acquire().then((rel) => (order.push(3), rel));
    ac.abort();
    expect(await p2).toBe('aborted');
    r0();
    (await p1)();
    (await p3)();
    expect(order).toEqual([1, 3]);
    expect(lim.inFlight).toBe(0);
  });
});

describe('requests and tokens per minute (virtual clock)', () => {
  it('rpm: the (rpm+1)-th request waits until the first leaves the 60 s window', async () => {
    const clock = new VirtualClock(0);
    const rl = new RateLimiter(3, undefined, clock);
    for (let i = 0; i < 3; i++) await rl.acquire(10);
    expect(clock.now()).toBe(0);
    await rl.acquire(10);
    expect(clock.now()).toBe(60_000);
    expect(clock.sleeps).toEqual([60_000]);
  });

  it('tpm: estimates prompt chars/4 + max_tokens per sample and corrects them with real usage', async () => {
    expect(estimateTokens(400, 100, 1)).toBe(200);
    expect(estimateTokens(401, 100, 3)).toBe(401);
    const clock = new VirtualClock(0);
    const rl = new RateLimiter(undefined, 1000, clock);
    const g1 = await rl.acquire(600);
    clock.advance(1000);
    // 600 + 600 > 1000: would wait for the first to expire...
    // ...but the first really used only 150 tokens:
    g1.settle(150);
    await rl.acquire(600);
    expect(clock.now()).toBe(1000);
    expect(rl.windowTokens()).toBe(750);
    // 750 + 600 > 1000; at t=60 000 the first (150) leaves but 600 + 600 still does not fit: the
    // request waits until the second leaves at t=61 000.
    await rl.acquire(600);
    expect(clock.sleeps).toEqual([59_000, 1000]);
    expect(clock.now()).toBe(61_000);
    expect(rl.windowTokens()).toBe(600);
  });

  it('a request bigger than the whole tpm budget still runs when the window is empty', async () => {
    const clock = new VirtualClock(0);
    const rl = new RateLimiter(undefined, 100, clock);
    await rl.acquire(500);
    expect(clock.now()).toBe(0);
    await rl.acquire(1);
    expect(clock.now()).toBe(60_000);
  });

  it('the model applies --rpm through the injected clock', async () => {
    const { model, clock } = await modelOn(a.baseURL, { rpm: 2 });
    const t0 = clock.now();
    for (let i = 0; i < 5; i++) await model.complete(req(`r${i}`));
    // 5 requests at 2/min: admitted at 0, 0, 60 s, 60 s, 120 s
    expect(clock.now() - t0).toBe(120_000);
    await model.close();
  });

  it('the model settles --tpm with the usage the server reports', async () => {
    const { model, clock } = await modelOn(a.baseURL, { tpm: 250 });
    const t0 = clock.now();
    // estimate: 1 + 100 = 101 per call; real usage: 1 prompt + 2 completion = 3 tokens
    for (let i = 0; i < 5; i++) await model.complete(req(`t${i}`));
    expect(clock.now() - t0).toBe(0);
    await model.close();
  });
});
