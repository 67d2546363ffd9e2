// Dataset, split and scorer of a question-answering task (HotpotQA, FEVER): Inspect-style separation.
import type { Split } from '../types.js';

/** A registered Wikipedia-QA task's name (qa/task-specs.ts: hotpotqa, fever, or one registered later). */
export type TaskName = string;

export interface Example {
  /** Index into the full dataset file (hotpot_dev_v1_simplified.json / paper_dev.jsonl): question_idx. */
  index: number;
  /** HotpotQA question or FEVER claim. */
  question: string;
  /** HotpotQA answer or FEVER label (SUPPORTS / REFUTES / NOT ENOUGH INFO). */
  answer: string;
  /** Extra fields from the data file (HotpotQA type, FEVER id/verifiable). */
  meta?: Record<string, unknown>;
}

export interface Score {
  em: number;
  f1: number;
  /** What the wrapper's get_reward returns: int(EM) (docs/protocol.md §7). */
  reward: number;
}

export interface Task {
  name: TaskName;
  /** "Question" (HotpotQA) or "Claim" (FEVER): the reset observation is `${label}: ${question}`. */
  observationLabel: 'Question' | 'Claim';
  size: number;
  example(index: number): Example;
  splitNames(): string[];
  /** Throws UserError for an unknown split or a bad limit (limit must be a positive integer). */
  split(name: string, opts?: { limit?: number }): Split;
  score(prediction: string | null | undefined, gold: string): Score;
}

/** The methods that run episodes on HotpotQA/FEVER (§3-4). */
export type MethodName = 'standard' | 'cot' | 'cot-sc' | 'act' | 'react';
/** Combinations computed from a ReAct run and a CoT-SC run of the same split (§5; no model calls). */
export type CombinationName = 'react-cot-sc' | 'cot-sc-react';
