// The OpenAI-compatible backend (OpenAI, vLLM, llama.cpp server, Ollama): each request is sent by
// model-http.ts (the openai client's request and errors, without its per-call cost); our retry policy
// (retry.ts), the run-wide limits (limits.ts), endpoint balancing (endpoints.ts) and token/cost
// accounting (pricing.ts, stats.ts) wrap every HTTP request.
// §3: the paper used the Completions API; `api: 'chat'` carries the same prompt as one user message
// for chat-only models, a deviation that describe() reports.
import { performance } from 'node:perf_hooks';
import {
  AbortedUnsentError,
  type CompletionChoice,
  type CompletionModel,
  type CompletionRequest,
  type CompletionResult,
  type TokenUsage,
} from './types.js';
import { systemClock, type Clock } from '../util/clock.js';
import { EndpointPool, safeEndpointLabel, type BalancePolicy, type Endpoint, type EndpointTally } from './endpoints.js';
import { ConcurrencyLimiter, RateLimiter, estimateTokens } from './limits.js';
import { costUsd, modelPricesOf, type ModelPrices, type Prices } from './pricing.js';
import { MalformedResponseError, attemptFailure, withRetry, type ErrorContext } from './retry.js';
import { DEFAULT_RETRY, type RetryPolicy } from '../util/backoff.js';
import { redactServerText, Secret } from './secret.js';
import { LlmAccumulator } from './stats.js';
import { APIError } from 'openai/core/error';
import { DEFAULT_LLM_MAX_BYTES, ModelHttp, wasSentUnanswered } from './model-http.js';

export { normalizeErrorBody } from './model-http.js';

export type ApiMode = 'completions' | 'chat';

/** Sent when no key is configured: local servers ignore it (and the openai client always sent one). */
export const PLACEHOLDER_KEY = 'sk-no-key';

export const CHAT_DEVIATION =
  'api=chat: each completion prompt is sent as the single user message of a /v1/chat/completions request ' +
  '(same stop sequences and sampling); the paper used the Completions API (§3), and the model sees its chat template around the prompt';

export interface OpenAIModelOptions {
  model: string;
  baseURLs: string[];
  apiKey?: Secret;
  /** Name of the environment variable the key came from (for error messages). */
  apiKeyEnv: string;
  api: ApiMode;
  balance: BalancePolicy;
  requestTimeoutMs: number;
  retry?: RetryPolicy;
  prices: Prices & { source?: string };
  /** Shared by the whole run; created from maxInFlight when absent. */
  limiter?: ConcurrencyLimiter;
  maxInFlight?: number;
  rateLimiter?: RateLimiter;
  rpm?: number;
  tpm?: number;
  accumulator?: LlmAccumulator;
  clock?: Clock;
  random?: () => number;
  /** Retry notifications (reason and delay; never secrets). */
  onRetry?: (info: { attempt: number; reason: string; delayMs: number; endpoint: string }) => void;
  /** Largest answer body (bytes); default DEFAULT_LLM_MAX_BYTES (model-http.ts). */
  maxResponseBytes?: number;
}

interface RawResult {
  choices: CompletionChoice[];
  usage?: TokenUsage;
}

export class OpenAICompatibleModel implements CompletionModel {
  readonly model: string;
  readonly prices: ModelPrices;
  readonly accumulator: LlmAccumulator;
  private readonly pool: EndpointPool<ModelHttp>;
  private readonly limiter: ConcurrencyLimiter;
  private readonly rate: RateLimiter;
  private readonly retry: RetryPolicy;
  private readonly clock: Clock;

  constructor(private readonly o: OpenAIModelOptions) {
    this.model = o.model;
    this.prices = modelPricesOf(o.prices);
    this.accumulator = o.accumulator ?? new LlmAccumulator();
    this.retry = o.retry ?? DEFAULT_RETRY;
    this.clock = o.clock ?? systemClock;
    this.limiter = o.limiter ?? new ConcurrencyLimiter(o.maxInFlight ?? 64);
    this.rate = o.rateLimiter ?? new RateLimiter(o.rpm, o.tpm, this.clock);
    const key = o.apiKey?.reveal() || PLACEHOLDER_KEY;
    this.pool = new EndpointPool(
      o.baseURLs.map((url) => ({
        label: safeEndpointLabel(url),
        client: new ModelHttp({
          apiKey: key,
          baseURL: url.replace(/\/+$/, ''),
          timeoutMs: o.requestTimeoutMs,
          maxBytes: o.maxResponseBytes ?? DEFAULT_LLM_MAX_BYTES,
        }),
      })),
      o.balance,
    );
  }

