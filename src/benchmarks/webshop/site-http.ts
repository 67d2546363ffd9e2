// GET a WebShop page as the notebook's `requests.get(url).text` does, with the suite's outage handling.
// Why not src/envs/http/request.ts's httpRequest alone: it turns every non-2xx answer into an
// InfraError, while requests.get does not raise on a status and the notebook converts whatever page
// comes back. A model-written query with "/", "#" or "?" makes the Flask site answer 404 (the route no
// longer matches), and the notebook observes that page's text (docs/protocol.md §9; issue 9). So this module
// keeps request.ts's exact request line, retry policy and building blocks, and returns 4xx answers as
// pages. TODO(lead): when request.ts gains an option to return given statuses as answers, this file
// becomes a call to it.
// - refused connections, timeouts, dropped connections, 429, 408, 502/503/504 and other 5xx: retried
//   with capped exponential backoff and full jitter, honouring Retry-After; exhausted → InfraError;
// - 500 (the Flask app raised on this request: e.g. a query starting with "[" that literal_eval
//   rejects): retried SERVER_ERROR_ATTEMPTS times, then returned as a page or thrown, as the caller
//   chooses (--webshop-server-errors);
// - an AbortSignal stops a request or a backoff sleep at once, rejecting with the signal's reason.
import http from 'node:http';
import https from 'node:https';
import { InfraError } from '../../errors.js';
import { abortReason, systemClock, type Clock } from '../../llm/clock.js';
import { backoffDelay, parseRetryAfter, type RetryPolicy } from '../../llm/retry.js';
import { ENV_RETRY, REFUSED_ATTEMPTS, USER_AGENT } from '../../envs/http/request.js';
import { redactUrl } from '../../util/redact.js';

/** Attempts for an HTTP 500 before it is taken as the site's answer to this request. */
export const SERVER_ERROR_ATTEMPTS = 3;

export interface SitePage {
  status: number;
  body: string;
  /** The request target as sent (path + query; the first one when the site redirected). */
  target: string;
}

interface Answer extends SitePage {
  location?: string;
}

export interface SiteGetOptions {
  timeoutMs: number;
  retry?: Partial<RetryPolicy>;
  /** What a persistent HTTP 500 is: the page (the notebook reads it) or an outage. */
  serverErrors: 'observe' | 'fail';
  signal?: AbortSignal;
  clock?: Clock;
  random?: () => number;
  onRetry?: (e: { attempt: number; reason: string; delayMs: number; target: string }) => void;
}

class Retryable extends Error {
  constructor(
    message: string,
    readonly kind: 'refused' | 'server-error' | 'transient',
    readonly page?: Answer,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

const REFUSED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const DROPPED_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ETIMEDOUT', 'ERR_STREAM_PREMATURE_CLOSE']);
// requests' .text keeps a byte-order mark and replaces undecodable bytes.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

function once(base: URL, target: string, opts: SiteGetOptions, now: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const signal = opts.signal;
    if (signal?.aborted) return reject(abortReason(signal));
    const headers: Record<string, string> = { 'User-Agent': USER_AGENT, Accept: '*/*', 'Accept-Encoding': 'identity' };
    // Credentials in the URL are sent as Basic auth, as requests does.
    if (base.username || base.password) {
      headers.Authorization = 'Basic ' + Buffer.from(`${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`).toString('base64');
    }
    let settled = false;
    const done = (f: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      f();
    };
    const req = (base.protocol === 'https:' ? https : http).request(
      { protocol: base.protocol, hostname: base.hostname.replace(/^\[|\]$/g, ''), port: base.port || undefined, path: target, method: 'GET', headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          done(() => {
            const page: Answer = { status: res.statusCode ?? 0, body: decoder.decode(Buffer.concat(chunks)), target, location: res.headers.location };
            const s = page.status;
            if (s === 500) return reject(new Retryable('HTTP 500', 'server-error', page));
            if (s === 429 || s === 408 || s >= 500) {
              const ra = parseRetryAfter({ get: (n) => (res.headers[n] === undefined ? null : String(res.headers[n])) }, now);
              return reject(new Retryable(`HTTP ${s}`, 'transient', page, ra));
            }
            resolve(page);
          }),
        );
        res.on('error', (e) => done(() => reject(new Retryable(`connection dropped mid-response (${e.message})`, 'transient'))));
        res.on('aborted', () => done(() => reject(new Retryable('connection dropped mid-response', 'transient'))));
      },
    );
    const onAbort = () => {
      done(() => reject(abortReason(signal!)));
      req.destroy();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.setTimeout(opts.timeoutMs, () => {
      done(() => reject(new Retryable(`timed out after ${opts.timeoutMs} ms`, 'transient')));
      req.destroy();
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      const code = e.code ?? '';
      if (REFUSED_CODES.has(code)) done(() => reject(new Retryable(`connection refused (${code})`, 'refused')));
      else if (DROPPED_CODES.has(code) || /socket hang up|closed/i.test(e.message)) done(() => reject(new Retryable(`connection dropped (${code || e.message})`, 'transient')));
      else done(() => reject(e));
    });
    req.end();
  });
}

