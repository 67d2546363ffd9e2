// An OpenAI-compatible HTTP server for tests (node:http, 127.0.0.1, port 0).
//
// It speaks the wire protocol of POST /v1/completions, POST /v1/chat/completions and GET /v1/models the
// way OpenAI (and vLLM) do, and honours each request exactly: for every one of the n choices the
// `respond` script produces a text, which the server cuts at the earliest stop sequence (stop excluded,
// finish_reason "stop") or after max_tokens tokens (finish_reason "length"), counting tokens with a
// simple deterministic tokenizer (`countTokens`) that it also uses for `usage`.
//
// A context window on demand (`contextWindow`): a prompt that does not fit is refused the way the named
// server family refuses it (status, body and message as their code writes them: OpenAI, vLLM, llama.cpp
// server, Ollama, TGI), or, for 'ollama-truncate', silently cut to its last tokens the way Ollama does
// with context shift on (usage then reports the cut prompt). GET /v1/models then carries max_model_len
// (as vLLM does; not for llama.cpp or Ollama), and for llama.cpp GET /props
// default_generation_settings.n_ctx.
//
// Faults on demand, per request (`fault` hook) or as a FIFO queue (`enqueueFaults`): HTTP errors with
// Retry-After, slow responses, requests held unanswered, connections dropped before or in the middle of
// the response, and a malformed JSON body. Every request (method, path, headers, parsed body) is recorded for assertions.
//
// Example (an end-to-end test scripting a ReAct trajectory by what the prompt ends with):
//   const srv = await startOpenAIServer({
//     respond: (req) => req.prompt.endsWith('Thought 1:') ? ' I need to search X.\nAction 1: Search[X]\nObservation 1: ...' : ' ...',
//   });
//   ... run with --base-url srv.baseURL --model test-model ...
//   expect(srv.requests.length).toBe(2);
//   await srv.close();
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The parsed JSON body of a completion request, as the client sent it (chat requests get `prompt` too). */
export interface ServerCompletionRequest {
  /** 'completions' for /v1/completions, 'chat' for /v1/chat/completions. */
  endpoint: 'completions' | 'chat';
  model: string;
  /** The prompt; for chat, the content of the last user message (what `--api chat` sends). */
  prompt: string;
  /** Chat requests only: the messages as sent. */
  messages?: Array<{ role: string; content: string }>;
  /** Normalised to an array (the client may send a string, an array or nothing). */
  stop: string[];
  n: number;
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  seed?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  /** The whole body as received. */
  body: Record<string, unknown>;
}

/** What `respond` may return: a text, or a text with an explicit finish reason (no stop/length cutting). */
export type RespondResult = string | { text: string; finishReason?: string };

export type RespondFn = (req: ServerCompletionRequest, sampleIndex: number) => RespondResult | Promise<RespondResult>;

export type Fault =
  /** Answer with this HTTP status and OpenAI's error body; optional Retry-After / retry-after-ms headers. */
  | {
      kind: 'status';
      status: number;
      retryAfter?: string;
      retryAfterMs?: number;
      message?: string;
      /** Send this JSON body instead of OpenAI's error shape (to imitate vLLM, Ollama...). */ body?: unknown;
    }
  /** Wait this long before answering normally (use with a client timeout to provoke a timeout). */
  | { kind: 'delay'; ms: number }
  /** Never answer: the request stays in flight until the client gives up or the server closes (a run held mid-call). */
  | { kind: 'hold' }
  /** Destroy the socket: before any byte of the response, or after the headers and part of the body. */
  | { kind: 'drop'; when?: 'before-headers' | 'mid-body' }
  /** Answer 200 with Content-Type application/json and a body that is not JSON. */
  | { kind: 'malformed' };

export interface RecordedRequest {
  method: string;
  path: string;
  /** The query as received ("?a=1", or "" without one). */
  search: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body (undefined for GET or an unparsable body). */
  body: any;
  /** The fault applied to this request, if any. */
  fault?: Fault;
  /** Which server answered (its port), handy with several servers. */
  port: number;
}

