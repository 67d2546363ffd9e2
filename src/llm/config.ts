// Model settings from the command line, an experiment file and the environment → one ModelConfig.
// The API key itself is never a flag or a file field: --api-key-env names the environment variable.
import fs from 'node:fs';
import path from 'node:path';
import type { OptionTable } from '../options.js';
import { ConfigError, UserError } from '../errors.js';
import { cacheDir } from '../paths.js';
import type { CacheMode } from './cache/store.js';
import { isOfficialOpenAI, safeEndpointLabel, type BalancePolicy } from './endpoints.js';
import { redactBadUrl } from '../util/redact.js';
import { cacheDirName, checkOutputFile, checkWritableDir } from '../util/safe-path.js';
import type { ApiMode } from './openai-model.js';
import { DEFAULT_RETRY, type RetryPolicy } from '../util/backoff.js';
import { Secret } from './secret.js';
import { JsonFields } from '../util/json-fields.js';

/** No endpoint, key or embedded model is configured at all (a dry run can still price a known model). */
export class NoEndpointError extends ConfigError {}

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_API_KEY_ENV = 'OPENAI_API_KEY';
export const DEFAULT_REQUEST_TIMEOUT_S = 300;
export const DEFAULT_MAX_IN_FLIGHT = 64;

/** The settings as camelCase keys (yargs argv, or an experiment file's fields). */
export interface LlmSettings {
  model?: string;
  baseUrl?: string | string[];
  api?: string;
  llm?: string;
  llmContextSize?: number;
  llmSeed?: number;
  llmThreads?: number;
  apiKeyEnv?: string;
  cache?: string;
  cachePath?: string;
  maxRetries?: number;
  retryAfterCap?: number;
  requestTimeout?: number;
  maxInFlight?: number;
  rpm?: number;
  tpm?: number;
  balance?: string;
  pricePrompt?: number;
  priceCompletion?: number;
  llmMaxBytes?: number;
}

interface CommonConfig {
  cache: { mode: CacheMode; path: string };
}

export interface OpenAIModelConfig extends CommonConfig {
  kind: 'openai';
  /** Undefined: ask the server (GET /models) and use its only model. */
  model?: string;
  baseURLs: string[];
  api: ApiMode;
  apiKeyEnv: string;
  /** Wrapped so that it never prints (see secret.ts). */
  apiKey?: Secret;
  balance: BalancePolicy;
  requestTimeoutMs: number;
  retry: RetryPolicy;
  maxInFlight: number;
  rpm?: number;
  tpm?: number;
  prices: { promptPerM?: number; completionPerM?: number };
  /** Largest model answer body, bytes (undefined: the default of model-http.ts). */
  maxResponseBytes?: number;
}

export interface LlamaModelConfig extends CommonConfig {
  kind: 'llama';
  modelPath: string;
  contextSize?: number;
  seed?: number;
  threads?: number;
}

export type ModelConfig = OpenAIModelConfig | LlamaModelConfig;

const group = 'Model:';

