import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { httpFetch } from '../../src/llm/http-fetch.js';

let server: http.Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

async function serve(handler: http.RequestListener): Promise<string> {
  server = http.createServer(handler);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('httpFetch (the model client transport)', () => {
  it('sends the method, headers and string body; answers status, headers and body, over one kept-alive connection', async () => {
    const seen: Array<{ method?: string; type?: string; body: string; port?: number }> = [];
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({ method: req.method, type: req.headers['content-type'], body, port: req.socket.remotePort });
        res.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-a': '1' });
        res.end('{"ok":"é"}');
      });
    });
    for (let i = 0; i < 2; i++) {
      const res = await httpFetch(`${url}/v1/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"prompt":"ü"}',
      });
      expect([res.status, res.statusText, res.headers.get('x-a')]).toEqual([201, 'Made', '1']);
      expect(await res.json()).toEqual({ ok: 'é' });
    }
    expect(seen.map((s) => [s.method, s.type, s.body])).toEqual([
      ['POST', 'application/json', '{"prompt":"ü"}'],
      ['POST', 'application/json', '{"prompt":"ü"}'],
    ]);
    expect(seen[1].port).toBe(seen[0].port);
  });

  it('follows a redirect as the global fetch does (307 keeps the method and body)', async () => {
    const seen: string[] = [];
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push(`${req.method} ${req.url} ${body}`);
        if (req.url === '/v1/completions') {
          res.writeHead(307, { location: '/moved/v1/completions' });
          res.end();
        } else {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"ok":1}');
        }
      });
    });
    const res = await httpFetch(`${url}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"p":1}',
    });
    expect([res.status, await res.json()]).toEqual([200, { ok: 1 }]);
    expect(seen.at(-1)).toBe('POST /moved/v1/completions {"p":1}');
  });

  it('decodes a gzip body as the global fetch does', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(zlib.gzipSync('{"a":1}'));
    });
    expect(await (await httpFetch(url, { method: 'POST', body: '' })).text()).toBe('{"a":1}');
  });

  it('a refused connection rejects as the global fetch does: TypeError "fetch failed", the socket code in its cause', async () => {
    const err = (await httpFetch('http://127.0.0.1:1/v1', { method: 'POST', body: '{}' }).catch((e: unknown) => e)) as TypeError & {
      cause: { code: string };
    };
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toBe('fetch failed');
    expect(err.cause.code).toBe('ECONNREFUSED');
  });

  it('a connection cut mid-body errors the body with TypeError "terminated"', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"choices":');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const res = await httpFetch(url, { method: 'POST', body: '{}' });
    const err = (await res.text().catch((e: unknown) => e)) as TypeError;
    expect(err).toBeInstanceOf(TypeError);
    expect(err.message).toBe('terminated');
  });

  it('an abort rejects with the signal reason, before the answer and during its body', async () => {
    const url = await serve((req, res) => {
      if (req.url === '/body') {
        res.writeHead(200);
        res.write('{');
      }
    });
    const before = new AbortController();
    const p = httpFetch(url, { method: 'POST', body: '{}', signal: before.signal });
    setTimeout(() => before.abort(new Error('stop')), 20);
    await expect(p).rejects.toThrow('stop');

    const during = new AbortController();
    const res = await httpFetch(`${url}/body`, { method: 'POST', body: '{}', signal: during.signal });
    setTimeout(() => during.abort(new Error('stop body')), 20);
    await expect(res.text()).rejects.toThrow('stop body');
  });

  it('a kept-alive idle connection does not keep the process alive (a run exits when its work is done)', async () => {
    const url = await serve((_req, res) => res.end('{"ok":1}'));
    server!.keepAliveTimeout = 0; // the server never closes the idle connection itself
    const code = `import { httpFetch } from './src/llm/http-fetch.ts';
const r = await httpFetch(process.argv[1], { method: 'POST', body: '{}' });
process.stdout.write(await r.text());`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code, url], {
      cwd: path.resolve(__dirname, '../..'),
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += String(d)));
    // Fails by the test's time limit if the connection held the child open.
    const exit = await new Promise<number | null>((r) => child.on('exit', r));
    expect([exit, out]).toEqual([0, '{"ok":1}']);
  }, 30_000);
});
