// The dry run's context-window check (README "Reliability"): the window as the server states it
// (vLLM's GET /v1/models max_model_len, llama.cpp server's GET /props default_generation_settings.n_ctx),
// else the published size of a known OpenAI model, else the embedded model's --llm-context-size; then
// how many of the run's first prompts (plus the completion they ask for) already do not fit. No model
// is called: the two GETs read the server's description only, with a short timeout.
import { JsonFields } from '../util/json-fields.js';
import { thousands as num } from '../util/numbers.js';
import { NoEndpointError } from '../llm/config.js';
import { errorMessage } from '../errors.js';
import { endpointUrl, isOfficialOpenAI } from '../llm/endpoints.js';
import { knownWindow, windowFromModels, windowFromProps } from '../llm/context-limit.js';
import type { RunConfig } from './config.js';

export interface ContextWindowInfo {
  tokens: number;
  /** Where the size comes from ("GET /v1/models max_model_len", "published size of gpt-4"...). */
  source: string;
}

export interface WindowCheck {
  window: ContextWindowInfo | null;
  /** Why the window is unknown (when it is). */
  unknown?: string;
  /** First calls checked, and those whose prompt + max_tokens exceed the window. */
  checked: number;
  over: number;
  /** The largest first call (prompt + max_tokens, estimated tokens). */
  largest: number;
}

const TIMEOUT_MS = 3000;

async function getJson(url: string, fetchImpl: typeof fetch, key?: string): Promise<unknown> {
  try {
    // The key goes only where the run would send it (its own --base-url servers).
    const headers: Record<string, string> = { accept: 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) };
    const res = await fetchImpl(url, { signal: AbortSignal.timeout(TIMEOUT_MS), headers });
    if (!res.ok) return undefined;
    return await res.json();
  } catch {
    return undefined;
  }
}

/** The model's context window from what the settings name, or why it is unknown. */
export async function readContextWindow(run: RunConfig, fetchImpl: typeof fetch = fetch): Promise<ContextWindowInfo | { unknown: string }> {
  if (!run.model.ok) {
    const e = run.model.error;
    if (!(e instanceof NoEndpointError)) return { unknown: errorMessage(e) };
    // No endpoint configured (a dry run needs no key): a known OpenAI model still has its published size.
    const named = JsonFields.orEmpty(run.settings).str('model') ?? '';
    const published = knownWindow(named);
    if (published) return { tokens: published, source: `published size of ${named}` };
    return { unknown: 'no model endpoint is configured (see run --help: --base-url, OPENAI_API_KEY or --llm)' };
  }
  const cfg = run.model.config;
  if (cfg.kind === 'llama') {
    return cfg.contextSize
      ? { tokens: cfg.contextSize, source: '--llm-context-size' }
      : { unknown: 'the embedded model states its window when loaded' };
  }
  const model = cfg.model ?? '';
  const key = cfg.apiKey?.reveal();
  for (const base of cfg.baseURLs) {
    const url = new URL(base);
    // OpenAI's own list names no window: its published sizes are the table's.
    if (isOfficialOpenAI(base)) continue;
    const fromModels = windowFromModels(await getJson(endpointUrl(base, '/models').href, fetchImpl, key), model);
    if (fromModels) return { tokens: fromModels, source: `${url.host} GET /v1/models max_model_len` };
    // llama.cpp server's /props sits beside /v1, not under it
    url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
    const fromProps = windowFromProps(await getJson(endpointUrl(url.href, '/props').href, fetchImpl, key));
    if (fromProps) return { tokens: fromProps, source: `${url.host} GET /props default_generation_settings.n_ctx` };
  }
  const known = knownWindow(model);
  if (known) return { tokens: known, source: `published size of ${model}` };
  return {
    unknown: `the server does not state it (no max_model_len in /v1/models, no /props) and ${model || 'the model'} is not a known OpenAI model`,
  };
}

/** Pure: how many first calls (estimated prompt tokens + max_tokens each) exceed the window. */
export function checkFirstCalls(
  calls: readonly { promptTokens: number; maxTokens: number }[],
  window: ContextWindowInfo | { unknown: string },
): WindowCheck {
  const sizes = calls.map((c) => c.promptTokens + c.maxTokens);
  const largest = sizes.length ? Math.max(...sizes) : 0;
  if ('unknown' in window) return { window: null, unknown: window.unknown, checked: calls.length, over: 0, largest };
  return { window, checked: calls.length, over: sizes.filter((s) => s > window.tokens).length, largest };
}

/** The dry run's line about the window. */
export function windowLines(c: WindowCheck | null | undefined): string[] {
  if (!c || c.checked === 0) return [];
  if (!c.window)
    return [`  context window: unknown (${c.unknown}); first prompts reach about ${num(c.largest)} tokens with their completion`];
  const w = `${num(c.window.tokens)} tokens (${c.window.source})`;
  if (c.over === 0)
    return [
      `  context window: ${w}; every first prompt fits (the largest about ${num(c.largest)} tokens with its completion; later turns grow)`,
    ];
  return [
    `  context window: ${w}; ${num(c.over)} of ${num(c.checked)} first prompts already do not fit (about ${num(c.largest)} tokens at most with the completion): ` +
      'those episodes will end at once as context_exceeded (scored 0)',
  ];
}
