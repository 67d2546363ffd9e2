// The model client's transport: a fetch for the openai client on node:http/https with kept-alive
// connections. The global fetch (undici) spends more client CPU per call than the request itself
// (its Request/Response objects, teed web streams, a WASM HTTP parser); this one sends the client's
// string body as given and hands back the answer as a stream of the socket's chunks, so the caps of
// bounded-fetch.ts still apply while it arrives. Failures look as undici's do, so retry.ts classifies
// them alike: a connection error is TypeError('fetch failed') with the socket error (its code) as
// cause, a connection cut mid-body errors the body with TypeError('terminated'), an abort rejects
// with the signal's reason. Anything but a string body or an http(s) URL goes to the global fetch, and
// so does a request answered with a redirect (the global fetch follows it: method, body and headers
// as the fetch standard says; a base URL behind a redirect keeps working).
import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';
import type { Readable } from 'node:stream';

// An idle connection is closed after 4 s, as undici's fetch does without a server hint: servers close
// theirs after about 5 s (uvicorn, Node), and a request sent on a connection the server is closing
// would fail and be retried. (The agent's timeout drops idle sockets only, never one in use.)
const agents = {
  'http:': new http.Agent({ keepAlive: true, timeout: 4000 }),
  'https:': new https.Agent({ keepAlive: true, timeout: 4000 }),
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const abortReason = (signal: AbortSignal): unknown => signal.reason ?? new DOMException('This operation was aborted', 'AbortError');

/** The body decoded as the global fetch decodes it (gzip, deflate, br). */
function decoded(res: http.IncomingMessage): Readable {
  const enc = String(res.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (enc === 'gzip' || enc === 'x-gzip') return res.pipe(zlib.createGunzip());
  if (enc === 'deflate') return res.pipe(zlib.createInflate());
  if (enc === 'br') return res.pipe(zlib.createBrotliDecompress());
  return res;
}

export const httpFetch: typeof fetch = (input, init) => {
  const url = typeof input === 'string' ? new URL(input) : input instanceof URL ? input : undefined;
  const body = init?.body;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || (body != null && typeof body !== 'string')) {
    return fetch(input, init);
  }
  const signal = init?.signal ?? undefined;
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- fetch rejects with the signal's reason, whatever it is
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  const headers: Record<string, string> = {};
  new Headers(init?.headers).forEach((v, k) => (headers[k] = v));
  if (body != null) headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise<Response>((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(url, { method: init?.method ?? 'GET', headers, agent: agents[url.protocol as 'http:' | 'https:'] });
    let settled = false;
    let fail: (e: unknown) => void = (e) => {
      if (settled) return;
      settled = true;
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the signal's reason, as fetch rejects
      reject(e);
    };
    const onAbort = () => {
      const reason = abortReason(signal!);
      fail(reason);
      req.destroy();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => signal?.removeEventListener('abort', onAbort);
    req.on('error', (e) => {
      done();
      fail(new TypeError('fetch failed', { cause: e }));
    });
    req.on('response', (res) => {
      if (REDIRECTS.has(res.statusCode!) && res.headers.location && init?.redirect !== 'manual') {
        settled = true;
        done();
        res.resume();
        resolve(fetch(input, init));
        return;
      }
      settled = true;
      const src = decoded(res);
      const resHeaders = new Headers();
      for (let i = 0; i < res.rawHeaders.length; i += 2) resHeaders.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
      const nullBody = res.statusCode === 204 || res.statusCode === 304 || init?.method === 'HEAD';
      let controller!: ReadableStreamDefaultController<Uint8Array>;
      let ended = false;
      const stream = new ReadableStream<Uint8Array>({
        start: (c) => {
          controller = c;
        },
        pull: () => {
          src.resume();
        },
        cancel: () => {
          ended = true;
          done();
          req.destroy();
        },
      });
      const error = (e: unknown) => {
        if (ended) return;
        ended = true;
        done();
        controller.error(e);
      };
      // After the answer started, an abort or a cut connection errors the body instead.
      fail = (e) => error(e);
      src.on('data', (chunk: Buffer) => {
        if (ended) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length));
        if ((controller.desiredSize ?? 1) <= 0) src.pause();
      });
      src.on('end', () => {
        if (ended) return;
        ended = true;
        done();
        controller.close();
      });
      src.on('error', (e) => error(new TypeError('terminated', { cause: e })));
      res.on('aborted', () =>
        error(new TypeError('terminated', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) })),
      );
      if (nullBody) {
        res.resume();
        resolve(new Response(null, { status: res.statusCode!, statusText: res.statusMessage, headers: resHeaders }));
        return;
      }
      resolve(new Response(stream, { status: res.statusCode!, statusText: res.statusMessage, headers: resHeaders }));
    });
    req.end(body ?? undefined);
  });
};
