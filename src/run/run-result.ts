// What a run returns to its caller (the CLI prints it: the result line, the error causes and the
// command that retries them, the stop and the spend).
import type { FatalRunError } from '../errors.js';
import type { BudgetStop } from './budget.js';
import type { Spend } from './meter.js';
import type { RunSummary, EpisodeRecord } from '../runlog/schema.js';
import type { EndpointTally } from '../llm/endpoints.js';

/** 'interrupted' also covers a stop at the --max-cost budget (stoppedBy says which). */
export type RunStatus = 'complete' | 'interrupted' | 'failed' | 'partial';

/** The error episodes of a run for one cause. */
export interface ErrorCause {
  /** 'llm', 'env' or 'internal'. */
  source: string;
  count: number;
  /** The message of the first one, in plan order. */
  first: string;
}

export interface RunResult {
  runId: string;
  dir: string;
  status: RunStatus;
  summary: RunSummary;
  fatal?: FatalRunError;
  /** Why an interrupted run stopped: 'SIGINT', 'SIGTERM' or 'max-cost'. */
  stoppedBy?: string;
  /** The budget's message when --max-cost stopped the run. */
  budgetStop?: BudgetStop;
  /** Error episodes of the whole run (all sessions) per cause, llm first. */
  errorCauses: ErrorCause[];
  /** A combination stopped in a base run: its later base runs and itself, not made ("hotpotqa cot-sc-react"). */
  notReached?: string[];
  /** Combinations: the base runs whose error episodes are the combination's (retry those). */
  retryRuns?: { runId: string; dir: string }[];
  /** Model limits the run's episodes reached, one "<run id>: ..." line each (limit-outcomes.ts). */
  limitLines?: string[];
  /** What this invocation paid for (src/run/meter.ts), and whether the model has a known price. */
  spent?: Spend;
  price?: 'known' | 'unknown' | 'free';
  /**
   * What each model endpoint's attempts got in this invocation (answered, failed by kind), when the run
   * was given more than one (src/llm/endpoints.ts): the closing lines name one that failed (endpoint-lines.ts).
   */
  endpoints?: EndpointTally[];
}

/** Error records per cause (llm, env, internal, then others), each with its first message in plan order. */
export function errorCauses(records: readonly Pick<EpisodeRecord, 'error'>[]): ErrorCause[] {
  const by = new Map<string, ErrorCause>();
  for (const r of records) {
    if (!r.error) continue;
    const c = by.get(r.error.source);
    if (c) c.count++;
    else by.set(r.error.source, { source: r.error.source, count: 1, first: r.error.message });
  }
  const order = ['llm', 'env', 'internal'];
  const rank = (s: string) => (order.includes(s) ? order.indexOf(s) : order.length);
  return [...by.values()].sort((a, b) => rank(a.source) - rank(b.source) || a.source.localeCompare(b.source));
}
