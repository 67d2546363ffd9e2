// Our retry policy against every fault class of the test server. A virtual clock makes backoff instant
// and records each requested wait.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FatalRunError, InfraError } from '../../src/errors.js';
import { backoffDelay, DEFAULT_RETRY, parseRetryAfter } from '../../src/util/backoff.js';
import { VirtualClock } from '../../src/util/clock.js';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { modelOn, req, SECRET_KEY } from './helpers.js';

let srv: OpenAIServer;
beforeAll(async () => {
  srv = await startOpenAIServer({ respond: () => ' fine' });
});
afterAll(() => srv.close());

const headers = (h: Record<string, string>) => new Headers(h);

describe('parseRetryAfter', () => {
  const now = Date.parse('2024-01-01T00:00:00Z');
  it('reads seconds, HTTP dates and retry-after-ms (which wins)', () => {
    expect(parseRetryAfter(headers({ 'retry-after': '7' }), now)).toBe(7000);
    expect(parseRetryAfter(headers({ 'retry-after': '1.5' }), now)).toBe(1500);
    expect(parseRetryAfter(headers({ 'retry-after': 'Mon, 01 Jan 2024 00:00:30 GMT' }), now)).toBe(30_000);
    expect(parseRetryAfter(headers({ 'retry-after': 'Sun, 31 Dec 2023 23:00:00 GMT' }), now)).toBe(0);
    expect(parseRetryAfter(headers({ 'retry-after': '7', 'retry-after-ms': '250' }), now)).toBe(250);
    expect(parseRetryAfter(headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(headers({}), now)).toBeUndefined();
  });
});

describe('backoffDelay (full jitter)', () => {
  it('is uniform under a ceiling that doubles per attempt up to the maximum', () => {
    expect(backoffDelay(1, DEFAULT_RETRY, () => 0.999)).toBe(999);
    expect(backoffDelay(3, DEFAULT_RETRY, () => 0.5)).toBe(2000);
    expect(backoffDelay(20, DEFAULT_RETRY, () => 0.5)).toBe(15_000);
    expect(backoffDelay(2, DEFAULT_RETRY, () => 0)).toBe(0);
  });
});

describe('transient faults are retried', () => {
  it('429 with Retry-After in seconds: waits exactly that long, then succeeds', async () => {
    const { model, clock } = await modelOn(srv.baseURL);
    srv.reset();
    srv.enqueueFaults({ kind: 'status', status: 429, retryAfter: '3' });
    const r = await model.complete(req('q'));
    expect(r.choices[0].text).toBe(' fine');
    expect(srv.completionRequests()).toHaveLength(2);
    expect(clock.sleeps).toEqual([3000]);
    expect(model.totals()).toMatchObject({ retries: 1, httpRequests: 2, calls: 1 });
    await model.close();
  });

  it('honours retry-after-ms and an HTTP date, but caps the wait at --retry-after-cap', async () => {
    const { model, clock } = await modelOn(srv.baseURL, { retryAfterCap: 10 });
    srv.reset();
    const future = new Date(clock.now() + 3_600_000).toUTCString();
    srv.enqueueFaults(
      { kind: 'status', status: 429, retryAfterMs: 1250 },
      { kind: 'status', status: 429, retryAfter: '86400' },
      { kind: 'status', status: 429, retryAfter: future },
    );
    await model.complete(req('q'));
    expect(clock.sleeps).toEqual([1250, 10_000, 10_000]);
    await model.close();
  });

  it('500 and 503 without Retry-After back off with full jitter', async () => {
    const { model, clock } = await modelOn(srv.baseURL);
    srv.reset();
    srv.enqueueFaults({ kind: 'status', status: 500 }, { kind: 'status', status: 503 }, { kind: 'status', status: 502 });
    const r = await model.complete(req('q'));
    expect(r.choices[0].text).toBe(' fine');
    // random() = 0.5 (helpers): half of 1 s, 2 s, 4 s
    expect(clock.sleeps).toEqual([500, 1000, 2000]);
    await model.close();
  });

  it('a request timeout is retried', async () => {
    const { model } = await modelOn(srv.baseURL, { requestTimeout: 0.3 });
    srv.reset();
    srv.enqueueFaults({ kind: 'delay', ms: 2000 });
    const r = await model.complete(req('q'));
    expect(r.choices[0].text).toBe(' fine');
    expect(srv.completionRequests()).toHaveLength(2);
    expect(model.totals().retries).toBe(1);
    await model.close();
  });

  it('a connection dropped before the headers or in the middle of the body is retried', async () => {
    const { model } = await modelOn(srv.baseURL);
    srv.reset();
    srv.enqueueFaults({ kind: 'drop' }, { kind: 'drop', when: 'mid-body' });
    const r = await model.complete(req('q'));
    expect(r.choices[0].text).toBe(' fine');
    expect(srv.completionRequests()).toHaveLength(3);
    expect(model.totals().retries).toBe(2);
    await model.close();
  });

  it('a malformed JSON body is retried', async () => {
    const { model } = await modelOn(srv.baseURL);
    srv.reset();
    srv.enqueueFaults({ kind: 'malformed' });
    const r = await model.complete(req('q'));
    expect(r.choices[0].text).toBe(' fine');
    expect(srv.completionRequests()).toHaveLength(2);
    await model.close();
  });
});

describe('bounded attempts', () => {
  it('after --max-retries + 1 attempts the call fails with InfraError("llm")', async () => {
    const { model } = await modelOn(srv.baseURL, { maxRetries: 3 });
    srv.reset();
    srv.enqueueFaults(...Array.from({ length: 4 }, () => ({ kind: 'malformed' as const })));
    const e = await model.complete(req('q')).catch((x) => x);
    expect(e).toBeInstanceOf(InfraError);
    expect(e).not.toBeInstanceOf(FatalRunError);
    expect(e.source).toBe('llm');
    expect(e.message).toMatch(/failed after 4 attempts: malformed/);
    expect(srv.completionRequests()).toHaveLength(4);
    expect(model.totals()).toMatchObject({ failedCalls: 1, retries: 3, httpRequests: 4 });
    await model.close();
  });

  it('defaults to 6 attempts', async () => {
    const { model, clock } = await modelOn(srv.baseURL);
    srv.reset();
    srv.enqueueFaults(...Array.from({ length: 6 }, () => ({ kind: 'status' as const, status: 503 })));
    const e = await model.complete(req('q')).catch((x) => x);
    expect(e).toBeInstanceOf(InfraError);
    expect(e.message).toMatch(/6 attempts: HTTP 503/);
    expect(clock.sleeps).toHaveLength(5);
    await model.close();
  });

  it('an unreachable server ends as InfraError without leaking the key', async () => {
    const dead = await startOpenAIServer();
    const url = dead.baseURL;
    await dead.close();
    const { model } = await modelOn(url, { maxRetries: 2 }, { OPENAI_API_KEY: SECRET_KEY });
    const e = await model.complete(req('q')).catch((x) => x);
    expect(e).toBeInstanceOf(InfraError);
    expect(e.message).toMatch(/3 attempts: connection error/);
    expect(e.message).not.toContain(SECRET_KEY);
    await model.close();
  });

  it('an abort stops retrying at once', async () => {
    const { model } = await modelOn(srv.baseURL);
    srv.reset();
    const ac = new AbortController();
    srv.enqueueFaults({ kind: 'delay', ms: 1000 });
    const p = model.complete(req('q'), { signal: ac.signal }).catch((x) => x);
    // Stopped once the request is at the server (a fixed wait might stop it before it was sent).
    await vi.waitFor(() => expect(srv.completionRequests()).toHaveLength(1), { timeout: 10_000, interval: 5 });
    ac.abort();
    const e = await p;
    expect(e).toBeInstanceOf(Error);
    expect(e).not.toBeInstanceOf(InfraError);
    expect(srv.completionRequests()).toHaveLength(1);
    await model.close();
  });
});

describe('VirtualClock', () => {
  it('moves time forward by each sleep', async () => {
    const c = new VirtualClock(0);
    await c.sleep(1500);
    expect(c.now()).toBe(1500);
  });
});

describe('429 insufficient_quota', () => {
  it('is fatal at once (no wait fixes an exhausted account)', async () => {
    const http = await import('node:http');
    let calls = 0;
    const server = http.createServer((_q, s) => {
      calls++;
      s.writeHead(429, { 'content-type': 'application/json' });
      s.end(
        JSON.stringify({
          error: {
            message: 'You exceeded your current quota, please check your plan and billing details.',
            type: 'insufficient_quota',
            param: null,
            code: 'insufficient_quota',
          },
        }),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { model } = await modelOn(`http://127.0.0.1:${(server.address() as any).port}/v1`);
    const e = await model.complete(req('q')).catch((x) => x);
    expect(e).toBeInstanceOf(FatalRunError);
    expect(e.message).toMatch(/out of quota/);
    expect(calls).toBe(1);
    await model.close();
    await new Promise((r) => server.close(r));
  });
});
