// The completion cache in a model's chain of layers: what the run's one CacheStore (./store.ts) is to each episode's model.
import type { ModelLayer } from '../layer.js';
import type { CacheStore } from './store.js';

/**
 * The cache as a layer (src/llm/layer.ts) over `store`: the layer of an episode's chain
 * (src/run/model-chain.ts), or of a library user's model (createCompletionModel). The description
 * names the cache; the identity is the backend's (the cache serves answers, it computes nothing).
 */
export function cacheLayer(store: CacheStore): ModelLayer {
  return (inner) => ({
    get model() {
      return inner.model;
    },
    cacheApi: store.api,
    get prices() {
      return inner.prices;
    },
    describe: () => ({ ...inner.describe(), cache: store.describe() }),
    identity: () => inner.identity?.() ?? inner.describe(),
    complete: (req, opts) => store.complete(inner, req, opts),
  });
}