export interface OpenAIServerOptions {
  /** Produces the text of choice `sampleIndex`. Default: echoes nothing (""). */
  respond?: RespondFn;
  /** When set, requests must carry `Authorization: Bearer <apiKey>` (401 otherwise). */
  apiKey?: string;
  /** When set, GET /v1/models lists them and any other model gets a 404. Default: any model is served. */
  models?: string[];
  /** Delay every response by this many ms (a slow but healthy server). */
  latencyMs?: number;
  /** Per-request fault hook, consulted after the queue is empty. */
  fault?: (req: RecordedRequest) => Fault | undefined;
  /** Whether to include `usage` in responses (default true; some servers omit it). */
  usage?: boolean;
  /** Refuse (or, 'ollama-truncate', silently cut) prompts that do not fit this many tokens. */
  contextWindow?: { tokens: number; family: ContextFamily };
}

export type ContextFamily = 'openai' | 'vllm' | 'llama.cpp' | 'ollama' | 'tgi' | 'ollama-truncate';

/**
 * The refusal of a prompt of `prompt` tokens asking for `maxTokens` more, by a server whose window is
 * `window` tokens, or null when it fits (or the family cuts instead of refusing). Each family's own
 * check: prompt + max_tokens > window (OpenAI, vLLM, TGI), prompt >= n_ctx (llama.cpp), prompt >
 * num_ctx - 1 (Ollama).
 */
export function contextRefusal(
  family: ContextFamily,
  window: number,
  prompt: number,
  maxTokens: number,
): { status: number; body: unknown } | null {
  const total = prompt + maxTokens;
  switch (family) {
    case 'openai':
      if (total <= window) return null;
      return {
        status: 400,
        body: openAIError(
          `This model's maximum context length is ${window} tokens, however you requested ${total} tokens (${prompt} in your prompt; ${maxTokens} for the completion). Please reduce your prompt; or completion length.`,
          'invalid_request_error',
          null,
          null,
        ),
      };
    case 'vllm':
      if (total <= window) return null;
      return {
        status: 400,
        body: {
          object: 'error',
          message: `This model's maximum context length is ${window} tokens. However, you requested ${total} tokens (${prompt} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`,
          type: 'BadRequestError',
          param: null,
          code: 400,
        },
      };
    case 'llama.cpp':
      if (prompt < window) return null;
      return {
        status: 400,
        body: {
          error: {
            code: 400,
            message: `request (${prompt} tokens) exceeds the available context size (${window} tokens), try increasing it`,
            type: 'exceed_context_size_error',
            n_prompt_tokens: prompt,
            n_ctx: window,
          },
        },
      };
    case 'ollama':
      if (prompt <= window - 1) return null;
      return {
        status: 400,
        body: openAIError(
          'the prompt is longer than the context length currently available to the model; shorten the prompt, adjust the context length in settings, or use a model with a longer context length',
          'invalid_request_error',
          null,
          null,
        ),
      };
    case 'tgi':
      if (total <= window) return null;
      return {
        status: 422,
        body: {
          error: `Input validation error: \`inputs\` tokens + \`max_new_tokens\` must be <= ${window}. Given: ${prompt} \`inputs\` tokens and ${maxTokens} \`max_new_tokens\``,
          error_type: 'validation',
        },
      };
    case 'ollama-truncate':
      return null;
  }
}

/** Ollama with context shift: a prompt longer than num_ctx - 1 keeps its first `keep` tokens and its end. */
export function ollamaTruncate(prompt: string, window: number, keep = 4): string {
  const toks = tokenize(prompt);
  const limit = window - 1;
  if (toks.length <= limit) return prompt;
  return [...toks.slice(0, keep), ...toks.slice(toks.length - (limit - keep))].join('');
}

