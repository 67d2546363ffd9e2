// The language-model layer: settings → ModelConfig → a CompletionModel with retries, run-wide limits,
// prices and the persistent cache (a layer: src/llm/layer.ts). The runner uses resolveModelConfig +
// openModel (the backend and the cache store: each episode's chain puts the cache layer over the
// backend, src/run/model-chain.ts); a library user gets both in one model from createCompletionModel.
// `totals()` counts the model's traffic (tokens and money: src/run/meter.ts).
import fs from 'node:fs';
import path from 'node:path';
import { sha256File } from '../util/hash.js';
import { ConfigError, FatalRunError, InfraError } from '../errors.js';
import { cacheLayer } from './cache/layer.js';
import { CacheStore } from './cache/store.js';
import type { Clock } from '../util/clock.js';
import { describeModelConfig, resolveModelConfig, type LlamaModelConfig, type ModelConfig, type OpenAIModelConfig } from './config.js';
import { isOfficialOpenAI, safeEndpointLabel, type EndpointTally } from './endpoints.js';
import { ConcurrencyLimiter, RateLimiter } from './limits.js';
import { OpenAICompatibleModel, PLACEHOLDER_KEY } from './openai-model.js';
import { DEFAULT_LLM_MAX_BYTES, ModelHttp } from './model-http.js';
import { JsonFields } from '../util/json-fields.js';
import { resolvePrices } from './pricing.js';
import { redactServerText } from './secret.js';
import { LlmAccumulator, type LlmTotals } from './stats.js';
import type { CompletionModel, CompletionRequest, CompletionResult } from './types.js';
import { withRetry } from './retry.js';

export {
  resolveModelConfig,
  describeModelConfig,
  llmCliOptions,
  llmSettingsFromExperiment,
  mergeLlmSettings,
  noModelMessage,
} from './config.js';
export type { ModelConfig, OpenAIModelConfig, LlamaModelConfig, LlmSettings } from './config.js';
export { cacheKey, canonicalRequest } from './cache/key.js';
export { CompletionCache } from './cache/file.js';
export { CacheStore, CacheMissError, type CacheMode } from './cache/store.js';
export { cacheLayer } from './cache/layer.js';
export { ContextLengthError } from './context-limit.js';
export { DEFAULT_RETRY, type RetryPolicy } from '../util/backoff.js';
export { LlmAccumulator, type LlmTotals } from './stats.js';
export { BUILTIN_PRICES } from './pricing.js';
export { VirtualClock, systemClock, type Clock } from '../util/clock.js';
export { CHAT_DEVIATION } from './openai-model.js';
export type { EndpointTally, EndpointFailure } from './endpoints.js';

/** The model the runner gets: a CompletionModel plus the run's running totals. */
export interface LlmModel extends CompletionModel {
  /** Calls, retries, cache hits, tokens and cost so far (a copy). */
  totals(): LlmTotals;
  close(): Promise<void>;
}

export interface CreateModelDeps {
  clock?: Clock;
  random?: () => number;
  accumulator?: LlmAccumulator;
  onRetry?: (info: { attempt: number; reason: string; delayMs: number; endpoint: string }) => void;
  /** Secret values no completion may carry into the cache or the run (default: the API key). */
  secrets?: readonly string[];
}

/** What a run needs of its model: the backend and the cache store its episodes' chains wrap it with. */
export interface OpenedModel {
  /** The backend (retries, limits, prices): what answers a call the cache does not. */
  backend: CompletionModel;
  /** The run's one cache store (file and per-key locks), opened once for every episode. */
  cache: CacheStore;
  /** Calls, retries, cache hits so far (a copy). */
  totals(): LlmTotals;
  /** The base URLs the backend sends its calls to (none for an embedded model or --cache replay, which call none). */
  endpoints: string[];
  /** What each base URL's attempts got so far (none for an embedded model): the closing lines name a failing one. */
  endpointTallies(): EndpointTally[];
}

