// One HTTP client for every environment backend (Wikipedia live/api, an ALFWorld JSON server, the
// WebShop site), so that an outage is retried the same way everywhere and never becomes an
// observation (README "Reliability"):
// - the request line is sent exactly as given (http: src/util/http1-client.ts; https: node:https; no
//   URL re-normalisation: §6, the notebook's requests.get sends "AT&T" as search=AT&T);
// - redirects are followed as python-requests follows them (301/302/303/307/308 with a Location, at
//   most 30; 303 and 302, and 301 after a POST, become a GET without body; 307/308 keep method and body;
//   credentials are dropped when the host changes);
// - 5xx, 429, 408, timeouts, resets, dropped connections and malformed 200s (the caller's `validate`,
//   or non-JSON for httpJson) are retried with capped exponential backoff and full jitter, honouring
//   Retry-After (seconds or an HTTP date, capped); refused connections a few times (a restarting
//   server); any other status is at once an InfraError('env') naming the service and the URL, and so
//   is every exhausted retry (the error's `status` is the last answer's, when there was one);
// - a caller may take chosen statuses as answers (`acceptStatus`: WebShop reads a 404 page as the
//   notebook's requests.get does) and give a status fewer attempts, after which its page is the answer
//   or an error (`persistentStatus`: WebShop's persistent 500, docs/protocol.md §9);
// - an AbortSignal stops an in-flight request and a backoff sleep at once, rejecting with the signal's
//   reason (the runner checks signal.aborted itself);
// - messages never show the userinfo of a URL (src/util/redact.ts).
import type * as http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { InfraError, errorMessage } from '../../errors.js';
import { abortReason, systemClock, type Clock } from '../../util/clock.js';
import { backoffDelay, parseRetryAfter, type RetryPolicy } from '../../util/backoff.js';
import { repoRoot } from '../../paths.js';
import { redactUrl } from '../../util/redact.js';
import { Http1Pool, requestHead } from '../../util/http1-client.js';
import { nodeHttps } from '../../util/lazy-builtins.js';

let version = '0.0.0';
try {
  version = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version ?? version;
} catch {
  /* keep the placeholder */
}
/** Wikimedia answers 403 to requests without a descriptive User-Agent (docs/protocol.md §6). */
export const USER_AGENT = `react-repro/${version} (research reproduction of ReAct)`;

/**
 * Defaults for environment servers: 10 attempts as the notebook's step loop (§6 retries), first
 * backoff ceiling 1 s doubling to 30 s, a server's Retry-After honoured up to 60 s.
 */
export const ENV_RETRY: RetryPolicy = { maxAttempts: 10, baseDelayMs: 1000, maxDelayMs: 30_000, retryAfterCapMs: 60_000 };
/** Attempts when nothing listens (ECONNREFUSED, unknown host): enough for a restarting server, few enough to fail fast. */
export const REFUSED_ATTEMPTS = 3;
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Bounds on one answer, whatever the server: a total deadline (the per-attempt timeout above measures
 * silence only, so a server trickling a byte a second never trips it) and a size cap. Passing either
 * ends the request at once with an InfraError('env') (not retried: the same server would do it again),
 * so the episode is recorded as an environment error and the answer never reaches the model.
 * Defaults fit the paper's environments many times over: a Wikipedia article's HTML is at most a few
 * MB, an ALFWorld or WebShop answer a few kB (docs/protocol.md §6, §8, §9).
 */
export interface ResponseLimits {
  /** Total time for one answer (connect to last byte), ms. */
  deadlineMs: number;
  /** Largest answer body, bytes. */
  maxBytes: number;
}
export const DEFAULT_RESPONSE_LIMITS: ResponseLimits = { deadlineMs: 300_000, maxBytes: 32 * 1024 * 1024 };
let responseLimits: ResponseLimits = { ...DEFAULT_RESPONSE_LIMITS };

/** Sets the limits every later request uses unless it names its own (a run sets them from --env-deadline / --env-max-bytes). */
export function setResponseLimits(limits: Partial<ResponseLimits>): void {
  responseLimits = { ...DEFAULT_RESPONSE_LIMITS, ...Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined)) };
}

export function currentResponseLimits(): ResponseLimits {
  return { ...responseLimits };
}
const MAX_REDIRECTS = 30; // requests.models.DEFAULT_REDIRECT_LIMIT
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export type HttpHeaders = http.IncomingHttpHeaders;

