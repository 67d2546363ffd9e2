// Model limits as outcomes (README "Reliability"): which server answers mean "the prompt does not fit
// the model's context window", the context windows the servers report, and the signs of a server that
// cuts a long prompt without saying so. Pure functions; the error class carries what was recognised.
//
// The shapes, as the servers' own code writes them:
// - OpenAI: 400 {"error": {"message": "This model's maximum context length is 4097 tokens, however you
//   requested 4200 tokens (4100 in your prompt; 100 for the completion)...", "type":
//   "invalid_request_error", "code": null | "context_length_exceeded"}}; newer models: "Your input
//   exceeds the context window of this model..." with code "context_length_exceeded".
// - vLLM: 400 {"object": "error", "message": "This model's maximum context length is 2048 tokens.
//   However, you requested 2100 tokens (2000 in the messages, 100 in the completion)...", "type":
//   "BadRequestError", "code": 400} (newer: wrapped in "error", "...you requested 100 output tokens and
//   your prompt contains at least 2001 input tokens..."; the engine's own check: "The decoder prompt
//   (length 2100) is longer than the maximum model length of 2048").
// - llama.cpp server: 400 {"error": {"code": 400, "message": "request (4476 tokens) exceeds the
//   available context size (4096 tokens), try increasing it", "type": "exceed_context_size_error",
//   "n_prompt_tokens": 4476, "n_ctx": 4096}}.
// - Ollama (OpenAI-compatible endpoints, context shift off): 400 {"error": {"message": "the prompt is
//   longer than the context length currently available to the model; ...", "type":
//   "invalid_request_error"}}; embeddings: "the input length exceeds the context length".
// - TGI: 422 {"error": "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 2048.
//   Given: 2000 `inputs` tokens and 100 `max_new_tokens`", "error_type": "validation"} (or "`inputs`
//   must have less than 1024 tokens. Given: 2000").
// Any other 4xx (a bad parameter, "`temperature` must be strictly positive") is not a length error.
import { InfraError } from '../errors.js';
import { JsonFields } from '../util/json-fields.js';

/** 'other': another server's plain statement that the context length/window/size was exceeded. */
export type ServerFamily = 'openai' | 'vllm' | 'llama.cpp' | 'ollama' | 'tgi' | 'other';

/** A refusal recognised as "the prompt does not fit". */
export interface ContextLimit {
  /** Which server's wording it is (best guess from the shape). */
  family: ServerFamily;
  /** The model's context window in tokens, when the server says it. */
  window?: number;
  /** The prompt's size in tokens, when the server says it. */
  promptTokens?: number;
  /** The server's message (one line). */
  message: string;
}

/** The prompt does not fit the model's context window: this episode ends as a failure outcome, the run goes on. */
export class ContextLengthError extends InfraError {
  constructor(
    message: string,
    readonly limit?: ContextLimit,
  ) {
    super(message, 'llm');
  }
}

interface ErrorFields {
  message: string;
  type?: string;
  code?: string;
  nCtx?: number;
  nPrompt?: number;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);

const FAMILIES: readonly ServerFamily[] = ['openai', 'vllm', 'llama.cpp', 'ollama', 'tgi', 'other'];

/**
 * A ContextLimit read back from its JSON (a completion-cache entry, src/llm/cache/file.ts), its fields in
 * the order recognizeContextLimit writes them; undefined when `v` is not one.
 */
export function contextLimitFromJson(v: unknown): ContextLimit | undefined {
  const f = JsonFields.of(v);
  const family = FAMILIES.find((x) => x === f?.str('family'));
  const message = f?.str('message');
  if (!f || family === undefined || message === undefined) return undefined;
  const window = num(f.get('window'));
  const promptTokens = num(f.get('promptTokens'));
  return {
    family,
    ...(window !== undefined ? { window } : {}),
    ...(promptTokens !== undefined ? { promptTokens } : {}),
    message,
  };
}

/**
 * The message, type and code of an error body in any of the servers' shapes: {"error": {...}},
 * {"error": "text", "error_type"}, {"object": "error", "message"}, {"detail"}, or the `error` object
 * alone (what the openai client keeps of a body), or a plain string.
 */