export interface OpenAIServer {
  /** http://127.0.0.1:PORT/v1 */
  readonly baseURL: string;
  readonly port: number;
  /** Every request received, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Completion requests only (both endpoints), in arrival order. */
  completionRequests(): RecordedRequest[];
  /** Faults applied to the next requests, one per request, in order. */
  enqueueFaults(...faults: Fault[]): void;
  /** Requests being handled right now, and the most at once since start (or the last reset). */
  readonly inFlight: number;
  readonly maxInFlight: number;
  /**
   * The usage of every completion the server answered (a 200 written to an open connection), as a
   * provider bills it: what a run's spend must equal. Not cleared by reset().
   */
  readonly billed: { requests: number; prompt_tokens: number; completion_tokens: number };
  /** Forget recorded requests and the in-flight high-water mark. */
  reset(): void;
  close(): Promise<void>;
}

/** The test tokenizer: a token is a run of non-space characters with the whitespace before it, or trailing whitespace. */
export function tokenize(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}

export function countTokens(text: string): number {
  return tokenize(text).length;
}

/** Applies stop sequences and max_tokens the way a completion server does (see the file header). */
export function applyLimits(text: string, stop: string[], maxTokens: number | undefined): { text: string; finishReason: string } {
  // A natural end and a stop sequence both report "stop"; only the token limit reports "length".
  let cut = text;
  let earliest = -1;
  for (const s of stop) {
    if (!s) continue;
    const at = text.indexOf(s);
    if (at >= 0 && (earliest < 0 || at < earliest)) earliest = at;
  }
  if (earliest >= 0) cut = text.slice(0, earliest);
  const toks = tokenize(cut);
  if (maxTokens !== undefined && toks.length > maxTokens) {
    return { text: toks.slice(0, maxTokens).join(''), finishReason: 'length' };
  }
  return { text: cut, finishReason: 'stop' };
}

function openAIError(message: string, type: string, param: string | null, code: string | null) {
  return { error: { message, type, param, code } };
}

const STATUS_ERRORS: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: 'Bad request.' },
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided.' },
  403: { type: 'invalid_request_error', code: null, message: 'You are not allowed to sample from this model.' },
  404: { type: 'invalid_request_error', code: 'model_not_found', message: 'The model does not exist.' },
  429: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests. Please try again shortly.' },
  500: { type: 'server_error', code: null, message: 'The server had an error while processing your request. Sorry about that!' },
  502: { type: 'server_error', code: null, message: 'Bad gateway.' },
  503: { type: 'server_error', code: null, message: 'The engine is currently overloaded, please try again later.' },
};

function maskKey(key: string): string {
  // OpenAI's own 401 message shows a masked key; we imitate it so tests prove the client never echoes it.
  return key.length > 8 ? `${key.slice(0, 3)}*****${key.slice(-4)}` : '*****';
}

