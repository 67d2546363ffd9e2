// The model server's HTTP client: one JSON request, answered by one JSON body, over kept-alive
// connections (plain http: the lean client of src/util/http1-client.ts; https: node:https). It replaces the openai client's request path (README "Dependencies and why":
// the SDK's request building and Node's fetch cost more client CPU per call than the request itself)
// and fails the way that path failed, with the openai package's own error classes, so retry.ts
// classifies every failure as before:
// - an error status: APIError.generate(status, body, message, headers) as the client's makeRequest
//   calls it, the body first put in OpenAI's error shape (normalizeErrorBody: vLLM, Ollama, FastAPI);
// - no connection, or one cut mid-answer: APIConnectionError with undici's TypeError ('fetch failed' /
//   'terminated') as cause and the socket error (its code) under it; a cause saying "timed out" is an
//   APIConnectionTimeoutError, as the client decides;
// - the whole answer (headers and body) past --request-timeout: APIConnectionTimeoutError; the
//   caller's abort: APIUserAbortError;
// - a body past --llm-max-bytes: APIConnectionError caused by a ResponseLimitError (the episode's model
//   error, not retried: the same server would send it again);
// - a 200 body: parsed when its Content-Type says JSON (a SyntaxError when it is not), else the text.
// Bodies are decoded as fetch decodes them (gzip, deflate, br) and redirects followed as the fetch
// standard says (307/308 keep the method and body; 301/302 turn a POST, 303 anything, into a GET).
import type * as http from 'node:http';
import type * as zlib from 'node:zlib';
import { urlToHttpOptions } from 'node:url';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai/core/error';
import { VERSION } from 'openai/version';
import { JsonFields } from '../util/json-fields.js';
import { Http1Pool, requestHead } from '../util/http1-client.js';
import { nodeHttps, nodeZlib } from '../util/lazy-builtins.js';
import { endpointUrl } from './endpoints.js';

/** Largest model answer body by default: a completion of n samples is kilobytes; 16 MB fits any many times over. */
export const DEFAULT_LLM_MAX_BYTES = 16 * 1024 * 1024;

/** A model answer past its size cap (what classifyError turns into InfraError('llm')). */
export class ResponseLimitError extends Error {
  override readonly name = 'ResponseLimitError';
}

/** The ResponseLimitError in `e`'s cause chain, if any. */
export function responseLimitIn(e: unknown): ResponseLimitError | undefined {
  for (let c: unknown = e, depth = 0; c instanceof Error && depth < 6; c = c.cause, depth++) if (c instanceof ResponseLimitError) return c;
  return undefined;
}

/**
 * Error bodies in OpenAI's shape ({"error": {"message", "type", "code"}}), whatever the server: the
 * error classes read only that shape, and would otherwise drop the message of vLLM
 * ({"object": "error", "message"...}), Ollama ({"error": "text"}) or FastAPI ({"detail"...}), which is
 * what tells a context-length 400 from a bad-parameter 400.
 */
export function normalizeErrorBody(body: unknown): unknown {
  const b = JsonFields.of(body);
  if (!b) return body;
  const error = b.get('error');
  if (error && typeof error === 'object') return body;
  const code = b.get('code');
  const wrap = (message: unknown) => ({
    error: {
      message: typeof message === 'string' ? message : JSON.stringify(message),
      type: b.str('type') ?? null,
      param: b.str('param') ?? null,
      code: typeof code === 'string' || typeof code === 'number' ? code : null,
    },
  });
  if (typeof error === 'string') return wrap(error);
  const message = b.str('message');
  if (message !== undefined) return wrap(message);
  const detail = b.get('detail');
  if (detail !== undefined) return wrap(detail);
  return body;
}

// An idle connection is closed after 4 s, as undici's fetch does without a server hint: servers close
// theirs after about 5 s (uvicorn, Node), and a request sent on a connection the server is closing
// would fail and be retried. (Only idle connections are timed out, never one in use; an idle
// kept-alive connection does not hold the process open.) Plain http goes through the lean client
// (src/util/http1-client.ts), https through node:https.
const IDLE_MS = 4000;
const plain = new Http1Pool(IDLE_MS);
let httpsAgentMade: http.Agent | undefined;
const httpsAgent = (): http.Agent => (httpsAgentMade ??= new (nodeHttps().Agent)({ keepAlive: true, timeout: IDLE_MS }));

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** fetch's redirect limit. */
const MAX_REDIRECTS = 20;
/** Headers that describe a request body, dropped when a redirect turns the request into a GET (fetch standard). */
const BODY_HEADERS = ['content-type', 'content-encoding', 'content-language', 'content-location'];

