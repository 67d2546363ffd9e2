// The environment HTTP client (src/envs/http/request.ts) against a scripted HTTP/1.1 server on
// 127.0.0.1: what is retried, what is not, redirects as python-requests follows them, Retry-After,
// aborts, and secret-free messages. Backoff sleeps go through a VirtualClock: recorded, never waited.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { httpJson, httpRequest, isAbortError } from '../../../src/envs/http/request.js';
import { InfraError } from '../../../src/errors.js';
import { VirtualClock } from '../../../src/util/clock.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

let server: http.Server;
let base: string;
let seen: Seen[] = [];
/** Handlers for the next requests, in order; the last one repeats. */
let script: Handler[] = [];

const ok: Handler = (_q, res) => {
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  res.end('fine');
};
const status =
  (code: number, headers: Record<string, string> = {}): Handler =>
  (_q, res) => {
    res.writeHead(code, headers);
    res.end(`status ${code}`);
  };

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const h = script.length > 1 ? script.shift()! : script[0];
      h(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(
  () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
);
beforeEach(() => {
  seen = [];
  script = [ok];
});

const opts = (clock = new VirtualClock()) => ({ service: 'Test site', clock, random: () => 0.5 });

describe('request line and redirects', () => {
  it('sends the path and query exactly as given', async () => {
    const r = await httpRequest(base, "/w/index.php?search=AT&T+x?'", opts());
    expect(seen[0].url).toBe("/w/index.php?search=AT&T+x?'");
    expect(seen[0].headers['user-agent']).toMatch(/^react-repro\//);
    expect(r).toMatchObject({ status: 200, body: 'fine', url: `${base}/w/index.php?search=AT&T+x?'` });
  });

  it('302 and 303 after a POST become a GET without body; 307 and 308 keep method and body', async () => {
    for (const code of [301, 302, 303, 307, 308]) {
      seen = [];
      script = [status(code, { Location: '/next?x=1' }), ok];
      const r = await httpRequest(base, '/start', { ...opts(), json: { a: 1 } });
      const keeps = code === 307 || code === 308;
      expect(seen.map((s) => [s.method, s.url, s.body]), String(code)).toEqual([
        ['POST', '/start', '{"a":1}'],
        [keeps ? 'POST' : 'GET', '/next?x=1', keeps ? '{"a":1}' : ''],
      ]);
      expect(r.url).toBe(`${base}/next?x=1`);
    }
  });

  it('followRedirects: false returns the 3xx answer', async () => {
    script = [status(302, { Location: '/elsewhere' })];
    const r = await httpRequest(base, '/a', { ...opts(), followRedirects: false });
    expect(r.status).toBe(302);
    expect(r.headers.location).toBe('/elsewhere');
    expect(seen).toHaveLength(1);
  });

  it('a redirect loop stops after 30 hops with an InfraError', async () => {
    script = [status(302, { Location: '/loop' })];
    const err = await httpRequest(base, '/loop', opts()).catch((e) => e);
    expect(err).toBeInstanceOf(InfraError);
    expect(err.message).toBe(`Test site: more than 30 redirects from ${base}/loop`);
    expect(seen).toHaveLength(31);
  });
});

describe('statuses a caller takes as answers', () => {
  it('acceptStatus returns a chosen non-2xx answer (requests.get does not raise); retried statuses are still retried first', async () => {
    script = [status(503), status(404)];
    const clock = new VirtualClock();
    const r = await httpRequest(base, '/a/b', { ...opts(clock), acceptStatus: (s) => s < 500 });
    expect(r).toMatchObject({ status: 404, body: 'status 404', url: `${base}/a/b` });
    expect(seen.map((q) => q.url)).toEqual(['/a/b', '/a/b']);
    expect(clock.sleeps).toHaveLength(1);
    // A status it does not choose is still an InfraError carrying it.
    script = [status(403)];
    const err = await httpRequest(base, '/a', { ...opts(), acceptStatus: (s) => s === 404 }).catch((e) => e);
    expect(err).toBeInstanceOf(InfraError);
    expect(err.status).toBe(403);
  });

  it('persistentStatus: a status that persists for its attempts is returned (answer: true) or an InfraError (answer: false)', async () => {
    const persistent500 = (answer: boolean) => ({ match: (s: number) => s === 500, attempts: 3, answer });
    script = [status(500)];
    const clock = new VirtualClock();
    const r = await httpRequest(base, '/p', { ...opts(clock), persistentStatus: persistent500(true) });
    expect(r).toMatchObject({ status: 500, body: 'status 500' });
    expect(seen).toHaveLength(3);
    expect(clock.sleeps).toHaveLength(2);

    seen = [];
    const err = await httpRequest(base, '/p', { ...opts(), persistentStatus: persistent500(false) }).catch((e) => e);
    expect(err).toBeInstanceOf(InfraError);
    expect(err.status).toBe(500);
    expect(err.message).toBe(`Test site: GET ${base}/p failed 3 times (last: HTTP 500)`);
    expect(seen).toHaveLength(3);

    // A 500 that clears up is retried like any 5xx; other 5xx keep the full policy.
    seen = [];
    script = [status(500), status(503), status(503), ok];
    expect((await httpRequest(base, '/p', { ...opts(), persistentStatus: persistent500(true) })).body).toBe('fine');
    expect(seen).toHaveLength(4);
    // Fewer attempts in the policy win.
    seen = [];
    script = [status(500)];
    await httpRequest(base, '/p', { ...opts(), retry: { maxAttempts: 2 }, persistentStatus: persistent500(true) });
    expect(seen).toHaveLength(2);
  });

  it('a target starting with "//" is a path on the given host, as requests sends it', async () => {
    const r = await httpRequest(base, '//1?x=2', opts());
    expect(seen[0].url).toBe('//1?x=2');
    expect(r.url).toBe(`${base}//1?x=2`);
  });
});

describe('what is retried', () => {
  it('5xx, 429 and 408 are retried with capped exponential backoff and full jitter', async () => {
    script = [status(500), status(502), status(503), status(504), status(429), status(408), ok];
    const clock = new VirtualClock();
    const events: string[] = [];
    const r = await httpRequest(base, '/x', { ...opts(clock), retry: { baseDelayMs: 100, maxDelayMs: 1000 }, onRetry: (e) => events.push(e.reason) });
    expect(r.body).toBe('fine');
    // random() = 0.5: half of min(1000, 100 * 2^(attempt-1))
    expect(clock.sleeps).toEqual([50, 100, 200, 400, 500, 500]);
    expect(events).toEqual(['HTTP 500', 'HTTP 502', 'HTTP 503', 'HTTP 504', 'HTTP 429 (rate limited)', 'HTTP 408']);
  });

  it('honours Retry-After in seconds and as an HTTP date, capped', async () => {
    const clock = new VirtualClock();
    const date = new Date(clock.now() + 10_000).toUTCString(); // read after the first 3 s wait: 7 s left
    script = [status(429, { 'Retry-After': '3' }), status(503, { 'Retry-After': date }), status(503, { 'Retry-After': '3600' }), ok];
    await httpRequest(base, '/x', { ...opts(clock), retry: { retryAfterCapMs: 20_000 } });
    expect(clock.sleeps).toEqual([3000, 7000, 20_000]);
  });

  it('other 4xx: InfraError at once, naming the service and the URL', async () => {
    for (const code of [400, 403, 404]) {
      seen = [];
      script = [status(code)];
      const err = await httpRequest(base, '/missing?q=1', opts()).catch((e) => e);
      expect(err).toBeInstanceOf(InfraError);
      expect(err.source).toBe('env');
      expect(err.message).toBe(`Test site answered HTTP ${code} for ${base}/missing?q=1`);
      expect(err.status).toBe(code);
      expect(seen).toHaveLength(1);
    }
  });

  it('exhausted attempts: InfraError with the last cause', async () => {
    script = [status(503)];
    const clock = new VirtualClock();
    const err = await httpRequest(base, '/x', { ...opts(clock), retry: { maxAttempts: 4 } }).catch((e) => e);
    expect(err.message).toBe(`Test site: GET ${base}/x failed 4 times (last: HTTP 503)`);
    expect(err.status).toBe(503);
    expect(seen).toHaveLength(4);
    expect(clock.sleeps).toHaveLength(3);
  });

  it('dropped connections (before and in the middle of a body) and timeouts are retried', async () => {
    script = [
      (q) => q.socket.destroy(),
      (_q, res) => {
        res.writeHead(200, { 'Content-Length': '100' });
        res.write('partial');
        setTimeout(() => res.socket?.destroy(), 10);
      },
      () => undefined, // hang
      ok,
    ];
    const events: string[] = [];
    const r = await httpRequest(base, '/x', { ...opts(), timeoutMs: 200, onRetry: (e) => events.push(e.reason) });
    expect(r.body).toBe('fine');
    expect(events).toHaveLength(3);
    expect(events[0]).toMatch(/^connection dropped/);
    expect(events[1]).toMatch(/^connection dropped mid-response/);
    expect(events[2]).toBe('timed out after 200 ms');
  });

  it('one attempt allowed: the failure is given as it came, not as "failed 1 times"', async () => {
    const err = await httpRequest('http://127.0.0.1:1', '/x', { ...opts(), retry: { maxAttempts: 1 } }).catch((e) => e);
    expect(err.message).toBe('Test site unreachable at http://127.0.0.1:1: failed (connection refused (ECONNREFUSED))');
  });

  it('refused connections: a few attempts, then InfraError naming the service', async () => {
    const clock = new VirtualClock();
    const err = await httpRequest('http://127.0.0.1:1', '/x', opts(clock)).catch((e) => e);
    expect(err).toBeInstanceOf(InfraError);
    expect(err.message).toBe('Test site unreachable at http://127.0.0.1:1: failed 3 times (last: connection refused (ECONNREFUSED))');
    // No answer came: no status.
    expect(err.status).toBeUndefined();
    expect(clock.sleeps).toHaveLength(2);
  });

  it('a 200 that validate rejects is retried like an outage', async () => {
    script = [(_q, res) => res.end(''), (_q, res) => res.end('<html>maintenance</html>'), ok];
    const events: string[] = [];
    const r = await httpRequest(base, '/x', {
      ...opts(),
      validate: (res) => (res.body === 'fine' ? undefined : res.body ? 'garbage' : 'empty'),
      onRetry: (e) => events.push(e.reason),
    });
    expect(r.body).toBe('fine');
    expect(events).toEqual(['malformed response: empty', 'malformed response: garbage']);
  });
});

describe('httpJson', () => {
  it('posts JSON, parses the answer, retries a non-JSON 200', async () => {
    script = [(_q, res) => res.end('<html>oops</html>'), (_q, res, body) => res.end(JSON.stringify({ echo: JSON.parse(body) }))];
    const events: string[] = [];
    const r = await httpJson<{ echo: unknown }>(base, '/step', { ...opts(), json: { id: 3, action: 'go to desk 1' }, onRetry: (e) => events.push(e.reason) });
    expect(r.json).toEqual({ echo: { id: 3, action: 'go to desk 1' } });
    expect(seen[1].headers['content-type']).toBe('application/json');
    expect(events).toEqual(['malformed response: not JSON']);
  });

  it('validateJson rejects JSON without the expected fields', async () => {
    script = [(_q, res) => res.end('{}')];
    const err = await httpJson(base, '/x', { ...opts(), retry: { maxAttempts: 2 }, validateJson: (v) => ((v as { ok?: 1 }).ok ? undefined : 'no "ok"') }).catch((e) => e);
    expect(err).toBeInstanceOf(InfraError);
    expect(err.message).toBe(`Test site: GET ${base}/x failed 2 times (last: malformed response: no "ok")`);
  });
});

describe('abort', () => {
  it('aborts an in-flight request at once with the signal reason', async () => {
    script = [() => undefined]; // hang
    const ac = new AbortController();
    const p = httpRequest(base, '/hang', { service: 'Test site', signal: ac.signal, timeoutMs: 60_000 });
    await new Promise((r) => setTimeout(r, 50));
    const reason = new Error('stop now');
    ac.abort(reason);
    expect(await p.catch((e) => e)).toBe(reason);
  });

  it('aborts a backoff sleep at once (real clock, 60 s Retry-After)', async () => {
    script = [status(503, { 'Retry-After': '60' })];
    const ac = new AbortController();
    const p = httpRequest(base, '/x', { service: 'Test site', signal: ac.signal, onRetry: () => setTimeout(() => ac.abort(), 10) });
    const err = await p.catch((e) => e);
    expect(isAbortError(err)).toBe(true);
    expect(ac.signal.aborted).toBe(true);
    expect(seen).toHaveLength(1);
  });

  it('a request refused before it is sent (a header with a line break) fails at once and leaves no deadline behind', async () => {
    const ac = new AbortController();
    const err = await httpRequest(base, '/x', {
      ...opts(),
      signal: ac.signal,
      headers: { 'X-Bad': 'a\r\nInjected: 1' },
      limits: { deadlineMs: 30 },
    }).catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(seen).toHaveLength(0);
    // the deadline timer, had it been left, would fire now against a request that never existed
    await new Promise((r) => setTimeout(r, 80));
    ac.abort();
  });

  it('an already aborted signal sends nothing', async () => {
    const err = await httpRequest(base, '/x', { service: 'Test site', signal: AbortSignal.abort() }).catch((e) => e);
    expect(isAbortError(err)).toBe(true);
    expect(seen).toHaveLength(0);
  });
});

describe('secrets', () => {
  it('credentials in the base URL are sent as Basic auth but never shown', async () => {
    const withKey = base.replace('http://', 'http://user:SECRET-KEY-123@');
    script = [status(404)];
    const err = await httpRequest(withKey, '/x', opts()).catch((e) => e);
    expect(seen[0].headers.authorization).toBe('Basic ' + Buffer.from('user:SECRET-KEY-123').toString('base64'));
    expect(err.message).not.toContain('SECRET-KEY-123');
    const refused = await httpRequest('http://user:SECRET-KEY-123@127.0.0.1:1', '/x', opts()).catch((e) => e);
    expect(refused.message).toBe('Test site unreachable at http://127.0.0.1:1: failed 3 times (last: connection refused (ECONNREFUSED))');
  });

  it('credentials are not sent to another host after a redirect', async () => {
    const other = base.replace('127.0.0.1', 'localhost');
    script = [status(302, { Location: `${other}/there` }), ok];
    await httpRequest(base.replace('http://', 'http://u:p@'), '/x', opts());
    expect(seen[0].headers.authorization).toBeDefined();
    expect(seen[1].headers.authorization).toBeUndefined();
  });
});
