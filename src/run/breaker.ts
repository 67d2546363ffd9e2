// The circuit breaker of a run (README "Reliability"): when the model endpoint or the environment fails N episodes
// in a row, every further episode would fail the same way (a dead endpoint ground through 50 questions
// at ~20 s each, then exited 0). The runner asks the breaker after each episode; once it trips, the
// run stops at once (in-flight episodes are aborted and not written), naming the failing side and the
// cause, and a re-run resumes. Tripped by the last episodes with every one written, it stopped nothing:
// the run finished with errors (src/run/runner.ts).
// What counts: episodes that end with an InfraError of one source ('llm' or 'env'), with no episode
// between them that finished normally. A prompt that does not fit the model's context window is an
// InfraError('llm') too, but it is about that one episode, not the endpoint: it neither counts nor
// resets; nor does an EnvironmentFailure (src/errors.ts: the environment failed that one episode).
// Internal errors (bugs) are not outages: they neither count nor reset either.
import { EnvironmentFailure, FatalRunError, InfraError } from '../errors.js';
import { ContextLengthError } from '../llm/context-limit.js';

/** Default N of --max-consecutive-failures: a dead endpoint stops the run within a few episodes. */
export const DEFAULT_MAX_CONSECUTIVE_FAILURES = 5;

export type InfraSource = 'llm' | 'env';

/** The run was stopped because one side kept failing; the message names it and the last cause. */
export class CircuitOpenError extends FatalRunError {
  constructor(
    readonly source: InfraSource,
    readonly failures: number,
    readonly lastMessage: string,
  ) {
    super(`stopped: ${failures} episodes in a row failed on the ${sideName(source)}: ${lastMessage}`);
  }
}

export function sideName(source: string): string {
  return source === 'llm' ? 'model endpoint' : source === 'env' ? 'environment' : source;
}

export class CircuitBreaker {
  private readonly inARow: Record<InfraSource, number> = { llm: 0, env: 0 };

  /** `limit` failures in a row trip it; 0 disables it (the run never stops for outages). */
  constructor(readonly limit: number = DEFAULT_MAX_CONSECUTIVE_FAILURES) {
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`breaker limit must be a non-negative integer, got ${limit}`);
  }

  /** An episode finished normally (scored): both sides work. */
  success(): void {
    this.inARow.llm = 0;
    this.inARow.env = 0;
  }

  /**
   * An episode failed with `e`. Returns the error that stops the run when this failure trips the
   * breaker, otherwise null.
   */
  failure(e: unknown): CircuitOpenError | null {
    if (!(e instanceof InfraError) || e instanceof ContextLengthError || e instanceof EnvironmentFailure) return null;
    const source = e.source;
    this.inARow[source]++;
    if (this.limit > 0 && this.inARow[source] >= this.limit) return new CircuitOpenError(source, this.inARow[source], e.message);
    return null;
  }

  /** Current run of failures per side (for tests and messages). */
  counts(): Readonly<Record<InfraSource, number>> {
    return { ...this.inARow };
  }
}