export interface HttpResult {
  /** The final URL after redirects (userinfo removed). */
  url: string;
  status: number;
  headers: HttpHeaders;
  body: string;
}

export interface RetryEvent {
  service: string;
  url: string;
  /** The attempt that failed (1-based). */
  attempt: number;
  reason: string;
  /** How long we wait before the next attempt. */
  delayMs: number;
}

export interface HttpRequestOptions {
  method?: 'GET' | 'POST';
  /** A JSON request body (POST): sent with Content-Type application/json. */
  json?: unknown;
  /** Extra request headers (User-Agent, Accept and Accept-Encoding have defaults). */
  headers?: Record<string, string>;
  /** Per-attempt inactivity timeout, ms (default 30 s). */
  timeoutMs?: number;
  /** Total time and size bounds of one answer (default: setResponseLimits'). */
  limits?: Partial<ResponseLimits>;
  retry?: Partial<RetryPolicy>;
  signal?: AbortSignal;
  /** Who answers, for messages: 'Wikipedia', 'ALFWorld server', 'WebShop site'. */
  service: string;
  /** Follow redirects as python-requests does (default true); false returns the 3xx answer. */
  followRedirects?: boolean;
  /**
   * Non-2xx statuses returned as answers instead of an InfraError (requests.get does not raise on a
   * status: WebShop converts a 404 page as the notebook does). Statuses that are retried (5xx, 429,
   * 408) are retried first; `validate` is not applied to an accepted non-2xx answer.
   */
  acceptStatus?: (status: number) => boolean;
  /**
   * Statuses retried as a 5xx is, but at most `attempts` times in all (fewer when retry.maxAttempts
   * is lower); when the last attempt still gets one, its answer is returned (`answer: true`) or an
   * InfraError thrown. WebShop: a 500 that repeats is the Flask app raising on that very URL, a page
   * the notebook reads (docs/protocol.md §9).
   */
  persistentStatus?: { match: (status: number) => boolean; attempts: number; answer: boolean };
  /**
   * Checks a 2xx answer: a string is the reason it is not what the service sends (garbage, empty,
   * cut), and the request is retried as for a 5xx; undefined accepts it.
   */
  validate?: (res: HttpResult) => string | undefined;
  /** Called before every backoff sleep (progress lines count retries by cause). */
  onRetry?: (e: RetryEvent) => void;
  /** Tests: virtual time and a seeded jitter. */
  clock?: Clock;
  random?: () => number;
}

/** An attempt that may succeed when repeated. */
class Retryable extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
    readonly refused = false,
    /** The server's answer, when the attempt got one (a retried status, a malformed 2xx). */
    readonly answer?: HttpResult,
    /** The answer's status matched `persistentStatus`. */
    readonly persistent = false,
  ) {
    super(message);
  }
}

/** True for what httpRequest rejects with when its signal aborted (the signal's reason, or an AbortError). */
export function isAbortError(e: unknown): boolean {
  return e instanceof Error && (e.name === 'AbortError' || e.name === 'TimeoutError');
}

interface Target {
  url: URL;
  /** The request line's target, exactly as sent. */
  path: string;
  method: 'GET' | 'POST';
  body?: Buffer;
  auth?: string;
}

const REFUSED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const DROPPED_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT', 'HPE_INVALID_CONSTANT', 'ERR_STREAM_PREMATURE_CLOSE']);