/** The backend and the cache store of `cfg`, separately (the runner layers them per episode). */
export async function openModel(cfg: ModelConfig, deps: CreateModelDeps = {}): Promise<OpenedModel> {
  const acc = deps.accumulator ?? new LlmAccumulator();
  let backend: CompletionModel;
  let api: string;
  let endpointTallies = (): EndpointTally[] => [];
  if (cfg.kind === 'llama') {
    backend = cfg.cache.mode === 'replay' ? await replayOnlyLlama(cfg) : localBackend(await loadLlama(cfg), acc);
    // Two GGUF files may share a basename: the file's sha256 keeps their cache entries apart.
    const sha = String(backend.describe().sha256 ?? '');
    api = `llama;sha256=${sha}` + (cfg.seed !== undefined ? `;seed=${cfg.seed}` : '');
  } else {
    api = cfg.api;
    const openai = await createOpenAIModel(cfg, acc, deps);
    endpointTallies = () => openai.endpointTallies();
    backend = openai;
  }
  const secrets = [...(deps.secrets ?? []), ...(cfg.kind === 'llama' ? [] : [cfg.apiKey?.reveal()])];
  const cache = new CacheStore({ mode: cfg.cache.mode, path: cfg.cache.path, api, accumulator: acc, secrets });
  const endpoints = cfg.kind === 'openai' && cfg.cache.mode !== 'replay' ? [...cfg.baseURLs] : [];
  return { backend, cache, totals: () => acc.snapshot(), endpoints, endpointTallies };
}

/** The backend with the cache layer applied: the model a library user calls. */
export async function createCompletionModel(cfg: ModelConfig, deps: CreateModelDeps = {}): Promise<LlmModel> {
  const { backend, cache, totals } = await openModel(cfg, deps);
  // The spread copies the layer's `model` getter as its value (the backend's model name is fixed).
  return {
    ...cacheLayer(cache)(backend),
    totals,
    async close() {
      cache.close();
      await backend.close?.();
    },
  };
}

async function createOpenAIModel(cfg: OpenAIModelConfig, acc: LlmAccumulator, deps: CreateModelDeps): Promise<OpenAICompatibleModel> {
  const model = cfg.model ?? (cfg.cache.mode === 'replay' ? undefined : await discoverModel(cfg));
  if (!model) throw new ConfigError('--cache replay needs --model: the model name is part of every cache key');
  const official = cfg.baseURLs.every(isOfficialOpenAI);
  return new OpenAICompatibleModel({
    model,
    baseURLs: cfg.baseURLs,
    apiKey: cfg.apiKey,
    apiKeyEnv: cfg.apiKeyEnv,
    api: cfg.api,
    balance: cfg.balance,
    requestTimeoutMs: cfg.requestTimeoutMs,
    retry: cfg.retry,
    prices: resolvePrices(model, {
      pricePrompt: cfg.prices.promptPerM,
      priceCompletion: cfg.prices.completionPerM,
      officialOpenAI: official,
    }),
    limiter: new ConcurrencyLimiter(cfg.maxInFlight),
    rateLimiter: new RateLimiter(cfg.rpm, cfg.tpm, deps.clock),
    accumulator: acc,
    clock: deps.clock,
    random: deps.random,
    onRetry: deps.onRetry,
    ...(cfg.maxResponseBytes !== undefined ? { maxResponseBytes: cfg.maxResponseBytes } : {}),
  });
}