/** yargs options the `run` command spreads in. No defaults here, so flags given explicitly can override an experiment file (defaults are applied by resolveModelConfig). */
export const llmCliOptions = {
  model: {
    type: 'string',
    group,
    describe: 'Model name sent to the endpoint (e.g. gpt-3.5-turbo-instruct); optional with a --base-url that serves one model',
  },
  'base-url': {
    operational: true,
    type: 'string',
    group,
    describe:
      'OpenAI-compatible base URL ending in /v1 (vLLM, llama.cpp server, Ollama); repeat or comma-separate for several servers of one model [default: $OPENAI_BASE_URL, else api.openai.com when a key is set]',
  },
  api: {
    type: 'string',
    group,
    choices: ['completions', 'chat'],
    describe:
      'completions (as the paper) or chat: carry the prompt as one user message for chat-only models (a recorded deviation) [default: completions]',
  },
  llm: {
    type: 'string',
    path: true,
    group,
    describe: 'Embedded llama.cpp model instead of an endpoint: llama:/path/to/model.gguf (needs node-llama-cpp)',
  },
  'llm-context-size': { type: 'number', group, describe: "Context size for --llm (tokens) [default: the model's]" },
  'llm-seed': { type: 'number', group, describe: 'Sampling seed for --llm' },
  'llm-threads': { operational: true, type: 'number', group, describe: "CPU threads for --llm [default: node-llama-cpp's choice]" },
  'api-key-env': {
    operational: true,
    type: 'string',
    group,
    describe: 'NAME of the environment variable that holds the API key (the key is never a flag) [default: OPENAI_API_KEY]',
  },
  cache: {
    operational: true,
    type: 'string',
    group,
    choices: ['rw', 'off', 'replay'],
    describe: 'Completion cache: rw (read and write), off, replay (cache only, no model calls) [default: rw]',
  },
  'cache-path': {
    operational: true,
    type: 'string',
    path: true,
    group,
    describe: 'Completion cache file (SQLite) [default: <cache dir>/completions.sqlite]',
  },
  'max-retries': {
    operational: true,
    type: 'number',
    group,
    describe:
      'Retries of a failed model request (429, 5xx, timeout, dropped connection) before the episode is an error [default: 5, i.e. 6 attempts]',
  },
  'retry-after-cap': {
    operational: true,
    type: 'number',
    group,
    describe: 'Longest wait (seconds) honoured from a Retry-After header [default: 60]',
  },
  'request-timeout': {
    operational: true,
    type: 'number',
    group,
    describe: `Timeout of one model request (seconds) [default: ${DEFAULT_REQUEST_TIMEOUT_S}]`,
  },
  'max-in-flight': {
    operational: true,
    type: 'number',
    group,
    describe: `Most model requests in flight at once, over the whole run [default: ${DEFAULT_MAX_IN_FLIGHT}]`,
  },
  rpm: { operational: true, type: 'number', group, describe: 'Requests-per-minute limit [default: none]' },
  tpm: {
    operational: true,
    type: 'number',
    group,
    describe: 'Tokens-per-minute limit (estimated as prompt chars/4 + max_tokens, corrected by usage) [default: none]',
  },
  balance: {
    operational: true,
    type: 'string',
    group,
    choices: ['round-robin', 'least-busy'],
    describe: 'How requests spread over several --base-url servers [default: least-busy]',
  },
  'price-prompt': {
    operational: true,
    type: 'number',
    group,
    describe: 'USD per 1M prompt tokens [default: built-in for OpenAI models; else none, and the cost is shown as unknown, never $0]',
  },
  'price-completion': {
    operational: true,
    type: 'number',
    group,
    describe: 'USD per 1M completion tokens [default: built-in for OpenAI models; else none, and the cost is shown as unknown, never $0]',
  },
  'llm-max-bytes': {
    operational: true,
    type: 'number',
    group,
    describe: "Largest model answer accepted (bytes); a larger one is that episode's model error [default: 16 MB]",
  },
} satisfies OptionTable;

type Kind = 'string' | 'urls' | 'int' | 'number';
const SPEC: Record<keyof LlmSettings, { kind: Kind; choices?: string[]; min?: number; max?: number }> = {
  model: { kind: 'string' },
  baseUrl: { kind: 'urls' },
  api: { kind: 'string', choices: ['completions', 'chat'] },
  llm: { kind: 'string' },
  llmContextSize: { kind: 'int', min: 1 },
  llmSeed: { kind: 'int', min: 0 },
  llmThreads: { kind: 'int', min: 1 },
  apiKeyEnv: { kind: 'string' },
  cache: { kind: 'string', choices: ['rw', 'off', 'replay'] },
  cachePath: { kind: 'string' },
  maxRetries: { kind: 'int', min: 0 },
  retryAfterCap: { kind: 'number', min: 0 },
  requestTimeout: { kind: 'number', min: 0.001 },
  maxInFlight: { kind: 'int', min: 1 },
  rpm: { kind: 'int', min: 1 },
  tpm: { kind: 'int', min: 1 },
  balance: { kind: 'string', choices: ['round-robin', 'least-busy'] },
  pricePrompt: { kind: 'number', min: 0 },
  priceCompletion: { kind: 'number', min: 0 },
  llmMaxBytes: { kind: 'int', min: 1024, max: 1024 * 1024 * 1024 },
};

export const LLM_SETTING_KEYS = Object.keys(SPEC) as Array<keyof LlmSettings>;