function once(t: Target, opts: HttpRequestOptions, timeoutMs: number): Promise<{ status: number; headers: HttpHeaders; body: string }> {
  const limits = { ...responseLimits, ...Object.fromEntries(Object.entries(opts.limits ?? {}).filter(([, v]) => v !== undefined)) };
  return new Promise((resolve, reject) => {
    const signal = opts.signal;
    if (signal?.aborted) return reject(abortReason(signal));
    const headers: Record<string, string> = {
      'User-Agent': USER_AGENT,
      Accept: '*/*',
      'Accept-Encoding': 'identity',
      ...opts.headers,
    };
    if (t.auth) headers.Authorization = t.auth;
    if (t.body) {
      headers['Content-Type'] ??= 'application/json';
      headers['Content-Length'] = String(t.body.length);
    }
    let settled = false;
    const done = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      signal?.removeEventListener('abort', onAbort);
      f();
    };
    const tooLarge = () =>
      new InfraError(`${opts.service}: the answer to ${t.method} ${describeUrl(t)} is larger than ${limits.maxBytes} bytes (--env-max-bytes): not passed on to the model`, 'env');
    // Set once the request is made; a request refused before it exists (a bad header) settles at once.
    let req: { destroy(): void } | undefined;
    const deadline = setTimeout(() => {
      done(() =>
        reject(new InfraError(`${opts.service}: ${t.method} ${describeUrl(t)} did not complete within ${limits.deadlineMs / 1000} s (--env-deadline)`, 'env')),
      );
      req?.destroy();
    }, limits.deadlineMs);
    // the answer's head; false when it ends the request (a declared size past the cap)
    const onHead = (headers: HttpHeaders): boolean => {
      const declared = Number(headers['content-length']);
      if (Number.isFinite(declared) && declared > limits.maxBytes) {
        done(() => reject(tooLarge()));
        req?.destroy();
        return false;
      }
      return true;
    };
    const chunks: Buffer[] = [];
    let bytes = 0;
    const onData = (c: Buffer) => {
      bytes += c.length;
      if (bytes > limits.maxBytes) {
        done(() => reject(tooLarge()));
        req?.destroy();
        return;
      }
      chunks.push(c);
    };
    const onEnd = (status: number, headers: HttpHeaders) =>
      done(() => resolve({ status, headers, body: Buffer.concat(chunks).toString('utf8') }));
    const onError = (e: NodeJS.ErrnoException) => {
      const code = e.code ?? '';
      if (REFUSED_CODES.has(code)) done(() => reject(new Retryable(`connection refused (${code})`, undefined, true)));
      else if (DROPPED_CODES.has(code) || /socket hang up|closed/i.test(e.message)) done(() => reject(new Retryable(`connection dropped (${code || e.message})`)));
      else done(() => reject(e));
    };
    const onCut = () => done(() => reject(new Retryable('connection dropped mid-response')));
    const onTimeout = () => {
      done(() => reject(new Retryable(`timed out after ${timeoutMs} ms`)));
      req?.destroy();
    };
    const onAbort = () => {
      done(() => reject(abortReason(signal!)));
      req?.destroy();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      req = t.url.protocol === 'http:' ? plainRequest(t, headers, timeoutMs, { onHead, onData, onEnd, onError, onCut, onTimeout }) : nodeRequest();
    } catch (e) {
      done(() => reject(e instanceof Error ? e : new Error(String(e))));
      return;
    }
    function nodeRequest(): http.ClientRequest {
      const r = nodeHttps().request(
        {
          protocol: t.url.protocol,
          hostname: t.url.hostname.replace(/^\[|\]$/g, ''),
          port: t.url.port || undefined,
          path: t.path,
          method: t.method,
          headers,
        },
        (res) => {
          if (!onHead(res.headers)) return;
          res.on('data', onData);
          res.on('end', () => onEnd(res.statusCode ?? 0, res.headers));
          res.on('error', (e) => done(() => reject(new Retryable(`connection dropped mid-response (${e.message})`))));
          res.on('aborted', onCut);
        },
      );
      r.setTimeout(timeoutMs, onTimeout);
      r.on('error', onError);
      r.end(t.body);
      return r;
    }
  });
}

interface PlainHandlers {
  onHead: (headers: HttpHeaders) => boolean;
  onData: (chunk: Buffer) => void;
  onEnd: (status: number, headers: HttpHeaders) => void;
  onError: (e: NodeJS.ErrnoException) => void;
  /** The connection ended in the middle of the answer. */
  onCut: () => void;
  onTimeout: () => void;
}

// Plain http goes through the lean client (src/util/http1-client.ts: less client CPU a request than
// node:http). Idle connections are closed after 4 s, before servers that keep theirs 5 s without
// saying so (uvicorn, node:http's default) close them under a request; a Keep-Alive hint shortens it.
const plain = new Http1Pool(4000);

/**
 * One request on the lean client, written as node:http writes it (the headers in their order, then
 * Host and Connection) after node:http's own checks of the path and headers, which throw here as
 * its request() throws.
 */