export async function startOpenAIServer(opts: OpenAIServerOptions = {}): Promise<OpenAIServer> {
  const respond: RespondFn = opts.respond ?? (() => '');
  const requests: RecordedRequest[] = [];
  const queue: Fault[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const billed = { requests: 0, prompt_tokens: 0, completion_tokens: 0 };
  let port = 0;
  const sockets = new Set<import('node:net').Socket>();

  const sendJSON = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const data = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data).toString(), ...headers });
    res.end(data);
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    let body: any;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
    }
    const rec: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, search: url.search, headers: req.headers, body, port };
    requests.push(rec);
    const fault = queue.length ? queue.shift() : opts.fault?.(rec);
    if (fault) rec.fault = fault;

    if (opts.latencyMs) await sleep(opts.latencyMs);
    if (fault?.kind === 'delay') await sleep(fault.ms);
    if (fault?.kind === 'hold') return; // close() destroys its socket
    if (res.destroyed || req.socket.destroyed) return;

    if (fault?.kind === 'drop') {
      if (fault.when === 'mid-body') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '4096' });
        res.write('{"id":"cmpl-partial","object":"text_completion","choices":[{"te');
        // Let the partial body leave before the reset, so the client sees a truncated response.
        setTimeout(() => req.socket.destroy(), 5);
      } else {
        req.socket.destroy();
      }
      return;
    }
    if (fault?.kind === 'malformed') {
      const data = '{"id":"cmpl-bad","object":"text_completion","choices":[{"text": "oops"';
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data).toString() });
      res.end(data);
      return;
    }
    if (fault?.kind === 'status') {
      const info = STATUS_ERRORS[fault.status] ?? { type: 'server_error', code: null, message: `Error ${fault.status}.` };
      const headers: Record<string, string> = {};
      if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
      if (fault.retryAfterMs !== undefined) headers['retry-after-ms'] = String(fault.retryAfterMs);
      sendJSON(res, fault.status, fault.body ?? openAIError(fault.message ?? info.message, info.type, null, info.code), headers);
      return;
    }

    if (opts.apiKey !== undefined) {
      const auth = req.headers.authorization ?? '';
      const given = auth.startsWith('Bearer ') ? auth.slice(7) : '';
      if (given !== opts.apiKey) {
        const msg = given
          ? `Incorrect API key provided: ${maskKey(given)}. You can find your API key at https://platform.openai.com/account/api-keys.`
          : "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).";
        sendJSON(res, 401, openAIError(msg, 'invalid_request_error', null, given ? 'invalid_api_key' : null));
        return;
      }
    }

    if (req.method === 'GET' && url.pathname === '/v1/models') {
      const ids = opts.models ?? ['test-model'];
      // vLLM lists max_model_len; llama.cpp and Ollama do not (llama.cpp tells it at /props).
      const cw = opts.contextWindow;
      const window =
        cw && !['llama.cpp', 'ollama', 'ollama-truncate'].includes(cw.family) ? { root: 'test', max_model_len: cw.tokens } : {};
      sendJSON(res, 200, {
        object: 'list',
        data: ids.map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'test', ...window })),
      });
      return;
    }
    if (req.method === 'GET' && url.pathname === '/props' && opts.contextWindow?.family === 'llama.cpp') {
      // llama.cpp server: the context of one slot under default_generation_settings.
      sendJSON(res, 200, {
        default_generation_settings: { n_ctx: opts.contextWindow.tokens, params: { n_predict: -1 } },
        total_slots: 1,
        model_path: 'test.gguf',
      });
      return;
    }
    const endpoint = url.pathname === '/v1/completions' ? 'completions' : url.pathname === '/v1/chat/completions' ? 'chat' : undefined;
    if (req.method !== 'POST' || !endpoint) {
      sendJSON(res, 404, openAIError(`Invalid URL (${req.method} ${url.pathname})`, 'invalid_request_error', null, null));
      return;
    }
    if (!body || typeof body !== 'object') {
      sendJSON(res, 400, openAIError('We could not parse the JSON body of your request.', 'invalid_request_error', null, null));
      return;
    }
    if (typeof body.model !== 'string' || !body.model) {
      sendJSON(res, 400, openAIError('you must provide a model parameter', 'invalid_request_error', null, null));
      return;
    }
    if (opts.models && !opts.models.includes(body.model)) {
      sendJSON(
        res,
        404,
        openAIError(
          `The model \`${body.model}\` does not exist or you do not have access to it.`,
          'invalid_request_error',
          'model',
          'model_not_found',
        ),
      );
      return;
    }
    let prompt: string;
    let messages: Array<{ role: string; content: string }> | undefined;
    if (endpoint === 'completions') {
      if (typeof body.prompt !== 'string') {
        sendJSON(
          res,
          400,
          openAIError("'prompt' must be a string (this test server does not take lists)", 'invalid_request_error', 'prompt', null),
        );
        return;
      }
      prompt = body.prompt;
    } else {
      if (!Array.isArray(body.messages) || body.messages.length === 0) {
        sendJSON(res, 400, openAIError("'messages' must be a non-empty array", 'invalid_request_error', 'messages', null));
        return;
      }
      messages = body.messages;
      const users = body.messages.filter((m: any) => m?.role === 'user');
      prompt = String(users.at(-1)?.content ?? '');
    }
    const stop: string[] = body.stop == null ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop;
    if (!Array.isArray(stop) || stop.some((s) => typeof s !== 'string')) {
      sendJSON(res, 400, openAIError("'stop' must be a string or an array of strings", 'invalid_request_error', 'stop', null));
      return;
    }
    if (stop.length > 4) {
      sendJSON(res, 400, openAIError(`[${JSON.stringify(stop)}] is too long - 'stop'`, 'invalid_request_error', 'stop', null));
      return;
    }
    const n = body.n ?? 1;
    if (!Number.isInteger(n) || n < 1 || n > 128) {
      sendJSON(res, 400, openAIError(`${n} is not valid for 'n': it must be an integer from 1 to 128`, 'invalid_request_error', 'n', null));
      return;
    }
    const maxTokens: number | undefined = body.max_tokens ?? (endpoint === 'completions' ? 16 : undefined);
    if (opts.contextWindow) {
      const { tokens: window, family } = opts.contextWindow;
      const refusal = contextRefusal(family, window, countTokens(prompt), maxTokens ?? 0);
      if (refusal) {
        sendJSON(res, refusal.status, refusal.body);
        return;
      }
      if (family === 'ollama-truncate') prompt = ollamaTruncate(prompt, window);
    }
    const parsed: ServerCompletionRequest = {
      endpoint,
      model: body.model,
      prompt,
      messages,
      stop,
      n,
      max_tokens: maxTokens,
      temperature: body.temperature,
      top_p: body.top_p,
      seed: body.seed,
      frequency_penalty: body.frequency_penalty,
      presence_penalty: body.presence_penalty,
      body,
    };
    const choices: Array<{ text: string; finishReason: string }> = [];
    for (let i = 0; i < n; i++) {
      const r = await respond(parsed, i);
      choices.push(typeof r === 'string' ? applyLimits(r, stop, maxTokens) : { text: r.text, finishReason: r.finishReason ?? 'stop' });
    }
    if (res.destroyed || req.socket.destroyed) return;
    const promptTokens = endpoint === 'chat' ? countTokens(messages!.map((m) => m.content).join('\n')) : countTokens(prompt);
    const completionTokens = choices.reduce((s, c) => s + countTokens(c.text), 0);
    const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
    const created = Math.floor(Date.now() / 1000);
    const id = `cmpl-${requests.length}`;
    billed.requests++;
    billed.prompt_tokens += promptTokens;
    billed.completion_tokens += completionTokens;
    const out =
      endpoint === 'completions'
        ? {
            id,
            object: 'text_completion',
            created,
            model: body.model,
            choices: choices.map((c, index) => ({ text: c.text, index, logprobs: null, finish_reason: c.finishReason })),
            ...(opts.usage === false ? {} : { usage }),
          }
        : {
            id: `chat${id}`,
            object: 'chat.completion',
            created,
            model: body.model,
            choices: choices.map((c, index) => ({
              index,
              message: { role: 'assistant', content: c.text },
              logprobs: null,
              finish_reason: c.finishReason,
            })),
            ...(opts.usage === false ? {} : { usage }),
          };
    sendJSON(res, 200, out);
  };

  const server = http.createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let done = false;
    const finish = () => {
      if (!done) {
        done = true;
        inFlight--;
      }
    };
    res.on('close', finish);
    handle(req, res).catch((e) => {
      if (!res.headersSent)
        sendJSON(res, 500, openAIError(`test server script failed: ${(e as Error).message}`, 'server_error', null, null));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    completionRequests: () => requests.filter((r) => r.path === '/v1/completions' || r.path === '/v1/chat/completions'),
    enqueueFaults: (...faults: Fault[]) => void queue.push(...faults),
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    billed,
    reset() {
      requests.length = 0;
      maxInFlight = inFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
