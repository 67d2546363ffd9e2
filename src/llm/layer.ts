// The one small interface of every wrapper around a CompletionModel: a layer takes the model below and
// returns a model that answers the same requests (recording, budget, metering and the cache, src/llm/cache/layer.ts,
// in the runner's per-episode chain, src/run/model-chain.ts). Options (the abort signal, and whatever a
// caller tags a call with) pass through every layer unchanged.
import type { CompleteOptions, CompletionModel, CompletionRequest, CompletionResult } from './types.js';

export type ModelLayer = (inner: CompletionModel) => CompletionModel;

export type { CompleteOptions };

/** `inner` with its own complete(): the name, description, cache api and prices are the inner model's. */
export function around(
  inner: CompletionModel,
  complete: (req: CompletionRequest, opts?: CompleteOptions) => Promise<CompletionResult>,
): CompletionModel {
  return {
    get model() {
      return inner.model;
    },
    get cacheApi() {
      return inner.cacheApi;
    },
    get prices() {
      return inner.prices;
    },
    describe: () => inner.describe(),
    complete,
  };
}

/** `base` under `layers`, the first one outermost (the order a call passes them). */
export function chain(base: CompletionModel, layers: readonly ModelLayer[]): CompletionModel {
  return layers.reduceRight((inner, layer) => layer(inner), base);
}
