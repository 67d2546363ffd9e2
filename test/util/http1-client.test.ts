// The lean HTTP/1.1 client (src/util/http1-client.ts) against node:http itself: raw net servers on
// 127.0.0.1 send crafted answer bytes, and each case runs both clients (Http1Pool.request; http.request
// with a fresh agent) against the same bytes. Both must report the same status, headers (node:http's
// res.headers and rawHeaders), body, or the same failure: its code, its message, before or after the
// head. The callers (src/llm/model-http.ts, src/envs/http/request.ts) word and retry failures by those.
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { Http1Pool, requestHead } from '../../src/util/http1-client.js';

/**
 * What one request got: its answer, or its failure (`afterHead`: the head had been delivered; a failed
 * answer's partial body is left out, as both callers drop it).
 */
interface Outcome {
  status?: number;
  headers?: http.IncomingHttpHeaders;
  rawHeaders?: string[];
  body?: string;
  error?: { code: string | undefined; message: string; afterHead: boolean };
  /** Neither an answer nor a failure within the bound (a client left waiting). */
  hung?: true;
}

/** What a server does on request `n` (from 1) of its connection `conn` (from 1). */
type Script = (socket: net.Socket, conn: number, n: number) => void | Promise<void>;

interface Server {
  port: number;
  /** Connections accepted so far. */
  connections(): number;
}

/** Only a bound against a client left waiting forever, never a measured time. */
const BOUND_MS = 5000;

const servers: net.Server[] = [];
const serverSockets = new Set<net.Socket>();
const agents: http.Agent[] = [];

afterEach(async () => {
  for (const a of agents.splice(0)) a.destroy();
  for (const s of serverSockets) s.destroy();
  serverSockets.clear();
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
});

