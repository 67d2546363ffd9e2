// The model client's transport (src/llm/model-http.ts). Its answers and errors are compared with the
// path it replaced, run here as the oracle: the openai client itself, on Node's fetch, with the body
// read whole and error bodies put in OpenAI's shape first (what the removed fetch layers did).
import { execFileSync, spawn } from 'node:child_process';
import { getEventListeners, setMaxListeners } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIUserAbortError } from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ModelHttp, normalizeErrorBody, requestHeaders, ResponseLimitError, wasSentUnanswered } from '../../src/llm/model-http.js';
import { classifyError, type ErrorContext } from '../../src/llm/retry.js';
import { InfraError } from '../../src/errors.js';
import { ContextLengthError } from '../../src/llm/context-limit.js';
import { tmpDir } from './helpers.js';
import { deadPort } from '../servers/dead-port.js';

const servers: Array<http.Server | https.Server> = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

async function serve(handler: http.RequestListener, server: http.Server | https.Server = http.createServer()): Promise<string> {
  server.on('request', handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const scheme = server instanceof https.Server ? 'https' : 'http';
  return `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

interface Seen {
  method?: string;
  url?: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  port?: number;
}

/** Records each request, then answers it with `answer`. */
function recorder(seen: Seen[], answer: (req: http.IncomingMessage, res: http.ServerResponse) => void): http.RequestListener {
  return (req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body, port: req.socket.remotePort });
      answer(req, res);
    });
  };
}

const client = (baseURL: string, over: Partial<ConstructorParameters<typeof ModelHttp>[0]> = {}) =>
  new ModelHttp({ baseURL, apiKey: 'sk-test', timeoutMs: 5000, maxBytes: 1 << 20, env: {}, ...over });

/** The replaced path: the openai client on Node's fetch, the body read whole, error bodies normalised. */
function oracle(baseURL: string, timeout = 5000): OpenAI {
  const wholeFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const ab = await res.arrayBuffer();
    const buf = Buffer.from(ab);
    const headers = new Headers(res.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    let body: string | ArrayBuffer | null = res.status === 204 || res.status === 304 ? null : ab;
    if (res.status >= 400) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(buf.toString('utf8'));
      } catch {
        parsed = undefined;
      }
      if (parsed !== undefined) body = JSON.stringify(normalizeErrorBody(parsed));
    }
    return new Response(body, { status: res.status, statusText: res.statusText, headers });
  };
  return new OpenAI({ apiKey: 'sk-test', baseURL, maxRetries: 0, timeout, logLevel: 'off', fetch: wholeFetch });
}

/** What a call came to, in terms a test can compare: the value, or the error's class and fields. */
async function outcome(p: Promise<unknown>): Promise<unknown> {
  try {
    return { value: await p };
  } catch (e) {
    if (!(e instanceof Error)) return { thrown: e };
    const f = e as Error & { status?: unknown; error?: unknown; code?: unknown; type?: unknown; param?: unknown; headers?: Headers };
    const cause = e.cause as (Error & { cause?: { code?: unknown } }) | undefined;
    return {
      class: e.constructor.name,
      message: e.message,
      status: f.status,
      error: f.error,
      code: f.code,
      type: f.type,
      param: f.param,
      retryAfter: f.headers?.get?.('retry-after') ?? null,
      requestId: f.headers?.get?.('x-request-id') ?? null,
      cause: cause && { class: cause.constructor.name, message: cause.message, code: cause.cause?.code ?? null },
    };
  }
}

const ctx: ErrorContext = { endpoint: 'http://127.0.0.1', model: 'm', apiKeyEnv: 'OPENAI_API_KEY', hasKey: true, redact: (s) => s };

describe('ModelHttp answers and fails as the openai client did', () => {
  const answers: Record<string, { status: number; headers?: http.OutgoingHttpHeaders; body: string | Buffer }> = {
    ok: {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"choices":[{"index":0,"text":" é","finish_reason":"stop"}]}',
    },
    bom: { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: '\ufeff{"a":1}' },
    plusjson: { status: 200, headers: { 'content-type': 'application/vnd.x+json' }, body: '{"a":2}' },
    text: { status: 200, headers: { 'content-type': 'text/plain' }, body: 'hello' },
    notype: { status: 200, body: '{"a":3}' },
    badjson: { status: 200, headers: { 'content-type': 'application/json' }, body: 'not json' },
    emptyjson: { status: 200, headers: { 'content-type': 'application/json' }, body: '' },
    nocontent: { status: 204, body: '' },
    gzip: { status: 200, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: zlib.gzipSync('{"z":1}') },
    openai400: {
      status: 400,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        error: {
          message: "This model's maximum context length is 4097 tokens",
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      }),
    },
    vllm400: {
      status: 400,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ object: 'error', message: 'too long', type: 'BadRequestError', param: null, code: 400 }),
    },
    ollama400: { status: 400, headers: { 'content-type': 'application/json' }, body: '{"error":"prompt too long"}' },
    fastapi422: { status: 422, headers: { 'content-type': 'application/json' }, body: '{"detail":[{"loc":["body","n"],"msg":"bad"}]}' },
    text500: { status: 500, headers: { 'content-type': 'text/plain' }, body: 'Internal Server Error' },
    empty502: { status: 502, body: '' },
    nulljson401: { status: 401, headers: { 'content-type': 'application/json' }, body: 'null' },
    limited429: {
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '3', 'x-request-id': 'req-1' },
      body: '{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}',
    },
    html404: { status: 404, headers: { 'content-type': 'text/html' }, body: '<h1>Not Found</h1>' },
    json300: { status: 300, headers: { 'content-type': 'application/json' }, body: '{"message":"choose"}' },
    gzip503: { status: 503, headers: { 'content-encoding': 'gzip' }, body: zlib.gzipSync('{"detail":"overloaded"}') },
  };

  it('the same value or error, field by field, for answers of every shape', async () => {
    const base = await serve((req, res) => {
      const a = answers[req.url!.split('/').pop()!];
      req.resume();
      res.writeHead(a.status, a.headers);
      res.end(a.body);
    });
    const o = oracle(`${base}/v1`);
    const ours = client(`${base}/v1`);
    for (const name of Object.keys(answers)) {
      const want = await outcome(o.post(`/${name}`, { body: { model: 'm' } }));
      const got = await outcome(ours.post(`/${name}`, { model: 'm' }));
      expect({ name, outcome: got }).toEqual({ name, outcome: want });
    }
    // and the errors are classified as before
    const e = await ours.post('/openai400', {}).catch((x: unknown) => x);
    const c = classifyError(e, ctx, 0);
    expect(c.kind === 'fail' && c.error).toBeInstanceOf(ContextLengthError);
    const limited = await ours.post('/limited429', {}).catch((x: unknown) => x);
    expect(classifyError(limited, ctx, 0)).toEqual({ kind: 'retry', reason: 'HTTP 429 (rate limited)', retryAfterMs: 3000 });
  });

  it('a refused connection, a cut body and a deadline fail as the openai client failed', async () => {
    const base = await serve((req, res) => {
      req.resume();
      if (req.url!.endsWith('/cut')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"choices":');
        setTimeout(() => res.socket?.destroy(), 20);
      } else if (req.url!.endsWith('/hangup')) {
        req.socket.destroy();
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"choices":'); // and never the rest
      }
    });
    const dead = await deadPort();
    for (const [url, p] of [
      [`http://127.0.0.1:${dead}/v1`, '/completions'],
      [`${base}/v1`, '/cut'],
      [`${base}/v1`, '/hangup'],
      [`${base}/v1`, '/slow'],
    ]) {
      const want = await outcome(oracle(url, 300).post(p, { body: {} }));
      const got = await outcome(client(url, { timeoutMs: 300 }).post(p, {}));
      // undici names a hang-up "other side closed" (UND_ERR_SOCKET), Node "socket hang up" (ECONNRESET): both a dropped connection
      if (p === '/hangup') {
        expect(got).toMatchObject({
          class: 'APIConnectionError',
          cause: { class: 'TypeError', message: 'fetch failed', code: 'ECONNRESET' },
        });
        expect(want).toMatchObject({ class: 'APIConnectionError', cause: { class: 'TypeError', message: 'fetch failed' } });
      } else expect({ p, outcome: got }).toEqual({ p, outcome: want });
    }
    const refused = await client(`http://127.0.0.1:${dead}/v1`)
      .post('/completions', {})
      .catch((x: unknown) => x);
    expect(classifyError(refused, ctx, 0)).toEqual({ kind: 'retry', reason: 'connection error (ECONNREFUSED)', unreachable: true });
    const cut = await client(`${base}/v1`)
      .post('/cut', {})
      .catch((x: unknown) => x);
    expect(classifyError(cut, ctx, 0)).toEqual({ kind: 'retry', reason: 'connection error (UND_ERR_SOCKET)', unreachable: false });
    const late = await client(`${base}/v1`, { timeoutMs: 200 })
      .post('/slow', {})
      .catch((x: unknown) => x);
    expect(late).toBeInstanceOf(APIConnectionTimeoutError);
    expect(classifyError(late, ctx, 0)).toEqual({ kind: 'retry', reason: 'request timed out' });
  });

  it('follows redirects as fetch does: the requests the server sees are the same', async () => {
    const seen: Seen[] = [];
    const other = await serve(
      recorder(seen, (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"where":"other"}');
      }),
    );
    const base = await serve(
      recorder(seen, (req, res) => {
        const m = /^\/v1\/(\d+)(-away)?$/.exec(req.url!);
        if (m) {
          res.writeHead(Number(m[1]), { location: m[2] ? `${other}/elsewhere` : '/moved' });
          res.end('see there');
        } else if (req.url === '/loop') {
          res.writeHead(302, { location: '/loop' });
          res.end();
        } else {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"where":"moved"}');
        }
      }),
    );
    const view = () =>
      seen.splice(0).map((s) => [s.method, s.url, s.body, s.headers['content-type'] ?? null, s.headers.authorization ?? null]);
    for (const p of ['/301', '/302', '/303', '/307', '/308', '/307-away', '/302-away']) {
      const want = await outcome(oracle(`${base}/v1`).post(p, { body: { a: 1 } }));
      const wantSeen = view();
      const got = await outcome(client(`${base}/v1`).post(p, { a: 1 }));
      expect({ p, got, seen: view() }).toEqual({ p, got: want, seen: wantSeen });
    }
    // 307 keeps the POST and its body; 303 makes it a GET without one; another origin gets no key
    await client(`${base}/v1`).post('/307', { a: 1 });
    await client(`${base}/v1`).post('/303', { a: 1 });
    await client(`${base}/v1`).post('/308-away', { a: 1 });
    expect(view()).toEqual([
      ['POST', '/v1/307', '{"a":1}', 'application/json', 'Bearer sk-test'],
      ['POST', '/moved', '{"a":1}', 'application/json', 'Bearer sk-test'],
      ['POST', '/v1/303', '{"a":1}', 'application/json', 'Bearer sk-test'],
      ['GET', '/moved', '', null, 'Bearer sk-test'],
      ['POST', '/v1/308-away', '{"a":1}', 'application/json', 'Bearer sk-test'],
      ['POST', '/elsewhere', '{"a":1}', 'application/json', null],
    ]);
    // a redirect loop ends after fetch's 20 redirects, a connection error
    const loop = await outcome(client(base).post('/loop', {}));
    expect(loop).toMatchObject({ class: 'APIConnectionError', cause: { message: 'fetch failed' } });
    expect(seen.length).toBe(21);
  });
});

