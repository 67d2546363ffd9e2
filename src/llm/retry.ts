// Our retry policy for model calls (model-http.ts sends each request once): exponential backoff with
// full jitter on 429, 408/409, 5xx, timeouts, dropped connections and malformed bodies; Retry-After
// honoured but capped; a bounded number of attempts, then InfraError('llm'). Errors that every episode
// would repeat (400, 401, 403, 404) abort at once with a FatalRunError saying what to fix.
// the error classes only: the openai client itself is never loaded (model-http.ts sends the requests)
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai/core/error';
import { FatalRunError, InfraError } from '../errors.js';
import { abortReason, systemClock, type Clock } from '../util/clock.js';
import { backoffDelay, parseRetryAfter, type RetryPolicy } from '../util/backoff.js';
import { ContextLengthError, recognizeContextLimit } from './context-limit.js';
import { responseLimitIn } from './model-http.js';
import { isJsonObject } from '../util/json-fields.js';
import type { EndpointFailure } from './endpoints.js';

/** A 200 response whose body is not a usable completion (not JSON, no choices...). Retried. */
export class MalformedResponseError extends Error {
  override readonly name = 'MalformedResponseError';
}

export type Classified =
  /** unreachable: nothing listens there (refused, unknown host): worth only a couple of quick tries. */
  | { kind: 'retry'; reason: string; retryAfterMs?: number; unreachable?: boolean }
  | { kind: 'fail'; error: Error }
  | { kind: 'abort' }
  | { kind: 'unknown' };

/** What the error messages may mention (never the key itself). */
export interface ErrorContext {
  /** Base URL that answered (no credentials). */
  endpoint: string;
  model: string;
  /** Name of the environment variable that holds the key. */
  apiKeyEnv: string;
  /** Whether a real key was sent (false: the placeholder). */
  hasKey: boolean;
  /** Makes server-supplied text safe to show (removes the key). */
  redact: (s: string) => string;
}

function oneLine(s: string, max = 300): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function serverMessage(e: APIError, ctx: ErrorContext): string {
  const body: unknown = e.error;
  const m = isJsonObject(body) && typeof body.message === 'string' ? body.message : e.message;
  return oneLine(ctx.redact(String(m ?? '')));
}

const SOCKET_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
/** Nothing answers at that address: a dead endpoint is reported in seconds, not after minutes of backoff. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);
/**
 * Attempts of a call once nothing answers (a server that is just restarting gets a second chance). With
 * several endpoints the cap waits until the call has found every one unreachable: a dead fleet member
 * costs a call one attempt, never the whole call while a live one is left untried.
 */
export const UNREACHABLE_ATTEMPTS = 3;

function socketCode(e: unknown): string | undefined {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- walks an error's cause chain, whatever it holds
  for (let c: any = e, depth = 0; c && depth < 5; c = c.cause, depth++) {
    if (typeof c.code === 'string' && SOCKET_CODES.has(c.code)) return c.code;
  }
  return undefined;
}

/** Statuses that are the endpoint's own trouble (overloaded, failing), retried: 429, 408, 409, 5xx. */
function retriedStatus(s: number): boolean {
  return s === 429 || s === 408 || s === 409 || s >= 500;
}

/**
 * What a failed attempt says of the endpoint it went to (its tally, src/llm/endpoints.ts): a failure of
 * that endpoint by kind (what classifyError retries, an answer too large, anything unknown), 'answered'
 * (an error status about the request itself, which any endpoint would give: 400, 401, 403, 404...), or
 * undefined (we aborted it).
 */
export function attemptFailure(e: unknown): EndpointFailure | 'answered' | undefined {
  if (e instanceof APIUserAbortError) return undefined;
  if (responseLimitIn(e)) return 'too large';
  if (e instanceof APIConnectionTimeoutError) return 'timeout';
  if (!(e instanceof APIConnectionError) && e instanceof APIError && typeof e.status === 'number')
    return retriedStatus(e.status) ? `HTTP ${e.status}` : 'answered';
  const code = socketCode(e);
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'unknown host';
  if (code === 'ETIMEDOUT') return 'timeout';
  if (code !== undefined || e instanceof APIConnectionError) return 'dropped';
  if (e instanceof MalformedResponseError || e instanceof SyntaxError) return 'malformed';
  if (e instanceof TypeError && /terminated|fetch failed|socket|other side closed/i.test(e.message)) return 'dropped';
  return 'other';
}