/** No --model with a --base-url: use the server's model if it serves exactly one (vLLM, llama.cpp server). */
async function discoverModel(cfg: OpenAIModelConfig): Promise<string> {
  const url = cfg.baseURLs[0];
  const label = safeEndpointLabel(url);
  const client = new ModelHttp({
    apiKey: cfg.apiKey?.reveal() || PLACEHOLDER_KEY,
    baseURL: url,
    timeoutMs: cfg.requestTimeoutMs,
    maxBytes: cfg.maxResponseBytes ?? DEFAULT_LLM_MAX_BYTES,
  });
  let ids: string[];
  try {
    ids = await withRetry(
      async () => {
        // GET /models: {"object": "list", "data": [{"id": ...}, ...]}
        const data = JsonFields.of(await client.get('/models'))?.get('data');
        return Array.isArray(data) ? data.flatMap((m) => JsonFields.of(m)?.str('id') ?? []) : [];
      },
      { ...cfg.retry, maxAttempts: Math.min(cfg.retry.maxAttempts, 3) },
      {
        endpoint: label,
        model: '(none named)',
        apiKeyEnv: cfg.apiKeyEnv,
        hasKey: !!cfg.apiKey,
        redact: (s) => redactServerText(s, cfg.apiKey, cfg.baseURLs),
      },
    );
  } catch (e) {
    if (e instanceof InfraError || e instanceof FatalRunError) {
      throw new ConfigError(
        `no --model given and the model list of ${label} could not be read (${e.message}); name the model with --model`,
      );
    }
    throw e;
  }
  if (ids.length === 1) return ids[0];
  throw new ConfigError(
    ids.length
      ? `no --model given and ${label} serves ${ids.length} models: name one with --model (${ids.slice(0, 10).join(', ')}${ids.length > 10 ? ', ...' : ''})`
      : `no --model given and ${label} lists no models: name the model with --model`,
  );
}

async function loadLlama(cfg: LlamaModelConfig): Promise<CompletionModel> {
  let mod: typeof import('./llama.js');
  try {
    mod = await import('./llama.js');
  } catch (e) {
    const why = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw new ConfigError(`the embedded llama.cpp backend could not be loaded (${why}); run \`npm install node-llama-cpp\``);
  }
  return mod.createLlamaModel({ modelPath: cfg.modelPath, contextSize: cfg.contextSize, seed: cfg.seed, threads: cfg.threads });
}

/**
 * --cache replay with --llm: the weights are not loaded; every answer must come from the cache. The file
 * is still read once for its sha256, which is part of every llama cache key.
 */
async function replayOnlyLlama(cfg: LlamaModelConfig): Promise<CompletionModel> {
  if (!fs.existsSync(cfg.modelPath)) {
    throw new ConfigError(`--llm: ${cfg.modelPath} not found; replay needs the GGUF file to identify its cache entries (by sha256)`);
  }
  const sha256 = await sha256File(cfg.modelPath);
  return {
    model: path.basename(cfg.modelPath),
    describe: () => ({ ...describeModelConfig(cfg), sha256, loaded: false }),
    // As the loaded model's identity would be, from the configuration (cache and loading left out).
    identity: () => {
      const { cache: _cache, ...rest } = describeModelConfig(cfg);
      return { ...rest, sha256 };
    },
    complete: () => Promise.reject(new FatalRunError('--cache replay makes no model calls')),
  };
}

/** A local backend: its calls counted in the model's totals, its cost zero (an in-process model sends no bill). */
function localBackend(inner: CompletionModel, acc: LlmAccumulator): CompletionModel {
  return {
    get model() {
      return inner.model;
    },
    describe: () => inner.describe(),
    identity: () => inner.identity?.() ?? inner.describe(),
    async complete(req: CompletionRequest, opts?: { signal?: AbortSignal }): Promise<CompletionResult> {
      acc.add({ inFlight: 1 });
      try {
        const r = await inner.complete(req, opts);
        acc.add({ freshChoices: r.choices.length });
        return { ...r, costUsd: 0 };
      } finally {
        acc.add({ inFlight: -1 });
      }
    },
    close: () => inner.close?.() ?? Promise.resolve(),
  };
}

/** Convenience for scripts: settings + environment → ready model. */
export async function modelFromSettings(
  flags: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
  deps?: CreateModelDeps,
): Promise<LlmModel> {
  return createCompletionModel(resolveModelConfig(flags, env), deps);
}