describe('ModelHttp requests', () => {
  it('sends the openai client headers and the JSON body, over one kept-alive connection', async () => {
    const seen: Seen[] = [];
    const base = await serve(
      recorder(seen, (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":"é"}');
      }),
    );
    const c = client(`${base}/v1/`, { env: { OPENAI_ORG_ID: 'org-1', OPENAI_PROJECT_ID: ' proj-1 ' } });
    for (let i = 0; i < 2; i++) expect(await c.post('/completions', { model: 'm', prompt: 'ü', n: 1 })).toEqual({ ok: 'é' });
    expect(await c.get('/models')).toEqual({ ok: 'é' });
    const { version } = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../node_modules/openai/package.json'), 'utf8')) as {
      version: string;
    };
    expect(seen.map((s) => [s.method, s.url, s.body])).toEqual([
      ['POST', '/v1/completions', '{"model":"m","prompt":"ü","n":1}'],
      ['POST', '/v1/completions', '{"model":"m","prompt":"ü","n":1}'],
      ['GET', '/v1/models', ''],
    ]);
    const { host: _host, connection: _conn, ...headers } = seen[0].headers;
    expect(headers).toEqual({
      accept: 'application/json',
      authorization: 'Bearer sk-test',
      'user-agent': `OpenAI/JS ${version}`,
      'openai-organization': 'org-1',
      'openai-project': 'proj-1',
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength('{"model":"m","prompt":"ü","n":1}')),
    });
    expect(seen[2].headers['content-type']).toBeUndefined();
    expect(new Set(seen.map((s) => s.port)).size).toBe(1);
  });

  it('OPENAI_CUSTOM_HEADERS adds headers and overrides the defaults, as the openai client reads it', () => {
    expect(requestHeaders('k', { OPENAI_CUSTOM_HEADERS: 'X-Team: a b\nUser-Agent: mine\nno colon' })).toEqual({
      accept: 'application/json',
      authorization: 'Bearer k',
      'user-agent': 'mine',
      'x-team': 'a b',
    });
  });

  it('a Connection header from OPENAI_CUSTOM_HEADERS is sent once, in place of the default one (as node:http sends it)', async () => {
    const seen: Seen[] = [];
    let raw: string[] = [];
    const base = await serve((req, res) => {
      raw = req.rawHeaders;
      recorder(seen, (_q, r) => {
        r.writeHead(200, { 'content-type': 'application/json' });
        r.end('{}');
      })(req, res);
    });
    await client(`${base}/v1`, { env: { OPENAI_CUSTOM_HEADERS: 'Connection: close' } }).post('/completions', { a: 1 });
    const connection = raw.filter((_v, i) => i % 2 === 0 && raw[i].toLowerCase() === 'connection').length;
    expect(connection).toBe(1);
    expect(seen[0].headers.connection).toBe('close');
  });

  it('decodes gzip, deflate, br and a chain of them as fetch does; a body with a coding it does not know is read as sent', async () => {
    const body = '{"a":"décodé"}';
    const coded: Record<string, Buffer> = {
      gzip: zlib.gzipSync(body),
      deflate: zlib.deflateSync(body),
      br: zlib.brotliCompressSync(body),
      'gzip, br': zlib.brotliCompressSync(zlib.gzipSync(body)),
      'X-Gzip': zlib.gzipSync(body),
      // Not decoded at all (fetch's rule): identity, an unknown coding anywhere in the list, an empty item.
      identity: Buffer.from(body),
      'gzip, zstd': Buffer.from(body),
      'gzip,': Buffer.from(body),
    };
    const base = await serve((req, res) => {
      req.resume();
      const enc = decodeURIComponent(req.url!.slice(1));
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': enc });
      res.end(coded[enc]);
    });
    for (const enc of Object.keys(coded)) expect(await client(base).post(`/${encodeURIComponent(enc)}`, {})).toEqual({ a: 'décodé' });
  });

  it('an answer past --llm-max-bytes is a ResponseLimitError (declared, streamed or decoded), the episode model error', async () => {
    const big = Buffer.alloc(5000, 'x');
    const base = await serve((req, res) => {
      req.resume();
      if (req.url === '/declared') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(big.length) });
        res.end(big);
      } else if (req.url === '/chunked') {
        res.writeHead(200, { 'content-type': 'application/json' });
        for (let i = 0; i < 5; i++) res.write(big.subarray(0, 1000));
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(zlib.gzipSync(Buffer.alloc(1 << 20, ' ')));
      }
    });
    for (const p of ['/declared', '/chunked', '/bomb']) {
      const e = await client(base, { maxBytes: 4096 })
        .post(p, {})
        .catch((x: unknown) => x);
      expect(e).toBeInstanceOf(APIConnectionError);
      expect((e as Error).cause).toBeInstanceOf(ResponseLimitError);
      const c = classifyError(e, ctx, 0);
      expect(c).toMatchObject({ kind: 'fail' });
      expect(c.kind === 'fail' && c.error instanceof InfraError && c.error.message).toBe(
        'model "m" at http://127.0.0.1: the answer is larger than 4096 bytes (--llm-max-bytes)',
      );
    }
  });

  it("the caller's abort, before the answer and (as the machine's timing allows) during its body, is an APIUserAbortError and closes the connection", async () => {
    const closed: string[] = [];
    const handled: string[] = [];
    const base = await serve((req, res) => {
      req.resume();
      req.socket.on('close', () => closed.push(req.url!));
      if (req.url === '/body') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{', () => handled.push(req.url!));
      } else handled.push(req.url!);
    });
    const already = new AbortController();
    already.abort();
    await expect(client(base).post('/never', {}, already.signal)).rejects.toBeInstanceOf(APIUserAbortError);
    for (const p of ['/head', '/body']) {
      const ac = new AbortController();
      const call = client(base).post(p, {}, ac.signal);
      // Stopped once the server has the request (and has sent the head and part of the body): a fixed
      // wait might stop it before it was sent, and the server would never see a connection to close.
      // The 20 ms after it lets the client read the head in time on most machines, not on every one:
      // both cases must end the same way, so the test holds either way.
      await vi.waitFor(() => expect(handled).toContain(p), { timeout: 10_000, interval: 5 });
      await new Promise((r) => setTimeout(r, 20));
      ac.abort(new Error('stop'));
      await expect(call).rejects.toBeInstanceOf(APIUserAbortError);
    }
    await new Promise<void>((r) => {
      const wait = () => (closed.length === 2 ? r() : setTimeout(wait, 10));
      wait();
    });
    expect(closed.sort()).toEqual(['/body', '/head']);
  });

  it('tells a failure after the request reached the server (maybe billed) from one before it or with an answer (not billed)', async () => {
    /** The whole of the last unanswered request reached the server (so the client had written it). */
    let received = false;
    const base = await serve((req, res) => {
      req.resume();
      if (req.url!.endsWith('/error')) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"boom"}}');
      } else if (req.url!.endsWith('/cut')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"choices":');
        setTimeout(() => res.socket?.destroy(), 20);
      } else if (req.url!.endsWith('/hangup')) {
        req.on('end', () => req.socket.destroy());
      } else req.on('end', () => (received = true)); // never answers
    });
    const failure = (url: string, p: string, o: { timeoutMs?: number; abortWhenReceived?: boolean } = {}) => {
      const ac = new AbortController();
      received = false;
      const call = client(url, { timeoutMs: o.timeoutMs ?? 5000 })
        .post(p, { prompt: 'x'.repeat(100_000) }, ac.signal)
        .then(
          () => undefined,
          (x: unknown) => x,
        );
      if (!o.abortWhenReceived) return call;
      // Stopped once the server has it: a fixed wait might stop it before it was all sent.
      return (async () => {
        await vi.waitFor(() => expect(received).toBe(true), { timeout: 10_000, interval: 5 });
        ac.abort(new Error('stop'));
        return call;
      })();
    };
    const dead = await deadPort();
    const refused = await failure(`http://127.0.0.1:${dead}/v1`, '/completions');
    expect(refused).toBeInstanceOf(APIConnectionError);
    expect(wasSentUnanswered(refused)).toBe(false);
    const answered = await failure(`${base}/v1`, '/error');
    expect(answered).toMatchObject({ status: 500 });
    expect(wasSentUnanswered(answered)).toBe(false);
    const aborted = await failure(`${base}/v1`, '/slow', { abortWhenReceived: true });
    expect(aborted).toBeInstanceOf(APIUserAbortError);
    expect(wasSentUnanswered(aborted)).toBe(true);
    // A deadline well past the time the request takes to send, even on a loaded machine.
    const late = await failure(`${base}/v1`, '/slow', { timeoutMs: 1000 });
    expect(late).toBeInstanceOf(APIConnectionTimeoutError);
    expect(wasSentUnanswered(late)).toBe(true);
    expect(wasSentUnanswered(await failure(`${base}/v1`, '/cut'))).toBe(true);
    expect(wasSentUnanswered(await failure(`${base}/v1`, '/hangup'))).toBe(true);
  });

  it("a call that fails after its answer was whole (decoded past --llm-max-bytes) leaves the connection's next call alone", async () => {
    // The lean client pools the connection as soon as the gzip body is read; the decoder fails later.
    const bomb = zlib.gzipSync(Buffer.alloc(30_000_000));
    let bAnswered = false;
    const base = await serve((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        if (body.includes('"a"')) {
          res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bomb.length });
          res.end(bomb);
        } else
          setTimeout(() => {
            bAnswered = true;
            res.writeHead(200, { 'content-type': 'application/json', 'content-length': '7' });
            res.end('{"b":1}');
          }, 300);
      });
    });
    const m = client(`${base}/v1`, { timeoutMs: 10_000, maxBytes: 10_000_000 });
    const a = m.post('/completions', { a: 1 }).catch((e: unknown) => e);
    // B takes the connection A left in the pool while A's body is still being decoded
    await new Promise((r) => setTimeout(r, 20));
    const b = await m.post('/completions', { b: 1 });
    expect(b).toEqual({ b: 1 });
    expect(bAnswered).toBe(true);
    expect(((await a) as Error).cause).toBeInstanceOf(ResponseLimitError);
  });

  it('a redirect whose own body is cut after the next hop was sent does not fail (or resend) the call', async () => {
    const seen: string[] = [];
    const base = await serve((req, res) => {
      req.resume();
      seen.push(req.url!);
      if (req.url === '/v1/completions') {
        res.writeHead(307, { location: '/v1/ok', 'content-length': '100' });
        res.write('0123456789');
        setTimeout(() => res.socket?.destroy(), 20);
      } else
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '13' });
          res.end('{"choices":1}');
        }, 150);
    });
    expect(await client(`${base}/v1`).post('/completions', { a: 1 })).toEqual({ choices: 1 });
    expect(seen).toEqual(['/v1/completions', '/v1/ok']);
  });

  it("leaves no listener on the caller's signal, whatever the call came to (a run passes one signal to every call)", async () => {
    const base = await serve((req, res) => {
      req.resume();
      if (req.url === '/slow') return; // never answers
      res.writeHead(req.url === '/ok' ? 200 : 503, { 'content-type': 'application/json' });
      res.end('{"ok":1}');
    });
    const run = new AbortController();
    setMaxListeners(0, run.signal); // as the runner does
    const c = client(base, { timeoutMs: 100 });
    const dead = await deadPort();
    await Promise.allSettled([
      ...Array.from({ length: 20 }, () => c.post('/ok', {}, run.signal)),
      c.post('/fail', {}, run.signal),
      c.post('/slow', {}, run.signal),
      client(`http://127.0.0.1:${dead}`).post('/x', {}, run.signal),
    ]);
    expect(getEventListeners(run.signal, 'abort')).toEqual([]);
  });

  it('speaks https (a server whose certificate the process trusts)', async () => {
    const dir = tmpDir();
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
    ], { stdio: 'ignore' }); // prettier-ignore
    const server = https.createServer({
      key: fs.readFileSync(path.join(dir, 'key.pem')),
      cert: fs.readFileSync(path.join(dir, 'cert.pem')),
    });
    const seen: Seen[] = [];
    const base = await serve(
      recorder(seen, (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"secure":true}');
      }),
      server,
    );
    const code = `import { ModelHttp } from './src/llm/model-http.ts';
const c = new ModelHttp({ baseURL: process.argv[1], apiKey: 'k', timeoutMs: 5000, maxBytes: 1000 });
process.stdout.write(JSON.stringify([await c.post('/completions', { a: 1 }), await c.post('/completions', { a: 2 })]));`;
    const out = await child(code, [`${base}/v1`], { NODE_EXTRA_CA_CERTS: path.join(dir, 'cert.pem') });
    expect(out).toEqual([0, '[{"secure":true},{"secure":true}]']);
    expect(seen.map((s) => [s.method, s.url, s.body])).toEqual([
      ['POST', '/v1/completions', '{"a":1}'],
      ['POST', '/v1/completions', '{"a":2}'],
    ]);
    expect(seen[1].port).toBe(seen[0].port);
  }, 30_000);

  it('closes a connection left idle (after 4 s, before servers close theirs), and only then', async () => {
    const sockets: Array<{ closed: boolean }> = [];
    const base = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":1}');
    });
    servers[0].keepAliveTimeout = 0; // the server never closes an idle connection itself
    servers[0].on('connection', (s: import('node:net').Socket) => {
      const rec = { closed: false };
      sockets.push(rec);
      s.on('close', () => (rec.closed = true));
    });
    const c = client(base);
    await c.post('/a', {});
    await new Promise((r) => setTimeout(r, 500));
    await c.post('/b', {});
    expect(sockets).toEqual([{ closed: false }]); // kept alive and reused
    // Fails by the test's time limit if the idle connection is never closed.
    await new Promise<void>((r) => {
      const wait = () => (sockets[0].closed ? r() : setTimeout(wait, 50));
      wait();
    });
  }, 15_000);

  it('a kept-alive idle connection does not keep the process alive (a run exits when its work is done)', async () => {
    const base = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":1}');
    });
    servers[0].keepAliveTimeout = 0; // the server never closes the idle connection itself
    const code = `import { ModelHttp } from './src/llm/model-http.ts';
const c = new ModelHttp({ baseURL: process.argv[1], apiKey: 'k', timeoutMs: 60000, maxBytes: 1000 });
process.stdout.write(JSON.stringify(await c.post('/completions', {})));`;
    // Fails by the test's time limit if the connection held the child open.
    expect(await child(code, [base])).toEqual([0, '{"ok":1}']);
  }, 30_000);
});

function child(code: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<[number | null, string]> {
  const c = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code, ...args], {
    cwd: path.resolve(__dirname, '../..'),
    env: { ...process.env, ...env },
  });
  let out = '';
  c.stdout.on('data', (d: Buffer) => (out += String(d)));
  c.stderr.on('data', (d: Buffer) => (out += String(d)));
  return new Promise((r) => c.on('exit', (exit) => r([exit, out])));
}