export function errorFields(body: unknown): ErrorFields | null {
  if (typeof body === 'string') return { message: body };
  const b = JsonFields.of(body);
  if (!b) return null;
  if (b.obj('error')) return errorFields(b.get('error'));
  const detail = b.get('detail');
  const message = str(b.get('message')) ?? b.str('error') ?? (detail !== undefined ? JSON.stringify(detail) : undefined);
  if (message === undefined) return null;
  return {
    message,
    type: str(b.get('type')) ?? str(b.get('error_type')),
    code: b.str('code'),
    nCtx: num(b.get('n_ctx')),
    nPrompt: num(b.get('n_prompt_tokens')),
  };
}

const int = (s: string | undefined): number | undefined => (s === undefined ? undefined : Number(s));

/**
 * Whether an HTTP error answer says the prompt does not fit the model's context window, and what it
 * tells about the window. `body` is the parsed JSON body (or the `error` object, or the message).
 */
export function recognizeContextLimit(status: number, body: unknown): ContextLimit | null {
  // Length refusals are client errors: 400 (OpenAI, vLLM, llama.cpp, Ollama), 413, 422 (TGI).
  if (status !== 400 && status !== 413 && status !== 422) return null;
  const f = errorFields(body);
  if (!f) return null;
  const m = f.message.replace(/\s+/g, ' ').trim();
  let r: RegExpExecArray | null;
  if (f.type === 'exceed_context_size_error' || /exceeds? (the )?(available )?context size/i.test(m)) {
    return {
      family: 'llama.cpp',
      window: f.nCtx ?? int(/context size \((\d+) tokens\)/i.exec(m)?.[1]),
      promptTokens: f.nPrompt ?? int(/request \((\d+) tokens\)/i.exec(m)?.[1]),
      message: m,
    };
  }
  if ((r = /`inputs` tokens \+ `max_new_tokens` must be <= (\d+)\. Given: (\d+) `inputs` tokens/.exec(m))) {
    return { family: 'tgi', window: Number(r[1]), promptTokens: Number(r[2]), message: m };
  }
  if ((r = /`inputs` must have less than (\d+) tokens\. Given: (\d+)/.exec(m))) {
    return { family: 'tgi', window: Number(r[1]), promptTokens: Number(r[2]), message: m };
  }
  if (/prompt is longer than the context length|input length exceeds the context length/i.test(m)) {
    return { family: 'ollama', message: m };
  }
  if ((r = /longer than the maximum model length of (\d+)/i.exec(m))) {
    return { family: 'vllm', window: Number(r[1]), promptTokens: int(/prompt \(length (\d+)\)/i.exec(m)?.[1]), message: m };
  }
  if ((r = /maximum context length is (\d+)/i.exec(m))) {
    const prompt =
      /\((\d+) in (?:your prompt|the messages|the prompt)/i.exec(m)?.[1] ??
      /prompt contains (?:at least )?(\d+) input tokens/i.exec(m)?.[1] ??
      /request has (\d+) input tokens/i.exec(m)?.[1] ??
      /messages resulted in (\d+) tokens/i.exec(m)?.[1];
    // vLLM names its error type BadRequestError and counts "in the messages" / "input tokens".
    const vllm = f.type === 'BadRequestError' || /in the messages|input tokens|in the completion\)/i.test(m);
    return { family: vllm ? 'vllm' : 'openai', window: Number(r[1]), promptTokens: int(prompt), message: m };
  }
  if (f.code === 'context_length_exceeded' || /exceeds the context window/i.test(m)) {
    return { family: 'openai', message: m };
  }
  // Other OpenAI-compatible servers (LM Studio, proxies...): a plain statement that the prompt is
  // longer than the context, in either order ("exceeds the context length", "context window exceeded").
  if (
    /(exceed(s|ed)?|longer than|too long for|larger than)\b.{0,40}\bcontext (length|window|size)\b|\bcontext (length|window|size)\b.{0,20}\b(exceeded|too small)\b/i.test(
      m,
    )
  ) {
    return { family: 'other', message: m };
  }
  return null;
}

/**
 * Context windows of OpenAI models with a published size (tokens), for the dry run when the server
 * does not report one. Longest prefix wins.
 */
export const KNOWN_WINDOWS: Record<string, number> = {
  'gpt-3.5-turbo-instruct': 4096,
  'gpt-3.5-turbo': 16385,
  'davinci-002': 16384,
  'babbage-002': 16384,
  'text-davinci-002': 4097,
  'text-davinci-003': 4097,
  'code-davinci-002': 8001,
  'gpt-4-turbo': 128000,
  'gpt-4o': 128000,
  'gpt-4.1': 1047576,
  'gpt-4-32k': 32768,
  'gpt-4': 8192,
};