function plainRequest(t: Target, headers: Record<string, string>, timeoutMs: number, h: PlainHandlers): { destroy(): void } {
  if (/[^\u0021-\u00ff]/.test(t.path)) throw Object.assign(new TypeError('Request path contains unescaped characters'), { code: 'ERR_UNESCAPED_CHARACTERS' });
  const hostname = t.url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(t.url.port) || 80;
  const pairs = Object.entries(headers).flat();
  if (!Object.keys(headers).some((k) => k.toLowerCase() === 'host')) {
    const host = hostname.includes(':') ? `[${hostname}]` : hostname;
    pairs.push('Host', port === 80 ? host : `${host}:${port}`);
  }
  const head = Buffer.from(requestHead(t.method, t.path, pairs) + '\r\n', 'latin1');
  let status = 0;
  let answer: HttpHeaders = {};
  return plain.request(hostname, port, t.body ? Buffer.concat([head, t.body]) : head, {
    written: () => {},
    head: (s, hs) => {
      status = s;
      answer = hs;
      return h.onHead(hs);
    },
    data: h.onData,
    end: () => h.onEnd(status, answer),
    error: (e, answered) => (answered ? h.onCut() : h.onError(e)),
    timeout: h.onTimeout,
  }, timeoutMs);
}

/** The request the next hop sends, as requests.Session.resolve_redirects builds it. */
function redirected(t: Target, status: number, location: string): Target {
  const url = new URL(location, t.url);
  url.hash = '';
  // rebuild_method: 303 → GET (unless HEAD); 302 → GET; 301 after POST → GET.
  const toGet = status === 303 || status === 302 || (status === 301 && t.method === 'POST');
  const method = toGet ? 'GET' : t.method;
  // 307/308 keep the body; otherwise it is purged with its headers.
  const body = status === 307 || status === 308 ? t.body : undefined;
  // rebuild_auth: credentials go only to the host they were given for.
  const auth = url.hostname === t.url.hostname ? t.auth : undefined;
  return { url, path: url.pathname + url.search, method, body, auth };
}

function describeUrl(t: Target): string {
  return redactUrl(`${t.url.protocol}//${t.url.host}${t.path}`);
}

/** One request with its redirects; a retryable failure throws Retryable, a final one InfraError. */
async function fetchFollowing(first: Target, opts: HttpRequestOptions, timeoutMs: number, now: number): Promise<HttpResult> {
  let t = first;
  for (let hop = 0; ; hop++) {
    const r = await once(t, opts, timeoutMs);
    const location = r.headers.location;
    if (opts.followRedirects !== false && REDIRECT_STATUSES.has(r.status) && location) {
      if (hop >= MAX_REDIRECTS) throw new InfraError(`${opts.service}: more than ${MAX_REDIRECTS} redirects from ${describeUrl(first)}`, 'env');
      t = redirected(t, r.status, location);
      continue;
    }
    const res: HttpResult = { url: describeUrl(t), status: r.status, headers: r.headers, body: r.body };
    const persistent = opts.persistentStatus?.match(r.status) === true;
    if (persistent || r.status === 429 || r.status === 408 || r.status >= 500) {
      const ra = parseRetryAfter({ get: (n) => headerValue(r.headers, n) }, now);
      throw new Retryable(`HTTP ${r.status}${r.status === 429 ? ' (rate limited)' : ''}`, ra, false, res, persistent);
    }
    const is2xx = r.status >= 200 && r.status < 300;
    const isRedirectAnswer = opts.followRedirects === false && r.status >= 300 && r.status < 400;
    if (!is2xx && !isRedirectAnswer) {
      if (opts.acceptStatus?.(r.status)) return res;
      throw new InfraError(`${opts.service} answered HTTP ${r.status} for ${res.url}`, 'env', { status: r.status });
    }
    const bad = opts.validate?.(res);
    if (bad !== undefined) throw new Retryable(`malformed response: ${bad}`, undefined, false, res);
    return res;
  }
}

function headerValue(h: HttpHeaders, name: string): string | null {
  const v = h[name.toLowerCase()];
  return v === undefined ? null : Array.isArray(v) ? v[0] : String(v);
}