const CACHE_MODES: readonly CacheMode[] = ['rw', 'off', 'replay'];
const API_MODES: readonly ApiMode[] = ['completions', 'chat'];
const BALANCE_POLICIES: readonly BalancePolicy[] = ['round-robin', 'least-busy'];

/** A validated choice as its type (validateSettings checked it against the same list), or the default. */
function oneOf<T extends string>(choices: readonly T[], v: string | undefined, fallback: T): T {
  return choices.find((c) => c === v) ?? fallback;
}

const kebab = (k: string) => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** Checks types and ranges; `where(key)` names the flag or file field in the one-line error. */
function validateSettings(raw: object, where: (key: string) => string): LlmSettings {
  const fields = JsonFields.orEmpty(raw);
  const out: Record<string, unknown> = {};
  for (const key of LLM_SETTING_KEYS) {
    const v = fields.get(key);
    if (v === undefined || v === null) continue;
    const spec = SPEC[key];
    const name = where(key);
    if (spec.kind === 'urls') {
      const list = Array.isArray(v) ? v : [v];
      if (!list.every((x) => typeof x === 'string')) throw new UserError(`${name}: expected a URL or a list of URLs`);
      out[key] = list;
      continue;
    }
    if (spec.kind === 'string') {
      if (Array.isArray(v)) throw new UserError(`${name}: given more than once; expected one value`);
      if (typeof v !== 'string' || v.trim() === '') throw new UserError(`${name}: expected a non-empty string`);
      if (spec.choices && !spec.choices.includes(v))
        throw new UserError(`${name}: expected one of ${spec.choices.join(', ')} (got "${v}")`);
      out[key] = v;
      continue;
    }
    if (Array.isArray(v)) throw new UserError(`${name}: given more than once; expected one number`);
    const num = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
    if (typeof num !== 'number' || !Number.isFinite(num)) throw new UserError(`${name}: expected a number`);
    if (spec.kind === 'int' && !Number.isInteger(num)) throw new UserError(`${name}: expected a whole number (got ${num})`);
    if (spec.min !== undefined && num < spec.min) throw new UserError(`${name}: expected a number >= ${spec.min} (got ${num})`);
    if (spec.max !== undefined && num > spec.max) throw new UserError(`${name}: expected a number <= ${spec.max} (got ${num})`);
    out[key] = num;
  }
  return out;
}

/**
 * Reads the model settings of an experiment file (camelCase fields, same meaning as the flags). Other
 * fields are ignored; `apiKey` is refused so that keys never sit in files.
 */
export function llmSettingsFromExperiment(obj: Record<string, unknown>, file: string): LlmSettings {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw new UserError(`${file}: expected a JSON object`);
  if ('apiKey' in obj)
    throw new UserError(`${file}: apiKey: keys do not belong in files; put the key in an environment variable and name it with apiKeyEnv`);
  return validateSettings(obj, (k) => `${file}: ${k}`);
}