  describe(): Record<string, unknown> {
    const o = this.o;
    return {
      backend: 'openai-compatible',
      model: this.model,
      api: o.api,
      endpoints: this.pool.endpoints.map((e) => e.label),
      balance: o.balance,
      apiKeyEnv: o.apiKeyEnv,
      apiKeySet: !!o.apiKey,
      requestTimeoutMs: o.requestTimeoutMs,
      retry: { ...this.retry },
      limits: { maxInFlight: this.limiter.max, rpm: this.rate.rpm ?? null, tpm: this.rate.tpm ?? null },
      pricesUsdPer1M: { prompt: o.prices.promptPerM, completion: o.prices.completionPerM, source: o.prices.source ?? 'flags' },
      deviations: o.api === 'chat' ? [CHAT_DEVIATION] : [],
    };
  }

  /** The model and how it is asked; not the endpoints, key, timeouts, retries, limits or prices. */
  identity(): Record<string, unknown> {
    return { backend: 'openai-compatible', model: this.model, api: this.o.api, deviations: this.o.api === 'chat' ? [CHAT_DEVIATION] : [] };
  }

  /** Per-endpoint request counts (for progress and tests). */
  endpointStats(): Array<{ endpoint: string; sent: number; inFlight: number }> {
    return this.pool.endpoints.map((e) => ({ endpoint: e.label, sent: e.sent, inFlight: e.inFlight }));
  }

  /** What each endpoint's attempts got so far: answered, or failed by kind (the run's closing lines). */
  endpointTallies(): EndpointTally[] {
    return this.pool.tallies();
  }

  async complete(req: CompletionRequest, opts: { signal?: AbortSignal } = {}): Promise<CompletionResult> {
    validateRequest(req);
    const t0 = performance.now();
    const choices: CompletionChoice[] = [];
    const usage: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
    // Whether a request of this call may have been billed (sent with no whole answer, or answered).
    const billing = { maybe: false };
    let usageUnknown = false;
    try {
      // Some servers (Ollama) ignore n and return one choice: ask again for the rest.
      while (choices.length < req.n) {
        const want = req.n - choices.length;
        const raw = await this.request({ ...req, n: want }, opts.signal, billing);
        billing.maybe = true;
        for (const c of raw.choices.slice(0, want)) choices.push({ ...c, index: choices.length });
        if (raw.usage) {
          usage.promptTokens += raw.usage.promptTokens;
          usage.completionTokens += raw.usage.completionTokens;
          usage.totalTokens += raw.usage.totalTokens;
        } else usageUnknown = true;
      }
    } catch (e) {
      if (opts.signal?.aborted && !billing.maybe) throw new AbortedUnsentError(opts.signal.reason);
      throw e;
    }
    const cost = costUsd(usage, this.prices);
    this.accumulator.add({ freshChoices: choices.length });
    return {
      choices,
      usage,
      costUsd: cost,
      cachedChoices: 0,
      latencyMs: performance.now() - t0,
      ...(usageUnknown ? { usageUnknown } : {}),
    };
  }

  async close(): Promise<void> {}

  private errorContext(): ErrorContext {
    const key = this.o.apiKey;
    return {
      endpoint: this.pool.endpoints[0].label,
      model: this.model,
      apiKeyEnv: this.o.apiKeyEnv,
      hasKey: !!key,
      redact: (s) => redactServerText(s, key, this.o.baseURLs),
    };
  }

