// The completion cache's key: the sha256 of the canonical JSON of what determines the completion
// (model, prompt, stop, sampling parameters, api mode), never the endpoint or the API key. n is not in
// it: each of the n samples is its own row under the key (./stored.ts). Pure, but for the key a layer
// leaves for the cache store below it on the same call (sharedCacheKey).
import { createHash, type Hash } from 'node:crypto';
import { sha256 } from '../../util/hash.js';
import type { CompletionRequest } from '../types.js';

/** Bump when the meaning of a key changes (old entries then simply stop matching). */
const KEY_VERSION = 1;

/** The canonical request JSON: fixed field order, absent values as null, n excluded (samples are rows). */
export function canonicalRequest(model: string, api: string, req: CompletionRequest): string {
  return JSON.stringify({
    v: KEY_VERSION,
    model,
    api,
    prompt: req.prompt,
    stop: req.stop ?? [],
    maxTokens: req.maxTokens,
    temperature: req.temperature,
    topP: req.topP,
    seed: req.seed ?? null,
    frequencyPenalty: req.frequencyPenalty,
    presencePenalty: req.presencePenalty,
  });
}

export function cacheKey(model: string, api: string, req: CompletionRequest): string {
  return sha256(canonicalRequest(model, api, req));
}

/** The canonical JSON up to the prompt's opening quote: `{"v":1,"model":...,"api":...,"prompt":"`. */
function canonicalHead(model: string, api: string): string {
  return JSON.stringify({ v: KEY_VERSION, model, api }).slice(0, -1) + ',"prompt":"';
}

/** The canonical JSON after the prompt's closing quote: `,"stop":[...],...}` (the fields canonicalRequest writes after it). */
function canonicalTail(req: CompletionRequest): string {
  return (
    ',' +
    JSON.stringify({
      stop: req.stop ?? [],
      maxTokens: req.maxTokens,
      temperature: req.temperature,
      topP: req.topP,
      seed: req.seed ?? null,
      frequencyPenalty: req.frequencyPenalty,
      presencePenalty: req.presencePenalty,
    }).slice(1)
  );
}

/**
 * cacheKey for the calls of one conversation, hashed incrementally: a ReAct episode's prompt is the
 * one before it plus the model's step and the observation (docs/protocol.md §4 webthink), so the
 * sha256 state after the previous prompt's text is kept and only the new text is escaped and hashed.
 * The key is the same as cacheKey's, byte for byte: JSON escapes each character on its own, except a
 * surrogate pair, so a prompt ending in half of one is never kept as a prefix.
 */
export class ConversationKeyer {
  private last: { model: string; api: string; prompt: string; state: Hash } | undefined;

  key(model: string, api: string, req: CompletionRequest): string {
    const prompt = req.prompt;
    const last = this.last;
    let h: Hash;
    let rest: string;
    if (last !== undefined && last.model === model && last.api === api && prompt.startsWith(last.prompt)) {
      // the kept state itself (not a copy): it is replaced below, before anything can ask for it again
      h = last.state;
      rest = prompt.slice(last.prompt.length);
    } else {
      h = createHash('sha256').update(canonicalHead(model, api));
      rest = prompt;
    }
    const escaped = JSON.stringify(rest);
    h.update(escaped.slice(1, -1));
    const end = prompt.charCodeAt(prompt.length - 1);
    this.last = end >= 0xd800 && end <= 0xdbff ? undefined : { model, api, prompt, state: h.copy() };
    return h.update('"' + canonicalTail(req)).digest('hex');
  }
}

/** A request's key, computed once per call (see `sharedCacheKey`); its canonical JSON is made only if a cache stores it. */
interface KeyedRequest {
  model: string;
  api: string;
  key: string;
}

// The key of a call in flight, left by the layer that computed it (the recording) for the cache store
// below it on the same request object, so one call hashes its request once. The store takes it (reads
// and forgets it) and the recording forgets it when the call ends, so a request object the caller
// changes and sends again is hashed afresh.
const inFlightKeys = new WeakMap<CompletionRequest, KeyedRequest>();

/**
 * cacheKey(model, api, req), also left for the cache store that serves this same call (CacheStore
 * complete, ./store.ts): the recording layer and the cache share one hash per call, with or without a cache.
 * `keyer`: the conversation's incremental hasher (the same key, hashing only what is new).
 */
export function sharedCacheKey(model: string, api: string, req: CompletionRequest, keyer?: ConversationKeyer): string {
  const key = keyer ? keyer.key(model, api, req) : cacheKey(model, api, req);
  inFlightKeys.set(req, { model, api, key });
  return key;
}

/** Forgets the key `sharedCacheKey` left for `req` (the call is over; no cache may have taken it). */
export function forgetSharedCacheKey(req: CompletionRequest): void {
  inFlightKeys.delete(req);
}

/** The key of `req` and its canonical JSON (made on demand): the key a layer above left for this call, or computed here. */
export function takeKeyedRequest(model: string, api: string, req: CompletionRequest): { canonical: () => string; key: string } {
  const left = inFlightKeys.get(req);
  inFlightKeys.delete(req);
  const canonical = () => canonicalRequest(model, api, req);
  if (left && left.model === model && left.api === api) return { canonical, key: left.key };
  return { canonical, key: sha256(canonical()) };
}