export function knownWindow(model: string): number | undefined {
  let best: string | undefined;
  for (const k of Object.keys(KNOWN_WINDOWS)) if ((model === k || model.startsWith(`${k}-`)) && (!best || k.length > best.length)) best = k;
  return best ? KNOWN_WINDOWS[best] : undefined;
}

/** The window a server reports: vLLM's GET /v1/models (data[].max_model_len for the model). */
export function windowFromModels(body: unknown, model: string): number | undefined {
  const data = JsonFields.of(body)?.arr('data');
  if (!data) return undefined;
  const entry = data.find((d) => JsonFields.of(d)?.get('id') === model) ?? (data.length === 1 ? data[0] : undefined);
  const n = num(JsonFields.of(entry)?.get('max_model_len'));
  return n && n > 0 ? n : undefined;
}

/** llama.cpp server's GET /props: default_generation_settings.n_ctx (the context of one slot). */
export function windowFromProps(body: unknown): number | undefined {
  const n = num(JsonFields.of(body)?.obj('default_generation_settings')?.get('n_ctx'));
  return n && n > 0 ? n : undefined;
}

/** One answered call as the silent-truncation check sees it. */
export interface PromptObservation {
  /** Characters of the prompt sent. */
  chars: number;
  /** Prompt tokens the server reported. */
  promptTokens: number;
}

/** A prompt this long (characters) is expected to count at least chars / MAX_CHARS_PER_TOKEN tokens. */
export const MAX_CHARS_PER_TOKEN = 8;
/** Growth (characters) between two prompts of an episode that must show in the reported tokens. */
export const MIN_GROWTH_CHARS = 200;

/**
 * Calls (indices) whose reported prompt tokens show the server cut the prompt without refusing it
 * (Ollama keeps the end of a prompt longer than num_ctx): the prompt grew by at least MIN_GROWTH_CHARS
 * since an earlier call of the episode while its token count did not grow, or the count falls far
 * short of the prompt's size (fewer than one token per MAX_CHARS_PER_TOKEN characters of a prompt of
 * 1,000 characters or more). Calls without a usable count (0, cached without usage) are skipped.
 */
export function silentTruncations(calls: readonly PromptObservation[]): number[] {
  const out: number[] = [];
  let best: PromptObservation | undefined; // the longest prompt seen so far with a count
  calls.forEach((c, i) => {
    if (!(c.promptTokens > 0)) return;
    const short = c.chars >= 1000 && c.promptTokens * MAX_CHARS_PER_TOKEN < c.chars;
    const stalled = best !== undefined && c.chars - best.chars >= MIN_GROWTH_CHARS && c.promptTokens <= best.promptTokens;
    if (short || stalled) out.push(i);
    if (!best || c.chars > best.chars) best = c;
  });
  return out;
}

/** The outcome an episode's record carries when its prompt outgrew the context window. */
export const CONTEXT_EXCEEDED = 'context_exceeded';

/**
 * The outcome fields of an episode's record or extras when it ended at the context window, else none:
 * what a combination's episode carries over from the base episode whose answer it took (its answer is
 * that limit's outcome, so it is counted under the combination too).
 */
export function contextExceededOf(extra: Record<string, unknown>): Record<string, unknown> {
  if (extra.outcome !== CONTEXT_EXCEEDED) return {};
  const { outcome, outcome_step, outcome_detail } = extra;
  return { outcome, outcome_step: outcome_step ?? null, ...(outcome_detail !== undefined ? { outcome_detail } : {}) };
}

/**
 * The record fields of an episode that ended because its prompt did not fit: the outcome, the turn
 * (1-based; null for a method with a single call), and what the server said.
 */
export function contextExceededFields(e: ContextLengthError, step: number | null): Record<string, unknown> {
  const l = e.limit;
  return {
    outcome: CONTEXT_EXCEEDED,
    outcome_step: step,
    outcome_detail: {
      ...(l?.family ? { server: l.family } : {}),
      ...(l?.window !== undefined ? { window: l.window } : {}),
      ...(l?.promptTokens !== undefined ? { prompt_tokens: l.promptTokens } : {}),
      message: l?.message ?? e.message,
    },
  };
}