export function classifyError(e: unknown, ctx: ErrorContext, now: number): Classified {
  if (e instanceof APIUserAbortError) return { kind: 'abort' };
  const tooBig = responseLimitIn(e);
  if (tooBig) return { kind: 'fail', error: new InfraError(`model "${ctx.model}" at ${ctx.endpoint}: ${tooBig.message}`, 'llm') };
  if (e instanceof APIConnectionTimeoutError) return { kind: 'retry', reason: 'request timed out' };
  if (e instanceof APIConnectionError) {
    const code = socketCode(e);
    return {
      kind: 'retry',
      reason: `connection error${code ? ` (${code})` : ''}`,
      unreachable: code !== undefined && UNREACHABLE_CODES.has(code),
    };
  }
  if (e instanceof APIError && typeof e.status === 'number') {
    const s = e.status;
    const host = ctx.endpoint;
    if (s === 429 && (e.code === 'insufficient_quota' || (e.error as { type?: unknown } | undefined)?.type === 'insufficient_quota')) {
      // OpenAI uses 429 for an exhausted account too: no wait will fix that.
      return {
        kind: 'fail',
        error: new FatalRunError(
          `the model server ${host} says the account is out of quota (429 insufficient_quota): check the plan and billing of the key in ${ctx.apiKeyEnv}`,
        ),
      };
    }
    if (retriedStatus(s)) {
      return { kind: 'retry', reason: `HTTP ${s}${s === 429 ? ' (rate limited)' : ''}`, retryAfterMs: parseRetryAfter(e.headers, now) };
    }
    const msg = serverMessage(e, ctx);
    if (s === 401) {
      return {
        kind: 'fail',
        error: new FatalRunError(
          ctx.hasKey
            ? `the model server ${host} rejected the API key (401): check the key in the environment variable ${ctx.apiKeyEnv} (--api-key-env names the variable)`
            : `the model server ${host} needs an API key (401): set the environment variable ${ctx.apiKeyEnv} (or name another with --api-key-env)`,
        ),
      };
    }
    if (s === 403) {
      return {
        kind: 'fail',
        error: new FatalRunError(
          `the model server ${host} refused access to model "${ctx.model}" (403): check that the key in ${ctx.apiKeyEnv} may use this model`,
        ),
      };
    }
    if (s === 404) {
      return {
        kind: 'fail',
        error: new FatalRunError(
          `model "${ctx.model}" or the completions endpoint was not found at ${host} (404: ${msg}): check --model and --base-url (it must end in /v1)`,
        ),
      };
    }
    // Each server family's own wording (context-limit.ts); any other 4xx stays what it is.
    const limit = recognizeContextLimit(s, e.error ?? msg);
    if (limit) {
      return {
        kind: 'fail',
        error: new ContextLengthError(`the prompt does not fit model "${ctx.model}" (${s}): ${msg}`, { ...limit, message: msg }),
      };
    }
    return { kind: 'fail', error: new FatalRunError(`the model server ${host} rejected the request (${s}): ${msg}`) };
  }
  if (e instanceof MalformedResponseError) return { kind: 'retry', reason: `malformed response (${e.message})` };
  // A 200 body is parsed after the status line, as the openai client did (model-http.ts): a body that
  // is not JSON or a connection cut mid-body surfaces as a raw SyntaxError / fetch TypeError rather than an APIError.
  if (e instanceof SyntaxError) return { kind: 'retry', reason: 'malformed JSON in the response body' };
  if (e instanceof TypeError && (/terminated|fetch failed|socket|other side closed/i.test(e.message) || socketCode(e))) {
    return { kind: 'retry', reason: `connection dropped (${socketCode(e) ?? e.message})` };
  }
  const code = socketCode(e);
  if (code) return { kind: 'retry', reason: `connection error (${code})`, unreachable: UNREACHABLE_CODES.has(code) };
  return { kind: 'unknown' };
}

export interface RetryHooks {
  clock?: Clock;
  random?: () => number;
  signal?: AbortSignal;
  /** Called before each backoff sleep. */
  onRetry?: (info: { attempt: number; reason: string; delayMs: number }) => void;
  /**
   * Called when an attempt found nothing listening (refused, unknown host); returns whether the call may
   * still reach another endpoint it has not found unreachable (a fleet). Absent: one endpoint, never.
   */
  onUnreachable?: () => boolean;
}

/** Runs `attempt` until it succeeds, fails for good, or uses up the attempts (→ InfraError('llm')). */
export async function withRetry<T>(
  attempt: (n: number) => Promise<T>,
  policy: RetryPolicy,
  ctx: ErrorContext,
  hooks: RetryHooks = {},
): Promise<T> {
  const clock = hooks.clock ?? systemClock;
  let lastReason = '';
  let attempts = policy.maxAttempts;
  let n = 1;
  for (; n <= attempts; n++) {
    try {
      return await attempt(n);
    } catch (e) {
      if (hooks.signal?.aborted) throw abortReason(hooks.signal);
      const c = classifyError(e, ctx, clock.now());
      if (c.kind === 'abort') throw e;
      if (c.kind === 'fail') throw c.error;
      if (c.kind === 'unknown') throw e;
      lastReason = c.reason;
      // Not before n: a fleet found all dead at its fourth endpoint stops there (one endpoint: at 3, as ever).
      if (c.unreachable && !hooks.onUnreachable?.()) attempts = Math.min(attempts, Math.max(n, UNREACHABLE_ATTEMPTS));
      if (n >= attempts) break;
      const delayMs =
        c.retryAfterMs !== undefined ? Math.min(c.retryAfterMs, policy.retryAfterCapMs) : backoffDelay(n, policy, hooks.random);
      hooks.onRetry?.({ attempt: n, reason: c.reason, delayMs });
      await clock.sleep(delayMs, hooks.signal);
    }
  }
  const made = Math.min(n, attempts);
  throw new InfraError(
    `model "${ctx.model}" at ${ctx.endpoint} failed after ${made} attempt${made === 1 ? '' : 's'}: ${lastReason}`,
    'llm',
  );
}
