// What a method (standard, cot, cot-sc, act, react) needs and returns for one episode.
// Methods depend on interfaces only: a CompletionModel and an Env, never on backends.
import type { CompletionModel, TokenUsage } from '../llm/types.js';
import type { Env } from '../envs/types.js';
import type { Example, Task } from '../tasks/types.js';

export type MethodName = 'standard' | 'cot' | 'cot-sc' | 'act' | 'react';
/** Combinations computed from a ReAct run and a CoT-SC run of the same split (no model calls). */
export type CombinationName = 'react-cot-sc' | 'cot-sc-react';

/** One Thought/Action/Observation turn (thought absent for Act). */
export interface StepRecord {
  step: number;
  thought?: string;
  action: string;
  observation: string;
  /** True when the completion did not split into thought and action (the bad-call fallback ran). */
  badcall?: boolean;
  /** True when the model gave an empty action (the released code would crash; we step it as invalid). */
  emptyAction?: boolean;
}

export interface EpisodeOutcome {
  answer: string | null;
  em: number;
  f1: number;
  reward: number;
  /** The notebook's "traj": the full final prompt (ReAct/Act), or prompt + completion (Standard/CoT). */
  traj: string;
  steps: StepRecord[];
  n_calls: number;
  n_badcalls: number;
  usage: TokenUsage;
  costUsd: number;
  /** CoT-SC: every sample's parsed answer (null when it had none), in sample order. */
  samples?: (string | null)[];
  /** CoT-SC: every sample's raw completion text, in sample order. */
  completions?: string[];
  /** CoT-SC: the majority answer's vote count. */
  majorityVotes?: number;
  /** ReAct/Act: true when the episode ended by the forced finish[] after the step limit. */
  forcedFinish?: boolean;
}

export interface MethodContext {
  model: CompletionModel;
  task: Task;
  /** A fresh environment for this example (ReAct/Act only): the task wrapper over WikiEnv. */
  makeEnv?: (example: Example) => Env;
  signal?: AbortSignal;
}

export interface Method {
  name: MethodName;
  needsEnv: boolean;
  /** Secret-free, complete description of every option that shapes prompts and calls (for the manifest). */
  describe(): Record<string, unknown>;
  run(example: Example, ctx: MethodContext): Promise<EpisodeOutcome>;
}