/** Percent-decoded as urllib's unquote decodes (a malformed "%" stays as written, never an error). */
function unquote(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function firstTarget(origin: string, pathAndQuery: string, opts: HttpRequestOptions): Target {
  let url: URL;
  try {
    const base = new URL(origin);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error('not http(s)');
    // Appended to the authority, not resolved against it: a target such as "//1" (WebShop: urllib3's
    // dot-segment removal can leave one) is a path on this host, as requests sends it.
    url = pathAndQuery.startsWith('/') ? new URL(`${base.protocol}//${base.host}${pathAndQuery}`) : new URL(pathAndQuery, base);
    url.username = base.username;
    url.password = base.password;
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new InfraError(`${opts.service}: ${redactUrl(origin)} is not an http(s) URL`, 'env');
  }
  // Credentials in the URL are sent as Basic auth, as requests does (get_auth_from_url).
  const auth = url.username || url.password ? 'Basic ' + Buffer.from(`${unquote(url.username)}:${unquote(url.password)}`).toString('base64') : undefined;
  const method = opts.method ?? (opts.json !== undefined ? 'POST' : 'GET');
  const body = opts.json !== undefined ? Buffer.from(JSON.stringify(opts.json), 'utf8') : undefined;
  return { url, path: pathAndQuery, method, body, auth };
}

/**
 * Sends `method pathAndQuery` to `origin` (a base URL; only its scheme, host, port and credentials are
 * used) and returns the final 2xx answer (or one `acceptStatus` / `persistentStatus` accepts). Throws
 * InfraError('env') for any other outcome, or the signal's reason when it aborts.
 */
export async function httpRequest(origin: string, pathAndQuery: string, opts: HttpRequestOptions): Promise<HttpResult> {
  const policy: RetryPolicy = { ...ENV_RETRY };
  for (const [k, v] of Object.entries(opts.retry ?? {})) if (v !== undefined) (policy as unknown as Record<string, number>)[k] = v;
  const clock = opts.clock ?? systemClock;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const first = firstTarget(origin, pathAndQuery, opts);
  const shown = describeUrl(first);
  for (let attempt = 1; ; attempt++) {
    if (opts.signal?.aborted) throw abortReason(opts.signal);
    let failure: Retryable;
    try {
      return await fetchFollowing(first, opts, timeoutMs, clock.now());
    } catch (e) {
      if (opts.signal?.aborted) throw abortReason(opts.signal);
      if (e instanceof InfraError) throw e;
      if (!(e instanceof Retryable)) {
        throw new InfraError(`${opts.service} request failed: ${first.method} ${shown}: ${redactUrl(errorMessage(e))}`, 'env', { cause: e });
      }
      failure = e;
    }
    const persistent = failure.persistent ? opts.persistentStatus : undefined;
    const limit = failure.refused
      ? Math.min(policy.maxAttempts, REFUSED_ATTEMPTS)
      : persistent
        ? Math.min(policy.maxAttempts, persistent.attempts)
        : policy.maxAttempts;
    if (attempt >= limit) {
      if (persistent?.answer && failure.answer) return failure.answer;
      const what = failure.refused ? `${opts.service} unreachable at ${redactUrl(first.url.origin)}:` : `${opts.service}: ${first.method} ${shown}`;
      const status = failure.answer?.status;
      throw new InfraError(`${what} failed ${attempt === 1 ? `(${failure.message})` : `${attempt} times (last: ${failure.message})`}`, 'env', status !== undefined && (status < 200 || status >= 300) ? { status } : {});
    }
    const delayMs =
      failure.retryAfterMs !== undefined ? Math.min(failure.retryAfterMs, policy.retryAfterCapMs) : backoffDelay(attempt, policy, opts.random);
    opts.onRetry?.({ service: opts.service, url: shown, attempt, reason: failure.message, delayMs });
    await clock.sleep(delayMs, opts.signal);
  }
}

export interface JsonResult<T = unknown> extends HttpResult {
  json: T;
}

/**
 * httpRequest for a JSON API: a 2xx body that is not JSON (or that `validateJson` rejects) is a
 * malformed response, retried, then InfraError.
 */
export async function httpJson<T = unknown>(
  origin: string,
  pathAndQuery: string,
  opts: HttpRequestOptions & { validateJson?: (v: unknown) => string | undefined },
): Promise<JsonResult<T>> {
  let parsed: unknown;
  const res = await httpRequest(origin, pathAndQuery, {
    ...opts,
    validate: (r) => {
      const pre = opts.validate?.(r);
      if (pre !== undefined) return pre;
      try {
        parsed = JSON.parse(r.body);
      } catch {
        return r.body.trim() === '' ? 'empty body' : 'not JSON';
      }
      return opts.validateJson?.(parsed);
    },
  });
  return { ...res, json: parsed as T };
}