export interface ModelHttpOptions {
  /** The server's base URL (…/v1), without a trailing slash. */
  baseURL: string;
  /** Sent as `Authorization: Bearer`. */
  apiKey: string;
  /** The whole answer's deadline (--request-timeout), ms. */
  timeoutMs: number;
  /** Largest answer body, bytes (--llm-max-bytes). */
  maxBytes: number;
  /** Where OPENAI_ORG_ID, OPENAI_PROJECT_ID and OPENAI_CUSTOM_HEADERS are read, as the openai client reads them. */
  env?: NodeJS.ProcessEnv;
}

/** Where a request goes, prepared once per path (a call adds only its body's length). */
interface Route {
  url: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** The request options; `head` as its headers, in rawHeaders form (Node then stores them as given). */
  options: http.RequestOptions;
  head: string[];
  /** Plain http: the request line and headers as node:http writes them, up to the body's length. */
  text: string;
  hostname: string;
  port: number;
  /** A header node:http would refuse (OPENAI_CUSTOM_HEADERS): the error its request would throw. */
  invalid?: Error;
}

/** The headers the openai client sends that a server may act on (its X-Stainless telemetry left out). */
export function requestHeaders(apiKey: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const h: Record<string, string> = {
    accept: 'application/json',
    authorization: `Bearer ${apiKey}`,
    'user-agent': `OpenAI/JS ${VERSION}`,
  };
  const org = env.OPENAI_ORG_ID?.trim();
  const project = env.OPENAI_PROJECT_ID?.trim();
  if (org) h['openai-organization'] = org;
  if (project) h['openai-project'] = project;
  // "Name: value" lines, as the openai client reads them (they override the defaults above).
  for (const line of env.OPENAI_CUSTOM_HEADERS?.split('\n') ?? []) {
    const colon = line.indexOf(':');
    if (colon >= 0) {
      const name = line.slice(0, colon).trim().toLowerCase();
      if (name) h[name] = line.slice(colon + 1).trim();
    }
  }
  return h;
}

function route(url: URL, method: 'GET' | 'POST', headers: Record<string, string>): Route {
  const head = ['host', url.host];
  for (const k in headers) head.push(k, headers[k]);
  const options: http.RequestOptions = { ...urlToHttpOptions(url), method };
  // A header node:http refuses fails the call when it is made (as node:http's request() would), not here.
  let text = '';
  let invalid: Error | undefined;
  try {
    text = requestHead(method, options.path ?? '/', head);
  } catch (e) {
    invalid = e instanceof Error ? e : new Error(String(e));
  }
  return { url, method, headers, head, options, text, hostname: options.hostname ?? url.hostname, port: Number(url.port) || 80, invalid };
}

/** The request as node:http writes it: `text` (request line and headers), the body's length, the body (UTF-8). */
function requestBytes(text: string, body: string | undefined): Buffer {
  if (body === undefined) return Buffer.from(text + '\r\n', 'latin1');
  const length = Buffer.byteLength(body, 'utf8');
  const head = `${text}content-length: ${length}\r\n\r\n`;
  const out = Buffer.allocUnsafe(head.length + length);
  out.write(head, 0, 'latin1');
  out.write(body, head.length, 'utf8');
  return out;
}

