// What a run is handed besides its settings: RunDeps, the parts it is wired to (the real ones are in
// deps.ts; tests pass doubles), and RunIO, how it reports and what stops it.
import type { Benchmark } from '../benchmarks/types.js';
import type { PriceInfo } from '../llm/pricing.js';
import type { Budget } from './budget.js';
import type { RunConfig } from './config.js';
import type { Settings } from './experiment.js';
import type { ProgressSink } from './progress.js';
import type { ModelHooks, RunModel } from './run-model.js';

export interface RunDeps {
  /** The benchmark by name (UserError for an unknown one). */
  getBenchmark(name: string): Benchmark;
  /** The run's model, from its resolved configuration (`run.model`): the backend and the cache store. */
  createModel(run: RunConfig, hooks?: ModelHooks): Promise<RunModel>;
  /** Secret values to keep out of every file we write (API keys from the environment). */
  secrets(settings: Settings): string[];
  /** --dry-run: the prices the run would pay, from the settings alone (optional). */
  prices?(run: RunConfig): PriceInfo;
}

export interface RunIO {
  /** Progress output (stderr in the CLI). */
  progress: ProgressSink;
  /** One-line notes (resume, recovered bytes...). */
  log(line: string): void;
  /** Aborted by SIGINT/SIGTERM (reason: an Interrupt naming the signal). */
  signal?: AbortSignal;
  /** --max-cost: one budget for this invocation (shared by the runs of an experiment file). */
  budget?: Budget;
  /** --max-consecutive-failures (default DEFAULT_MAX_CONSECUTIVE_FAILURES; 0: never stop). */
  maxConsecutiveFailures?: number;
  /** In an experiment file: this run is the k-th of n (the progress display says so). */
  position?: { k: number; n: number };
  /** A base run a combination runs first: the combination, e.g. "hotpotqa cot-sc-react" (the display says so). */
  baseOf?: string;
}