const MAX_REDIRECTS = 30; // requests' DEFAULT_REDIRECT_LIMIT
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** One GET with its redirects followed as requests.get does (the site's own routes never redirect; a proxy may). */
async function following(base: URL, target: string, opts: SiteGetOptions, now: number): Promise<SitePage> {
  let origin = base;
  let t = target;
  for (let hop = 0; ; hop++) {
    const page = await once(origin, t, opts, now);
    const location = page.location;
    if (!REDIRECTS.has(page.status) || !location) return { status: page.status, body: page.body, target };
    if (hop >= MAX_REDIRECTS) throw new InfraError(`WebShop site: more than ${MAX_REDIRECTS} redirects from ${redactUrl(`${base.origin}${target}`)}`, 'env');
    const next = new URL(location, `${origin.origin}${t}`);
    // Credentials go only to the host they were given for (requests' rebuild_auth).
    if (next.hostname === origin.hostname) {
      next.username = origin.username;
      next.password = origin.password;
    }
    origin = next;
    t = next.pathname + next.search;
  }
}

/**
 * GET `target` (an exact request target) from the site at `base`, following redirects. Returns 2xx–4xx
 * answers as pages.
 */
export async function getSitePage(base: URL, target: string, opts: SiteGetOptions): Promise<SitePage> {
  const policy: RetryPolicy = { ...ENV_RETRY };
  for (const [k, v] of Object.entries(opts.retry ?? {})) if (v !== undefined) (policy as unknown as Record<string, number>)[k] = v;
  const clock = opts.clock ?? systemClock;
  const shown = redactUrl(`${base.protocol}//${base.host}${target}`);
  for (let attempt = 1; ; attempt++) {
    if (opts.signal?.aborted) throw abortReason(opts.signal);
    let failure: Retryable;
    try {
      return await following(base, target, opts, clock.now());
    } catch (e) {
      if (opts.signal?.aborted) throw abortReason(opts.signal);
      if (!(e instanceof Retryable)) throw new InfraError(`WebShop site request failed: GET ${shown}: ${redactUrl((e as Error).message)}`, 'env', { cause: e });
      failure = e;
    }
    const limit =
      failure.kind === 'refused' ? Math.min(policy.maxAttempts, REFUSED_ATTEMPTS) : failure.kind === 'server-error' ? Math.min(policy.maxAttempts, SERVER_ERROR_ATTEMPTS) : policy.maxAttempts;
    if (attempt >= limit) {
      if (failure.kind === 'server-error' && opts.serverErrors === 'observe' && failure.page) return { status: failure.page.status, body: failure.page.body, target };
      const what = failure.kind === 'refused' ? `WebShop site unreachable at ${redactUrl(base.origin)}` : `WebShop site: GET ${shown}`;
      throw new InfraError(`${what}: failed ${attempt} times (last: ${failure.message})`, 'env');
    }
    const delayMs = failure.retryAfterMs !== undefined ? Math.min(failure.retryAfterMs, policy.retryAfterCapMs) : backoffDelay(attempt, policy, opts.random);
    opts.onRetry?.({ attempt, reason: failure.message, delayMs, target });
    await clock.sleep(delayMs, opts.signal);
  }
}
