// The model chain of one episode attempt, built in one place. A call passes, in order:
//   recording (src/run/chain/recording.ts)  its line in recording.jsonl, answered, failed or refused
//   budget    (src/run/chain/budget.ts)     --max-cost admits it, or refuses it (a clean stop)
//   metering  (src/run/chain/metering.ts)   the episode's meter counts it (src/run/meter.ts)
//   the run's model: the completion cache (src/llm/cache.ts cacheLayer) over the backend
// Each is a ModelLayer (src/llm/layer.ts). The cache is the layer of the run's model rather than of an
// episode: one file and one lock per request key serve every episode of the process.
import { chain, type ModelLayer } from '../llm/layer.js';
import type { CompletionModel } from '../llm/types.js';
import type { BudgetStop, Budget, UsdPrices } from './budget.js';
import type { EpisodeMeter } from './meter.js';
import type { CallSink } from './run-recording.js';
import { budgetLayer } from './chain/budget.js';
import { meteringLayer } from './chain/metering.js';
import { recordingLayer } from './chain/recording.js';

export interface EpisodeChain {
  /** The run's model (the cache over the backend, or a test double). */
  model: CompletionModel;
  meter: EpisodeMeter;
  /** Where the attempt's calls are recorded (absent: not recorded). */
  recording?: CallSink;
  /** --max-cost: the invocation's budget and the model's prices; onStop runs when it refuses a call. */
  budget?: { budget: Budget; prices: UsdPrices | null; onStop: (stop: BudgetStop) => void };
}

/** The model a method gets for one attempt of an episode. */
export function episodeModel(c: EpisodeChain): CompletionModel {
  const layers: ModelLayer[] = [];
  if (c.recording) layers.push(recordingLayer(c.recording));
  if (c.budget) layers.push(budgetLayer(c.budget.budget, c.budget.prices, c.budget.onStop));
  layers.push(meteringLayer(c.meter));
  return chain(c.model, layers);
}