async function serve(script: Script): Promise<Server> {
  let count = 0;
  const server = net.createServer((socket) => {
    const conn = ++count;
    serverSockets.add(socket);
    socket.setNoDelay(true);
    socket.on('close', () => serverSockets.delete(socket));
    socket.on('error', () => {});
    // requests carry no body: each ends at its empty line
    let pending = '';
    let n = 0;
    socket.on('data', (d: Buffer) => {
      pending += d.toString('latin1');
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        pending = pending.slice(end + 4);
        void script(socket, conn, ++n);
      }
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port, connections: () => count };
}

const pause = () => new Promise((r) => setTimeout(r, 1));

/**
 * Writes `pieces` one write each, waiting between them so that the client reads them apart; then
 * ends the connection ('end': FIN), resets it ('reset': RST) or keeps it open ('hold').
 */
async function send(socket: net.Socket, pieces: (string | Buffer)[], after: 'end' | 'reset' | 'hold' = 'hold'): Promise<void> {
  for (let i = 0; i < pieces.length; i++) {
    if (i > 0) await pause();
    if (socket.destroyed) return;
    const p = pieces[i];
    await new Promise((r) => socket.write(typeof p === 'string' ? Buffer.from(p, 'latin1') : p, r));
  }
  if (after === 'end') socket.end();
  else if (after === 'reset') {
    if (pieces.length) await pause();
    socket.resetAndDestroy();
  }
}

const bytewise = (s: string) => [...s];

function failure(e: NodeJS.ErrnoException, afterHead: boolean): Outcome['error'] {
  return { code: e.code, message: e.message, afterHead };
}

/** One GET / through the lean client. */
function viaLean(pool: Http1Pool, port: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const out: Outcome = {};
    const chunks: Buffer[] = [];
    const body = () => (out.status === undefined ? {} : { body: Buffer.concat(chunks).toString('latin1') });
    const settle = (o: Outcome) => {
      clearTimeout(timer);
      resolve(o);
    };
    const request = Buffer.from(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n`, 'latin1');
    const req = pool.request('127.0.0.1', port, request, {
      written: () => {},
      head: (status, headers, rawHeaders) => {
        Object.assign(out, { status, headers, rawHeaders });
        return true;
      },
      data: (c) => void chunks.push(c),
      end: () => settle({ ...out, ...body() }),
      error: (e, answered) => settle({ ...out, error: failure(e, answered) }),
    });
    const timer = setTimeout(() => {
      req.destroy();
      resolve({ ...out, hung: true });
    }, BOUND_MS);
  });
}

/** One GET / through node:http. */
function viaNode(agent: http.Agent, port: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const out: Outcome = {};
    const chunks: Buffer[] = [];
    const body = () => (out.status === undefined ? {} : { body: Buffer.concat(chunks).toString('latin1') });
    let settled = false;
    const settle = (o: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(o);
    };
    const req = http.request({ host: '127.0.0.1', port, path: '/', agent });
    req.on('error', (e) => settle({ ...out, error: failure(e, out.status !== undefined) }));
    req.on('response', (res) => {
      Object.assign(out, { status: res.statusCode, headers: res.headers, rawHeaders: res.rawHeaders });
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => settle({ ...out, ...body() }));
      res.on('error', (e) => settle({ ...out, error: failure(e, true) }));
    });
    req.end();
    const timer = setTimeout(() => {
      req.destroy();
      settle({ ...out, hung: true });
    }, BOUND_MS);
  });
}

/** Runs `requests` requests in a row through each client, each client on its own server running `script`. */
async function both(script: Script, requests = 1) {
  const pool = new Http1Pool(60_000);
  const agent = new http.Agent({ keepAlive: true });
  agents.push(agent);
  const [a, b] = [await serve(script), await serve(script)];
  const lean: Outcome[] = [];
  const node: Outcome[] = [];
  for (let i = 0; i < requests; i++) {
    lean.push(await viaLean(pool, a.port));
    node.push(await viaNode(agent, b.port));
  }
  return { lean, node, connections: [a.connections(), b.connections()] };
}

/** One request each, the server sending `pieces` then `after`; the lean client's outcome equals node:http's. */
async function same(pieces: (string | Buffer)[], after: 'end' | 'reset' | 'hold' = 'hold'): Promise<Outcome> {
  const { lean, node } = await both((s) => send(s, pieces, after));
  expect(lean[0]).toEqual(node[0]);
  return lean[0];
}

const CL_ANSWER = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nhello world';
const CHUNKED_ANSWER =
  'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n' +
  '5;name=value\r\nhello\r\n6;a=1;b="q x"\r\n world\r\n0\r\nX-Trailer: t\r\nX-Other: u\r\n\r\n';

describe('framing: the same status, headers and body as node:http', () => {
  it('Content-Length', async () => {
    expect(await same([CL_ANSWER])).toMatchObject({ status: 200, body: 'hello world', headers: { 'content-length': '11' } });
  });

  it('chunked, with chunk extensions and trailers', async () => {
    expect(await same([CHUNKED_ANSWER])).toMatchObject({ status: 200, body: 'hello world' });
  });

  it('a chunked answer one byte per write', async () => {
    expect(await same(bytewise(CHUNKED_ANSWER))).toMatchObject({ status: 200, body: 'hello world' });
  });

  it('a headers block one byte per write, then its body', async () => {
    const head = 'HTTP/1.1 201 Created\r\nX-One: 1\r\nX-Two:  two words \r\nContent-Length: 4\r\n\r\n';
    expect(await same([...bytewise(head), 'body'])).toMatchObject({ status: 201, body: 'body', headers: { 'x-two': 'two words' } });
  });

  it('a small answer written in two pieces, split at every point', async () => {
    const answers = [
      'HTTP/1.1 200 OK\r\nX-A: 1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n',
      'HTTP/1.1 200 OK\r\nX-A: 1\r\nContent-Length: 3\r\n\r\nabc',
    ];
    for (const answer of answers) {
      for (let at = 1; at < answer.length; at++) {
        const { lean, node } = await both((s) => send(s, [answer.slice(0, at), answer.slice(at)]));
        expect(lean[0], `split at ${at}`).toEqual(node[0]);
        expect(lean[0], `split at ${at}`).toMatchObject({ status: 200, body: 'abc' });
      }
    }
  });

  it('close-delimited: no length, Connection: close', async () => {
    const out = await same(['HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil ', 'the end'], 'end');
    expect(out).toMatchObject({ status: 200, body: 'until the end' });
  });

  it('close-delimited: no length and no Connection header', async () => {
    expect(await same(['HTTP/1.1 200 OK\r\n\r\nread to the end'], 'end')).toMatchObject({ body: 'read to the end' });
  });

  it('an HTTP/1.0 answer', async () => {
    expect(await same(['HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nold style'], 'end')).toMatchObject({ body: 'old style' });
  });

  it('204 and 304 have no body, whatever their headers say', async () => {
    expect(await same(['HTTP/1.1 204 No Content\r\nX-A: 1\r\n\r\n'])).toMatchObject({ status: 204, body: '' });
    expect(await same(['HTTP/1.1 304 Not Modified\r\nETag: "x"\r\nContent-Length: 10\r\n\r\n'])).toMatchObject({ status: 304, body: '' });
  });

  it('1xx answers (100 Continue, 103 Early Hints) before the real one', async () => {
    const out = await same(['HTTP/1.1 100 Continue\r\n\r\n', 'HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n' + CL_ANSWER]);
    expect(out).toMatchObject({ status: 200, body: 'hello world' });
    expect(await same(['HTTP/1.1 100 Continue\r\n\r\n' + CL_ANSWER])).toMatchObject({ status: 200 });
  });

  it('duplicate headers: set-cookie a list, cookie joined by "; ", others by ", ", some first-only', async () => {
    const head = [
      'HTTP/1.1 200 OK',
      'Set-Cookie: a=1',
      'X-Multi: one',
      'Content-Type: text/plain',
      'set-cookie: b=2',
      'x-multi: two',
      'Content-Type: text/html',
      'Cookie: c=3',
      'Cookie: d=4',
      'Server: first',
      'Server: second',
      'Location: /a',
      'Location: /b',
      'Retry-After: 1',
      'Retry-After: 2',
      'Content-Length: 2',
    ];
    const out = await same([head.join('\r\n') + '\r\n\r\nok']);
    expect(out.headers).toMatchObject({
      'set-cookie': ['a=1', 'b=2'],
      'x-multi': 'one, two',
      'content-type': 'text/plain',
      cookie: 'c=3; d=4',
      server: 'first',
      location: '/a',
      'retry-after': '1',
    });
  });

  it('an answer larger than the 64 KiB read buffer, in many reads', async () => {
    const body = Buffer.alloc(200_000);
    for (let i = 0; i < body.length; i++) body[i] = 97 + ((i * 7) % 26);
    const pieces: Buffer[] = [];
    for (let i = 0; i < body.length; i += 4096) pieces.push(body.subarray(i, i + 4096));
    const cl = await same([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`), ...pieces]);
    expect(cl.body).toBe(body.toString('latin1'));
    // chunks of 70000 bytes cross every read's end; one write carries the whole
    const chunks: Buffer[] = [Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n')];
    for (let i = 0; i < body.length; i += 70_000) {
      const c = body.subarray(i, i + 70_000);
      chunks.push(Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n'));
    }
    chunks.push(Buffer.from('0\r\n\r\n'));
    expect((await same([Buffer.concat(chunks)])).body).toBe(body.toString('latin1'));
    // and one close-delimited, in one write
    expect((await same([Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n'), body])], 'end')).body).toBe(
      body.toString('latin1'),
    );
  });
});

describe('failures: the same code and message as node:http, before or after the head', () => {
  const parseFailure = (code: string) => ({ error: { code, afterHead: false } });

  it('a header line folded (obs-fold)', async () => {
    expect(await same(['HTTP/1.1 200 OK\r\nX-Folded: a\r\n b\r\nContent-Length: 2\r\n\r\nok'])).toMatchObject(
      parseFailure('HPE_INVALID_HEADER_TOKEN'),
    );
  });

  it('header names that are not tokens', async () => {
    for (const line of ['Bad Name: x', 'X-A : b', 'Bad(Name): x', 'no colon at all', ': empty name', 'X-\x01: ctl']) {
      const { lean, node } = await both((s) => send(s, [`HTTP/1.1 200 OK\r\n${line}\r\nContent-Length: 2\r\n\r\nok`]));
      expect(lean[0], line).toEqual(node[0]);
      expect(lean[0], line).toMatchObject({ error: { afterHead: false } });
    }
  });

  it('status lines that are not HTTP/1.x ones: the code says which part is wrong', async () => {
    for (const [line, code] of [
      ['HTTP/1.1 abc OK', 'HPE_INVALID_STATUS'],
      ['HTTP/1.1  200 OK', 'HPE_INVALID_STATUS'],
      ['HTTP/1.1 200OK', 'HPE_INVALID_STATUS'],
      ['HTTP/1.1 2000 OK', 'HPE_INVALID_STATUS'],
      ['HTTP/1.2 200 OK', 'HPE_INVALID_VERSION'],
      ['HTTP/1.1 200', undefined],
    ]) {
      const { lean, node } = await both((s) => send(s, [`${line}\r\nContent-Length: 2\r\n\r\nok`]));
      expect(lean[0], line).toEqual(node[0]);
      expect(lean[0].error?.code, line).toBe(code);
    }
  });

  it('header values: spaces and tabs around them dropped, nothing else', async () => {
    const out = await same(['HTTP/1.1 200 OK\r\nX-A: \t a b \t\r\nX-B:\r\nX-C: c\xa0\r\nContent-Length: 2\r\n\r\nok']);
    expect(out.headers).toMatchObject({ 'x-a': 'a b', 'x-b': '', 'x-c': 'c\xa0' });
  });

  it('two Content-Lengths, or one beside Transfer-Encoding (the framing is ambiguous)', async () => {
    expect(await same(['HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok'])).toMatchObject({
      error: { code: 'HPE_UNEXPECTED_CONTENT_LENGTH', afterHead: false },
    });
    expect(await same(['HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n'])).toMatchObject({
      error: { code: 'HPE_INVALID_TRANSFER_ENCODING', afterHead: false },
    });
  });

  it('a non-HTTP answer (garbage), the connection kept open or closed', async () => {
    expect(await same(['SSH-2.0-OpenSSH_9.6\r\n'])).toMatchObject(parseFailure('HPE_INVALID_CONSTANT'));
    expect(await same(['<html>not http</html>'], 'end')).toMatchObject(parseFailure('HPE_INVALID_CONSTANT'));
    expect(await same(['garbage\r\n\r\n'])).toMatchObject(parseFailure('HPE_INVALID_CONSTANT'));
  });

  it('a connection closed before any byte: "socket hang up"', async () => {
    expect(await same([], 'end')).toMatchObject({ error: { code: 'ECONNRESET', message: 'socket hang up', afterHead: false } });
  });

  it('a connection reset before any byte', async () => {
    expect(await same([], 'reset')).toMatchObject({ error: { code: 'ECONNRESET', afterHead: false } });
  });

  it('a connection refused', async () => {
    const server = await serve(() => {});
    await new Promise<void>((r) => servers.pop()!.close(() => r()));
    const lean = await viaLean(new Http1Pool(60_000), server.port);
    const agent = new http.Agent({ keepAlive: true });
    agents.push(agent);
    expect(lean).toEqual(await viaNode(agent, server.port));
    expect(lean).toMatchObject({ error: { code: 'ECONNREFUSED', afterHead: false } });
  });

  it('a connection closed mid-head', async () => {
    expect(await same(['HTTP/1.1 200 OK\r\nContent-Le'], 'end')).toMatchObject({ error: { message: 'socket hang up', afterHead: false } });
    expect(await same(['HTTP/1.1 2'], 'end')).toMatchObject({ error: { afterHead: false } });
  });

  it('a connection closed mid-body: Content-Length larger than sent, a chunked body cut', async () => {
    const cut = { error: { code: 'ECONNRESET', message: 'aborted', afterHead: true } };
    expect(await same(['HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello'], 'end')).toMatchObject(cut);
    expect(await same(['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\r\nhello'], 'end')).toMatchObject(cut);
    expect(await same(['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n'], 'end')).toMatchObject(cut);
    expect(await same(['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n'], 'end')).toMatchObject(cut);
    // A reset mid-body: whether the reset or the cut is seen first is a race, for node:http as for this
    // client ("read ECONNRESET" or "aborted"); both clients must give one of the two, after the head.
    const { lean, node } = await both((sock) => send(sock, ['HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello'], 'reset'));
    for (const o of [lean[0]!, node[0]!]) {
      expect(o.error).toMatchObject({ code: 'ECONNRESET', afterHead: true });
      expect(['aborted', 'read ECONNRESET']).toContain(o.error!.message);
    }
  });

  it('a chunk size that is not hex', async () => {
    const out = await same(['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n']);
    expect(out).toMatchObject({ error: { code: 'HPE_INVALID_CHUNK_SIZE', afterHead: true } });
  });

  it('a chunk size followed by a space', async () => {
    const out = await same(['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2 \r\nok\r\n0\r\n\r\n']);
    expect(out).toMatchObject({ error: { code: 'HPE_INVALID_CHUNK_SIZE', afterHead: true } });
  });

  it('chunk data not followed by its CRLF', async () => {
    await same(['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n0\r\n\r\n']);
  });

  it('a Content-Length that is not a number', async () => {
    expect(await same(['HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\nx'])).toMatchObject({ error: { afterHead: false } });
  });
});

describe('deliberately more lenient than node:http (no caller relies on the refusal)', () => {
  it('a head or chunk lines ended by bare LFs: read as if CRLF', async () => {
    // node:http refuses them (HPE_CR_EXPECTED); reading them costs nothing and loses nothing
    const { lean, node } = await both((s) => send(s, ['HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n2\nok\n0\n\n']));
    expect(node[0]).toMatchObject({ error: { code: 'HPE_CR_EXPECTED' } });
    expect(lean[0]).toMatchObject({ status: 200, body: 'ok' });
  });

  it('bytes after a whole answer: the answer stands, the connection is not reused', async () => {
    // node:http fails the request it had already answered (HPE_INVALID_CONSTANT); the answer is whole
    const { lean, node, connections } = await both(
      (s, conn, n) => send(s, [`HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nc${conn}r${n}EXTRA`]),
      2,
    );
    expect(node[0]).toMatchObject({ error: { code: 'HPE_INVALID_CONSTANT', afterHead: true } });
    expect(lean.map((o) => o.body)).toEqual(['c1r1', 'c2r1']);
    expect(connections[0]).toBe(2);
  });
});

describe('kept-alive connections', () => {
  const ok = (s: net.Socket, body = 'ok') => send(s, [`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`]);

  it('two requests in a row share one connection', async () => {
    const { lean, node, connections } = await both((s, conn, n) => ok(s, `c${conn}r${n}`), 2);
    expect(lean).toEqual(node);
    expect(lean.map((o) => o.body)).toEqual(['c1r1', 'c1r2']);
    expect(connections).toEqual([1, 1]);
  });

  it('a 204 and a 304 leave the connection reusable', async () => {
    const answers = ['HTTP/1.1 204 No Content\r\n\r\n', 'HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n'];
    const { lean, node, connections } = await both((s, conn, n) => (n <= 2 ? send(s, [answers[n - 1]]) : ok(s, `c${conn}r${n}`)), 3);
    expect(lean).toEqual(node);
    expect(lean.map((o) => o.body)).toEqual(['', '', 'c1r3']);
    expect(connections).toEqual([1, 1]);
  });

  it('a server that closed the idle connection: the next request opens a new one and succeeds', async () => {
    const closed: Promise<void>[] = [];
    const script: Script = async (s, conn, n) => {
      if (conn === 1) closed.push(new Promise((r) => s.on('close', () => r())));
      await ok(s, `c${conn}r${n}`);
      // FIN: the server sees 'close' only once the client has read it and closed its side
      if (conn === 1) s.end();
    };
    const [a, b] = [await serve(script), await serve(script)];
    const pool = new Http1Pool(60_000);
    const agent = new http.Agent({ keepAlive: true });
    agents.push(agent);
    const first = [await viaLean(pool, a.port), await viaNode(agent, b.port)];
    await Promise.all(closed);
    const second = [await viaLean(pool, a.port), await viaNode(agent, b.port)];
    expect([first[0], second[0]]).toEqual([first[1], second[1]]);
    expect([first[0].body, second[0].body]).toEqual(['c1r1', 'c2r1']);
    expect([a.connections(), b.connections()]).toEqual([2, 2]);
  });

  it('a server that closes a reused connection on the next request: both fail with "socket hang up" before the head', async () => {
    // node:http does not retry it itself: the callers retry it (ECONNRESET)
    const { lean, node, connections } = await both((s, _conn, n) => (n === 1 ? ok(s) : void s.end()), 2);
    expect(lean).toEqual(node);
    expect(lean[1]).toEqual({ error: { code: 'ECONNRESET', message: 'socket hang up', afterHead: false } });
    expect(connections).toEqual([1, 1]);
  });

  it('a "Keep-Alive: timeout=N" hint is honoured as node:http honours it: N = 1 is not kept, N = 2 is', async () => {
    // node:http's agent keeps a socket N − 1 s at most (none when that is 0): closed before the server would
    for (const [hint, conns] of [
      [1, 2],
      [2, 1],
    ] as const) {
      const { lean, node, connections } = await both(
        (s, conn, n) => send(s, [`HTTP/1.1 200 OK\r\nKeep-Alive: timeout=${hint}\r\nContent-Length: 4\r\n\r\nc${conn}r${n}`]),
        2,
      );
      expect(lean).toEqual(node);
      expect(connections).toEqual([conns, conns]);
    }
  });

  it('a header named like an Object property ("constructor") is read as any other', async () => {
    const out = await same(['HTTP/1.1 200 OK\r\nConstructor: x\r\nToString: y\r\nContent-Length: 0\r\n\r\n']);
    expect(out.headers).toMatchObject({ constructor: 'x', tostring: 'y' });
  });

  it('an answer that comes before the request body is all written: the connection is not reused, as node:http does not', async () => {
    // The first connection answers 413 to the head and stops reading, so 8 MB of body stay queued on
    // the client's socket; a second request sent on that connection would wait behind them forever.
    const big = Buffer.alloc(8 << 20, 120);
    const run = async (client: 'lean' | 'node') => {
      let conns = 0;
      const server = net.createServer((socket) => {
        const conn = ++conns;
        serverSockets.add(socket);
        socket.on('close', () => serverSockets.delete(socket));
        socket.on('error', () => {});
        let head = '';
        const onData = (d: Buffer) => {
          head += d.toString('latin1');
          if (!head.includes('\r\n\r\n')) return;
          socket.off('data', onData);
          if (conn === 1) {
            socket.pause();
            socket.write('HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\n\r\n');
          } else socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
        };
        socket.on('data', onData);
      });
      servers.push(server);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const port = (server.address() as net.AddressInfo).port;
      const statuses: (number | string)[] = [];
      if (client === 'lean') {
        const pool = new Http1Pool(60_000);
        const post = Buffer.concat([Buffer.from(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${big.length}\r\n\r\n`, 'latin1'), big]);
        await new Promise<void>((resolve) => {
          pool.request('127.0.0.1', port, post, {
            written: () => {},
            head: (status) => (statuses.push(status), true),
            data: () => {},
            end: () => resolve(),
            error: (e) => (statuses.push(e.message), resolve()),
          });
        });
        statuses.push((await viaLean(pool, port)).status ?? 'no answer');
      } else {
        const agent = new http.Agent({ keepAlive: true });
        agents.push(agent);
        await new Promise<void>((resolve) => {
          const req = http.request({
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/',
            agent,
            headers: { 'content-length': big.length },
          });
          req.on('response', (res) => (statuses.push(res.statusCode!), res.resume(), res.on('end', () => resolve())));
          req.on('error', (e) => (statuses.push(e.message), resolve()));
          req.end(big);
        });
        statuses.push((await viaNode(agent, port)).status ?? 'no answer');
      }
      return { statuses, conns };
    };
    expect(await run('lean')).toEqual({ statuses: [413, 200], conns: 2 });
    expect(await run('node')).toEqual({ statuses: [413, 200], conns: 2 });
  });

  it('an answer with Connection: close: the next request opens a new connection', async () => {
    const { lean, node, connections } = await both(
      (s, conn, n) => send(s, [`HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 4\r\n\r\nc${conn}r${n}`], 'end'),
      2,
    );
    expect(lean).toEqual(node);
    expect(lean.map((o) => o.body)).toEqual(['c1r1', 'c2r1']);
    expect(connections).toEqual([2, 2]);
  });

  it('HTTP/1.0 answers: reused only with Connection: keep-alive', async () => {
    const plain = await both((s, conn, n) => send(s, [`HTTP/1.0 200 OK\r\nContent-Length: 4\r\n\r\nc${conn}r${n}`]), 2);
    expect(plain.lean).toEqual(plain.node);
    expect(plain.connections).toEqual([2, 2]);
    const kept = await both(
      (s, conn, n) => send(s, [`HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 4\r\n\r\nc${conn}r${n}`]),
      2,
    );
    expect(kept.lean).toEqual(kept.node);
    expect(kept.connections).toEqual([1, 1]);
  });
});

describe('idle connections', () => {
  it("an idle kept-alive connection does not keep the process alive, as node:http's agent does not", async () => {
    // the server never closes the connection, and the pool's idle timeout (60 s) is far past the bound
    const server = await serve((s) => send(s, ['HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok']));
    const lean = `import { Http1Pool } from './src/util/http1-client.ts';
const port = Number(process.argv[1]);
new Http1Pool(60000).request('127.0.0.1', port, Buffer.from('GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'), {
  written() {}, head: (status) => (process.stdout.write(String(status)), true), data() {}, end() { process.stdout.write(' end'); },
  error(e) { process.stdout.write(String(e)); },
});`;
    const node = `import http from 'node:http';
http.get({ host: '127.0.0.1', port: Number(process.argv[1]), agent: new http.Agent({ keepAlive: true }) }, (res) => {
  process.stdout.write(String(res.statusCode));
  res.resume().on('end', () => process.stdout.write(' end'));
});`;
    for (const code of [lean, node]) expect(await child(code, [String(server.port)])).toEqual([0, '200 end']);
    expect(server.connections()).toBe(2);
  }, 60_000);
});

/** Runs `code` (an ES module) in a child process; its exit code and output, or null past a generous bound (held open). */
function child(code: string, args: string[]): Promise<[number | null, string]> {
  const c = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code, ...args], {
    cwd: path.resolve(__dirname, '../..'),
  });
  let out = '';
  c.stdout.on('data', (d: Buffer) => (out += String(d)));
  c.stderr.on('data', (d: Buffer) => (out += String(d)));
  const bound = setTimeout(() => c.kill(), 25_000);
  return new Promise((r) => c.on('exit', (exit) => (clearTimeout(bound), r([exit, out]))));
}

describe('request headers: checked as node:http checks them', () => {
  const failure = (f: () => void) => {
    try {
      f();
      return undefined;
    } catch (e) {
      return { name: (e as Error).name, code: (e as { code?: string }).code, message: (e as Error).message };
    }
  };
  const names = ['Authorization', 'x-api_key.1', "!#$%&'*+-.^_`|~", '', 'Bad Name', 'bad:name', 'naïve', 'tab\there', 'a\r\nb', '€'];
  const values = ['Bearer sk-x', '', ' padded\t', 'latin1 é ÿ \x80', 'line\nbreak', 'cr\rhere', 'nul\x00', 'del\x7f', 'euro €', 'emoji 😀'];

  it('the same pass, or the same error (name, code, message), for every name and value', () => {
    let failed = 0;
    for (const n of names) {
      for (const v of values) {
        const ours = failure(() => requestHead('POST', '/v1/completions', [n, v]));
        const node = failure(() => {
          http.validateHeaderName(n);
          http.validateHeaderValue(n, v);
        });
        expect(ours, `${JSON.stringify(n)}: ${JSON.stringify(v)}`).toEqual(node);
        if (node) failed++;
      }
    }
    // Both kinds are exercised: names and values node:http refuses, and ones it takes.
    expect(failed).toBeGreaterThan(50);
    expect(failed).toBeLessThan(names.length * values.length);
  });

  it('a name without its value is refused as node:http refuses it', () => {
    const ours = failure(() => requestHead('GET', '/', ['Host']));
    const node = failure(() => http.validateHeaderValue('Host', undefined as unknown as string));
    expect(ours).toEqual(node);
    expect(ours?.code).toBe('ERR_HTTP_INVALID_HEADER_VALUE');
  });

  it('a header that passes is written as given, then Connection: keep-alive', () => {
    expect(requestHead('GET', '/x', ['Host', '127.0.0.1:80', 'X-Latin1', 'é'])).toBe(
      'GET /x HTTP/1.1\r\nHost: 127.0.0.1:80\r\nX-Latin1: é\r\nConnection: keep-alive\r\n',
    );
  });
});
