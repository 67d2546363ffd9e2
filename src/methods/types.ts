// What a method (standard, cot, cot-sc, act, react on any benchmark) needs and returns for one
// episode. Methods depend on interfaces only: a CompletionModel and an Env, never on backends.
import type { CompletionModel } from '../llm/types.js';
import type { Env } from '../envs/types.js';
import type { Item } from '../runlog/schema.js';
export type { EpisodeResult, StepRecord } from '../runlog/schema.js';
import type { EpisodeResult } from '../runlog/schema.js';

export interface MethodContext {
  model: CompletionModel;
  /** A fresh environment for this item (interactive methods only). */
  makeEnv?: (item: Item) => Env;
  signal?: AbortSignal;
  /**
   * What an interactive loop does when a turn's prompt outgrows the model's context window: 'fail'
   * (default: the episode ends there, a failure outcome) or 'truncate' (a recorded deviation: keep
   * the instruction, exemplars and opening, drop the oldest turns until it fits).
   */
  contextOverflow?: ContextOverflow;
}

export type ContextOverflow = 'fail' | 'truncate';

export interface Method {
  name: string;
  needsEnv: boolean;
  /** Secret-free, complete description of every option that shapes prompts and calls (for the manifest). */
  describe(): Record<string, unknown>;
  run(item: Item, ctx: MethodContext): Promise<EpisodeResult>;
}