  private request(req: CompletionRequest, signal: AbortSignal | undefined, billing: { maybe: boolean }): Promise<RawResult> {
    const ctx = this.errorContext();
    let current: Endpoint<ModelHttp> | undefined;
    // The endpoints this call found unreachable: not picked again while another is left (retry.ts caps the call once none is).
    const unreachable = new Set<Endpoint<ModelHttp>>();
    return withRetry(
      async () => {
        const release = await this.limiter.acquire(signal);
        try {
          const grant = this.rate.enabled
            ? await this.rate.acquire(estimateTokens(req.prompt.length, req.maxTokens, req.n), signal)
            : undefined;
          const ep = (current = this.pool.pick(this.clock.now(), unreachable));
          ctx.endpoint = ep.label;
          ep.inFlight++;
          ep.sent++;
          this.accumulator.add({ inFlight: 1, httpRequests: 1 });
          try {
            const raw = await this.send(ep.client, req, signal);
            this.pool.record(ep, 'answered');
            if (raw.usage) grant?.settle(raw.usage.totalTokens);
            return raw;
          } catch (e) {
            if (mayHaveBilled(e)) billing.maybe = true;
            // The one place an attempt's outcome is known with its endpoint; an attempt we aborted is not the endpoint's.
            this.pool.record(ep, signal?.aborted ? undefined : attemptFailure(e));
            throw e;
          } finally {
            ep.inFlight--;
            this.accumulator.add({ inFlight: -1 });
          }
        } finally {
          release();
        }
      },
      this.retry,
      ctx,
      {
        clock: this.clock,
        random: this.o.random,
        signal,
        onUnreachable: () => {
          if (current) unreachable.add(current);
          return this.pool.endpoints.some((e) => !unreachable.has(e));
        },
        onRetry: (info) => {
          this.accumulator.add({ retries: 1 });
          // Let a fleet route around the endpoint that just failed while it backs off.
          if (current && this.pool.endpoints.length > 1) current.coolUntil = this.clock.now() + Math.max(info.delayMs, 1000);
          this.o.onRetry?.({ ...info, endpoint: ctx.endpoint });
        },
      },
    );
  }

  private async send(client: ModelHttp, req: CompletionRequest, signal?: AbortSignal): Promise<RawResult> {
    const common = {
      model: this.model,
      max_tokens: req.maxTokens,
      temperature: req.temperature,
      top_p: req.topP,
      n: req.n,
      frequency_penalty: req.frequencyPenalty,
      presence_penalty: req.presencePenalty,
      ...(req.stop && req.stop.length ? { stop: req.stop } : {}),
      ...(req.seed !== undefined ? { seed: req.seed } : {}),
    };
    // the fields in the order the openai client sent them
    if (this.o.api === 'completions') {
      const res = await client.post('/completions', { ...common, prompt: req.prompt, stream: false }, signal);
      return parseResponse(res, (c) => c.text);
    }
    const res = await client.post(
      '/chat/completions',
      { ...common, messages: [{ role: 'user', content: req.prompt }], stream: false },
      signal,
    );
    return parseResponse(res, (c) => {
      const content = c.message?.content;
      return content == null ? '' : content;
    });
  }
}

/**
 * Whether a failed request may have been billed: one sent whole that got no whole answer, or a 200 that
 * could not be used, may have been; an error status, or a connection that failed before the request was
 * written (refused, reset), was not.
 */
function mayHaveBilled(e: unknown): boolean {
  if (wasSentUnanswered(e)) return true;
  return !(e instanceof APIError);
}

/** Checks the shape of a 200 body; anything unusable is a MalformedResponseError (retried). */
/* eslint-disable @typescript-eslint/no-explicit-any -- the server's JSON, checked field by field below */
function parseResponse(res: unknown, textOf: (c: any) => unknown): RawResult {
  const body = res as { choices?: unknown; usage?: any };
  if (!body || typeof body !== 'object' || !Array.isArray(body.choices) || body.choices.length === 0) {
    throw new MalformedResponseError(typeof res === 'string' ? 'body is not JSON' : 'no choices');
  }
  const choices = body.choices
    .map((c, k) => {
      const text = textOf(c);
      if (typeof text !== 'string') throw new MalformedResponseError('a choice has no text');
      return { index: typeof c.index === 'number' ? c.index : k, text, finishReason: String(c.finish_reason ?? 'stop') };
    })
    .sort((a, b) => a.index - b.index);
  const u = body.usage;
  const usage =
    u && typeof u.prompt_tokens === 'number'
      ? {
          promptTokens: u.prompt_tokens,
          completionTokens: u.completion_tokens ?? 0,
          totalTokens: u.total_tokens ?? u.prompt_tokens + (u.completion_tokens ?? 0),
        }
      : undefined;
  return { choices, usage };
}
/* eslint-enable @typescript-eslint/no-explicit-any */

export function validateRequest(req: CompletionRequest): void {
  if (typeof req.prompt !== 'string') throw new TypeError('CompletionRequest.prompt must be a string');
  if (!Number.isInteger(req.n) || req.n < 1) throw new RangeError(`CompletionRequest.n must be an integer >= 1 (got ${req.n})`);
  if (!Number.isInteger(req.maxTokens) || req.maxTokens < 0)
    throw new RangeError(`CompletionRequest.maxTokens must be an integer >= 0 (got ${req.maxTokens})`);
}