/** Experiment-file settings overridden by the flags given on the command line. */
export function mergeLlmSettings(fromFile: LlmSettings, fromFlags: LlmSettings | Record<string, unknown>): LlmSettings {
  const out: Record<string, unknown> = { ...fromFile };
  for (const k of LLM_SETTING_KEYS) {
    const v = JsonFields.orEmpty(fromFlags).get(k);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** An unparsable --base-url as it may be echoed: no userinfo (user:KEY@) or key parameter (?api-key=KEY), even without a scheme. */
function shownBadUrl(u: string): string {
  return redactBadUrl(u).slice(0, 80);
}

/**
 * Ports the Fetch standard forbids (https://fetch.spec.whatwg.org/#bad-port): Node's fetch (undici)
 * fails every request to them at once with "bad port", which looked like an outage and was retried.
 */
const FETCH_BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117,
  119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636,
  989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

function splitURLs(values: string[], name: string, apiKeyEnv: string): string[] {
  const urls = values
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  for (const u of urls) {
    let parsed: URL;
    try {
      parsed = new URL(u);
    } catch {
      throw new UserError(`${name}: "${shownBadUrl(u)}" is not a URL; expected e.g. http://127.0.0.1:8000/v1`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
      throw new UserError(`${name}: expected an http:// or https:// URL such as http://127.0.0.1:8000/v1`);
    // Node's fetch refuses URLs with credentials, and a key there would be written wherever the URL
    // is (README "Reliability"): the key belongs in the environment. The URL is not echoed (it holds the key).
    if (parsed.username || parsed.password) {
      throw new UserError(
        `${name}: the URL holds credentials (user:KEY@host), which are not accepted: put the key in the environment variable ${apiKeyEnv} (or name another with --api-key-env) and give the URL without it, e.g. ${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, '')}`,
      );
    }
    if (parsed.port !== '' && FETCH_BAD_PORTS.has(Number(parsed.port))) {
      throw new UserError(
        `${name} ${safeEndpointLabel(u)}: fetch never connects to port ${parsed.port} (a "bad port" of the Fetch standard): serve the model on another port`,
      );
    }
  }
  return [...new Set(urls.map((u) => u.replace(/\/+$/, '')))];
}

export function noModelMessage(prefix = 'no language model configured'): string {
  return (
    `${prefix}: use (1) --base-url http://host:port/v1 --model NAME for a vLLM, llama.cpp server or Ollama endpoint, ` +
    '(2) OPENAI_API_KEY=... with --model gpt-3.5-turbo-instruct for OpenAI, ' +
    'or (3) --llm llama:/path/to/model.gguf for an embedded GGUF model'
  );
}

function parseLlamaSpec(spec: string): string {
  const m = /^llama:(.+)$/.exec(spec);
  const file = m ? m[1] : spec.endsWith('.gguf') ? spec : undefined;
  if (!file) throw new UserError(`--llm: expected llama:/path/to/model.gguf (got "${spec}")`);
  return path.resolve(file);
}

/**
 * One ModelConfig from the settings (flags, or merged experiment + flags) and the environment.
 * Rule: --llm → embedded llama.cpp; else --base-url / OPENAI_BASE_URL → that server (model optional);
 * else a key in the environment plus --model → api.openai.com; else a ConfigError naming the three ways.
 */
export function resolveModelConfig(flags: LlmSettings | Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): ModelConfig {
  const s = validateSettings(flags, (k) => `--${kebab(k)}`);
  const cache = {
    mode: oneOf(CACHE_MODES, s.cache, 'rw'),
    path: path.resolve(s.cachePath ?? path.join(cacheDir(), 'completions.sqlite')),
  };
  // Checked now, before any run folder exists (a path under /proc would hang a recursive mkdir).
  if (cache.mode === 'rw') {
    if (s.cachePath !== undefined) checkOutputFile(cache.path, '--cache-path', { parentMayBeMissing: true });
    else checkWritableDir(path.dirname(cache.path), cacheDirName());
  }
  const keyEnvName =
    typeof s.apiKeyEnv === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(s.apiKeyEnv) && !s.apiKeyEnv.startsWith('sk-')
      ? s.apiKeyEnv
      : DEFAULT_API_KEY_ENV;
  const flagURLs = s.baseUrl ? splitURLs(Array.isArray(s.baseUrl) ? s.baseUrl : [s.baseUrl], '--base-url', keyEnvName) : [];

  if (s.llm) {
    if (flagURLs.length) throw new UserError('--llm and --base-url exclude each other: use one model backend');
    const modelPath = parseLlamaSpec(s.llm);
    if (cache.mode !== 'replay' && !fs.existsSync(modelPath)) throw new UserError(`--llm: model file not found: ${modelPath}`);
    return { kind: 'llama', modelPath, contextSize: s.llmContextSize, seed: s.llmSeed, threads: s.llmThreads, cache };
  }

  const apiKeyEnv = s.apiKeyEnv ?? DEFAULT_API_KEY_ENV;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(apiKeyEnv) || apiKeyEnv.startsWith('sk-')) {
    // Never echo the value: it may be a key pasted in by mistake.
    throw new UserError('--api-key-env: expected the NAME of an environment variable (e.g. OPENAI_API_KEY), not the key itself');
  }
  const keyValue = env[apiKeyEnv]?.trim() || undefined;
  let baseURLs = flagURLs.length
    ? flagURLs
    : env.OPENAI_BASE_URL?.trim()
      ? splitURLs([env.OPENAI_BASE_URL], 'OPENAI_BASE_URL', apiKeyEnv)
      : [];

  const replay = cache.mode === 'replay';
  if (!baseURLs.length) {
    // Replaying a recorded run needs only the model name (it is part of every cache key): no endpoint, no key.
    if (replay && s.model) {
      baseURLs = [OPENAI_BASE_URL];
    } else if (!keyValue) {
      throw new NoEndpointError(
        noModelMessage(
          s.model
            ? `--model ${s.model} needs an endpoint (no --base-url, OPENAI_BASE_URL or ${apiKeyEnv} is set)`
            : 'no language model configured',
        ),
      );
    } else if (!s.model) {
      throw new ConfigError(
        `${apiKeyEnv} is set but no model is named: add --model gpt-3.5-turbo-instruct (or another OpenAI completion model), or see --help for --base-url and --llm`,
      );
    } else {
      baseURLs = [OPENAI_BASE_URL];
    }
  }
  if (s.apiKeyEnv && !keyValue && !replay) throw new ConfigError(`--api-key-env ${apiKeyEnv}: that environment variable is not set`);
  const official = baseURLs.some(isOfficialOpenAI);
  if (official && !keyValue && !replay) throw new ConfigError(`api.openai.com needs an API key: set the environment variable ${apiKeyEnv}`);

  return {
    kind: 'openai',
    model: s.model,
    baseURLs,
    api: oneOf(API_MODES, s.api, 'completions'),
    apiKeyEnv,
    apiKey: keyValue ? new Secret(keyValue) : undefined,
    balance: oneOf(BALANCE_POLICIES, s.balance, 'least-busy'),
    requestTimeoutMs: Math.round((s.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT_S) * 1000),
    retry: {
      ...DEFAULT_RETRY,
      maxAttempts: (s.maxRetries ?? DEFAULT_RETRY.maxAttempts - 1) + 1,
      retryAfterCapMs: Math.round((s.retryAfterCap ?? DEFAULT_RETRY.retryAfterCapMs / 1000) * 1000),
    },
    maxInFlight: s.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT,
    rpm: s.rpm,
    tpm: s.tpm,
    prices: { promptPerM: s.pricePrompt, completionPerM: s.priceCompletion },
    ...(s.llmMaxBytes !== undefined ? { maxResponseBytes: s.llmMaxBytes } : {}),
    cache,
  };
}

/**
 * The model configuration resolved once, when the run's configuration is parsed. A failure is kept,
 * not thrown: a dry run still prices and sizes a known model without an endpoint, and a real run
 * reports the same one-line error when it creates the model (as before, after its plan is checked).
 */
export type ModelResolution = { ok: true; config: ModelConfig } | { ok: false; error: UserError };

export function tryResolveModelConfig(flags: LlmSettings | Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): ModelResolution {
  try {
    return { ok: true, config: resolveModelConfig(flags, env) };
  } catch (e) {
    if (e instanceof UserError) return { ok: false, error: e };
    throw e;
  }
}

/** The resolved configuration, or its error thrown. */
export function modelConfigOf(model: ModelResolution): ModelConfig {
  if (!model.ok) throw model.error;
  return model.config;
}

/** The configuration as it may be shown or written to a manifest: no key, endpoints without credentials. */
export function describeModelConfig(cfg: ModelConfig): Record<string, unknown> {
  if (cfg.kind === 'llama') {
    return {
      backend: 'llama.cpp (embedded)',
      modelFile: path.basename(cfg.modelPath),
      contextSize: cfg.contextSize ?? null,
      seed: cfg.seed ?? null,
      cache: { ...cfg.cache },
    };
  }
  return {
    backend: 'openai-compatible',
    model: cfg.model ?? null,
    api: cfg.api,
    endpoints: cfg.baseURLs.map(safeEndpointLabel),
    balance: cfg.balance,
    apiKeyEnv: cfg.apiKeyEnv,
    apiKeySet: !!cfg.apiKey,
    requestTimeoutMs: cfg.requestTimeoutMs,
    retry: { ...cfg.retry },
    limits: { maxInFlight: cfg.maxInFlight, rpm: cfg.rpm ?? null, tpm: cfg.tpm ?? null },
    prices: { ...cfg.prices },
    cache: { ...cfg.cache },
  };
}