/** Where fetch goes after a redirect answer (and whether the body goes along), or why it stops (a network error). */
function redirected(from: Route, status: number, location: string): { to: Route; keepBody: boolean } | Error {
  let url: URL;
  try {
    url = new URL(location, from.url);
  } catch {
    return new Error(`invalid redirect location ${JSON.stringify(location)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return new Error(`redirect to a ${url.protocol} URL`);
  let method = from.method;
  let headers = from.headers;
  let keepBody = true;
  if (((status === 301 || status === 302) && method === 'POST') || (status === 303 && method !== 'GET')) {
    method = 'GET';
    keepBody = false;
    headers = { ...headers };
    for (const name of BODY_HEADERS) delete headers[name];
  }
  if (url.origin !== from.url.origin) {
    // fetch sends no credentials to another origin
    headers = { ...headers };
    delete headers.authorization;
  }
  return { to: route(url, method, headers), keepBody };
}

/** Where an answer's body goes, chunk by chunk, and what ends it. */
interface BodySink {
  data(chunk: Buffer): void;
  end(): void;
  /** A decoding failure (a corrupt gzip stream...). */
  fail(e: Error): void;
}

/**
 * The body decoded as fetch decodes it: every coding of Content-Encoding undone, or none if one is
 * unknown; `out` gets the decoded chunks.
 */
function decoder(enc: string | undefined, out: BodySink): BodySink {
  if (!enc) return out;
  const codings = enc
    .toLowerCase()
    .split(',')
    .map((c) => c.trim());
  if (!codings.every((c) => c === 'gzip' || c === 'x-gzip' || c === 'deflate' || c === 'br')) return out;
  const z = nodeZlib();
  const steps: zlib.Gunzip[] = codings
    .reverse()
    .map((c) => (c === 'deflate' ? z.createInflate() : c === 'br' ? z.createBrotliDecompress() : z.createGunzip()));
  for (let i = 0; i < steps.length - 1; i++) {
    steps[i].on('error', (e) => steps[i + 1].destroy(e));
    steps[i].pipe(steps[i + 1]);
  }
  const last = steps[steps.length - 1];
  last.on('data', (chunk: Buffer) => out.data(chunk));
  last.on('end', () => out.end());
  last.on('error', (e) => out.fail(e));
  return {
    data: (chunk) => void steps[0].write(chunk),
    end: () => void steps[0].end(),
    fail: (e) => steps[0].destroy(e),
  };
}

/**
 * Failures of requests that reached the server's socket whole and got no whole answer (a timeout, a cut,
 * an abort after sending): the server may have done, and billed, the work. Any other failure (refused,
 * reset before the request was written, an answered error status) cost nothing.
 */
const sentUnanswered = new WeakSet<Error>();

/** Whether `e`, a failure of ModelHttp, came after its request was sent whole and before a whole answer. */
export function wasSentUnanswered(e: unknown): boolean {
  return e instanceof Error && sentUnanswered.has(e);
}

/** As the openai client words a failed fetch: a timeout when the error (or its cause) says so. */
function connectionFailure(e: Error): APIConnectionError {
  const cause = e.cause instanceof Error ? String(e.cause) : '';
  if (/timed? ?out/i.test(String(e) + cause)) return new APIConnectionTimeoutError();
  return new APIConnectionError({ cause: e });
}

/** undici's error for a connection cut before the whole body arrived. */
function terminated(): TypeError {
  return new TypeError('terminated', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
}

function utf8(buf: Buffer): string {
  const s = buf.toString('utf8');
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
}

function safeJSON(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch {
    return undefined;
  }
}

/** The error an answered error status becomes, as the openai client makes it. */
function statusError(status: number, rawHeaders: string[], text: string): APIError {
  let errJSON = safeJSON(text);
  let errText = text;
  if (status >= 400 && errJSON !== undefined) {
    errJSON = normalizeErrorBody(errJSON);
    errText = JSON.stringify(errJSON);
  }
  const headers = new Headers();
  for (let i = 0; i < rawHeaders.length; i += 2) headers.append(rawHeaders[i], rawHeaders[i + 1]);
  // the body handed over is the decoded whole: these no longer describe it
  headers.delete('content-length');
  headers.delete('content-encoding');
  // (generate reads only the body's "error" member: a body that is no object has none)
  const errObject = typeof errJSON === 'object' && errJSON !== null ? errJSON : undefined;
  return APIError.generate(status, errObject, errJSON ? undefined : errText, headers);
}

/** A 2xx body as the openai client parses it: JSON when the Content-Type says so, else the text. */
function okBody(status: number, headers: http.IncomingHttpHeaders, buf: Buffer): unknown {
  if (status === 204) return null;
  const mediaType = headers['content-type']?.split(';')[0]?.trim();
  const text = utf8(buf);
  if (!mediaType || !(mediaType.includes('application/json') || mediaType.endsWith('+json'))) return text;
  const value: unknown = JSON.parse(text);
  return value;
}

/** One OpenAI-compatible server (base URL, key): POST and GET of JSON. */
export class ModelHttp {
  private readonly headers: Record<string, string>;
  private readonly jsonHeaders: Record<string, string>;
  private readonly routes = new Map<string, Route>();

  constructor(private readonly o: ModelHttpOptions) {
    this.headers = requestHeaders(o.apiKey, o.env ?? process.env);
    // the body's own Content-Type comes last, as the openai client merges them
    this.jsonHeaders = { ...this.headers, 'content-type': 'application/json' };
  }

  /** POST `body` as JSON to baseURL + path; the parsed answer. */
  post(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    return this.call('POST', path, JSON.stringify(body), signal);
  }

  get(path: string, signal?: AbortSignal): Promise<unknown> {
    return this.call('GET', path, undefined, signal);
  }

  private route(method: 'GET' | 'POST', path: string): Route {
    const key = `${method} ${path}`;
    let r = this.routes.get(key);
    if (!r) {
      r = route(endpointUrl(this.o.baseURL, path), method, method === 'POST' ? this.jsonHeaders : this.headers);
      this.routes.set(key, r);
    }
    return r;
  }

  private call(method: 'GET' | 'POST', path: string, body: string | undefined, signal: AbortSignal | undefined): Promise<unknown> {
    if (signal?.aborted) return Promise.reject(new APIUserAbortError());
    const maxBytes = this.o.maxBytes;
    return new Promise<unknown>((resolve, reject) => {
      // an unusable base URL rejects here (the executor's throw), before anything is started
      const first = this.route(method, path);
      let settled = false;
      /** The whole answer arrived: its connection goes back to the pool, whatever the status. */
      let whole = false;
      /** The (last) request was handed to the kernel whole: the server may be working on it. */
      let written = false;
      let req: { destroy(): void } | undefined;
      const finish = (err: Error | undefined, value?: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (err) {
          if (written && !whole) sentUnanswered.add(err);
          if (!whole) req?.destroy();
          reject(err);
        } else resolve(value);
      };
      const onAbort = () => finish(new APIUserAbortError());
      const timer = setTimeout(() => finish(new APIConnectionTimeoutError()), this.o.timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });

      /**
       * The answer's head: a redirect is followed (its body dropped: false), a body past the cap ends
       * the call (false), else the sink its body goes to (decoded), which settles the call at its end.
       */
      const onHead = (
        t: Route,
        body: string | undefined,
        hops: number,
        status: number,
        headers: http.IncomingHttpHeaders,
        rawHeaders: string[],
      ): BodySink | false => {
        const location = headers.location;
        if (REDIRECTS.has(status) && location !== undefined) {
          const next = hops >= MAX_REDIRECTS ? new Error('redirect count exceeded') : redirected(t, status, location);
          if (next instanceof Error) finish(connectionFailure(new TypeError('fetch failed', { cause: next })));
          else if (!settled) send(next.to, next.keepBody ? body : undefined, hops + 1);
          return false;
        }
        const tooBig = () =>
          finish(
            new APIConnectionError({ cause: new ResponseLimitError(`the answer is larger than ${maxBytes} bytes (--llm-max-bytes)`) }),
          );
        const declared = Number(headers['content-length']);
        if (declared > maxBytes) {
          tooBig();
          return false;
        }
        const nullBody = status === 204 || status === 304;
        const chunks: Buffer[] = [];
        let bytes = 0;
        const sink: BodySink = {
          data: (chunk) => {
            if (settled || nullBody) return;
            bytes += chunk.length;
            if (bytes > maxBytes) return tooBig();
            chunks.push(chunk);
          },
          end: () => {
            if (settled) return;
            whole = true;
            const buf = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, bytes);
            if (status >= 200 && status < 300) {
              let value: unknown;
              try {
                value = okBody(status, headers, buf);
              } catch (e) {
                return finish(e instanceof Error ? e : new Error(String(e)));
              }
              finish(undefined, value);
            } else finish(statusError(status, rawHeaders, utf8(buf)));
          },
          fail: (e) => finish(connectionFailure(new TypeError('terminated', { cause: e }))),
        };
        return nullBody ? sink : decoder(headers['content-encoding'], sink);
      };
      /** A connection that failed before an answer, or an answer cut short. */
      const failed = (e: Error, answered: boolean) =>
        finish(connectionFailure(answered ? terminated() : new TypeError('fetch failed', { cause: e })));

      const send = (t: Route, body: string | undefined, hops: number) => {
        written = false;
        if (t.url.protocol === 'http:') {
          // the lean client (src/util/http1-client.ts): node:http's request checks, then the request as it writes it
          if (t.invalid) return finish(t.invalid);
          let sink: BodySink | false = false;
          req = plain.request(t.hostname, t.port, requestBytes(t.text, body), {
            written: () => (written = true),
            head: (status, headers, rawHeaders) => {
              sink = onHead(t, body, hops, status, headers, rawHeaders);
              return sink !== false;
            },
            data: (chunk) => (sink as BodySink).data(chunk),
            end: () => (sink as BodySink).end(),
            // After a head that returned no sink (a redirect followed, or the call already ended), a
            // cut while its body is drained concerns a hop the call has left: as node:http, ignore it.
            error: (e, answered) => (answered && sink === false ? undefined : failed(e, answered)),
          });
          return;
        }
        const headers = body === undefined ? t.head : [...t.head, 'content-length', String(Buffer.byteLength(body))];
        let r: http.ClientRequest;
        try {
          r = req = nodeHttps().request({ ...t.options, agent: httpsAgent(), headers });
        } catch (e) {
          // a header the environment supplied that HTTP does not allow (OPENAI_CUSTOM_HEADERS)
          return finish(e instanceof Error ? e : new Error(String(e)));
        }
        let answered = false;
        r.on('finish', () => (written = true));
        r.on('error', (e) => failed(e, answered));
        r.on('response', (res) => {
          answered = true;
          const sink = onHead(t, body, hops, res.statusCode ?? 0, res.headers, res.rawHeaders);
          if (sink === false) return void res.resume();
          const cut = () => finish(connectionFailure(terminated()));
          res.on('aborted', cut);
          res.on('error', cut);
          res.on('data', (chunk: Buffer) => sink.data(chunk));
          res.on('end', () => sink.end());
        });
        r.end(body);
      };
      send(first, body, 0);
    });
  }
}
