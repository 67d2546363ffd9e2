// The run's model as RunDeps.createModel opens it: the backend, the cache store every episode's chain
// puts over it (src/run/model-chain.ts), and the endpoints each session records.
import type { CompletionModel } from '../llm/types.js';
import type { EndpointTally } from '../llm/endpoints.js';
import { cacheLayer } from '../llm/cache/layer.js';
import type { CacheStore } from '../llm/cache/store.js';
import { UserError } from '../errors.js';

/** Callbacks the run passes to the model it creates. */
export interface ModelHooks {
  /** Before each backoff sleep of a model request (the progress line counts retries). */
  onRetry?: (info: { attempt: number; reason: string; delayMs: number; endpoint: string }) => void;
}

/**
 * The run's model: the backend, and the cache store every episode's chain puts over it
 * (src/run/model-chain.ts; absent: calls go to the backend as they are, e.g. a test double or a bundle).
 */
export interface RunModel {
  backend: CompletionModel;
  cache?: CacheStore;
  /** The endpoints (base URLs) the backend calls: each session records them (absent: it calls none, e.g. a bundle). */
  endpoints?: readonly string[];
  /** What each endpoint's attempts got so far (answered, failed by kind): the run's result carries them to the closing lines. */
  endpointTallies?: () => readonly EndpointTally[];
}

/**
 * What a library user's createModel returned, as a RunModel: a plain CompletionModel (the shape before
 * the cache became a layer of each episode's chain) is taken as the backend, uncached; anything else
 * that is not `{ backend }` is refused in one line.
 */
export function runModelOf(opened: unknown): RunModel {
  const isModel = (m: unknown): m is CompletionModel =>
    typeof m === 'object' && m !== null && typeof (m as { complete?: unknown }).complete === 'function';
  if (isModel(opened)) return { backend: opened };
  if (typeof opened === 'object' && opened !== null && isModel((opened as { backend?: unknown }).backend)) return opened as RunModel;
  throw new UserError('deps.createModel: expected { backend: CompletionModel, cache?: CacheStore } (docs/library.md)');
}

/** The run's view of its model (name, description, identity, cache api): the cache layer over the backend. */
export function runModelView(m: RunModel): CompletionModel {
  return m.cache ? cacheLayer(m.cache)(m.backend) : m.backend;
}
