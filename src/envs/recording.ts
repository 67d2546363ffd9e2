// Record and replay of environment traffic at the Env interface, so one wrapper serves every
// benchmark (Wikipedia, ALFWorld, WebShop...): a publishable run carries what its environments
// answered and re-runs with no environment server (README "Publishable runs and exports").
//
// Recording: every reset() and step(action) of an episode becomes one event {item, attempt, step,
// call, action?, result | error}; `attempt` names one episode of the item (a retried or resumed item
// has several). Replaying: each item follows the events of one recorded attempt in order; a call that
// is not the next recorded one (another action, a step past the recorded end) is a divergence, thrown
// as a ReplayDivergence naming the episode and the step. Errors replay as the class the runner
// distinguishes (InfraError stays an InfraError, so an error episode replays as the same error record).
import type { EnvHandle, Item } from '../benchmarks/types.js';
import { FatalRunError, InfraError } from '../errors.js';
import { ContextLengthError } from '../llm/context-limit.js';
import { AbortedUnsentError } from '../llm/types.js';
import type { Env, EnvCallOptions, ResetResult, StepResult } from './types.js';
import type { EnvEvent, RecordedError } from '../runlog/schema.js';

export type { EnvEvent, RecordedError } from '../runlog/schema.js';

export type EnvSink = (event: EnvEvent) => void;

export function recordError(e: unknown, signal?: AbortSignal): RecordedError {
  const err = e instanceof Error ? e : new Error(String(e));
  const out: RecordedError = { name: err.name, message: err.message };
  if (e instanceof InfraError) out.source = e.source;
  if (e instanceof ContextLengthError) out.contextLimit = e.limit ?? { message: e.message };
  if (signal?.aborted || err.name === 'AbortError') out.aborted = true;
  if (e instanceof AbortedUnsentError) out.unsent = true;
  return out;
}

/** The recorded error as the error class the runner tells apart (InfraError → error record; FatalRunError → stop). */
export function reviveError(r: RecordedError): Error {
  if (r.contextLimit) return new ContextLengthError(r.message, 'family' in r.contextLimit ? r.contextLimit : undefined);
  if (r.name === 'InfraError') return new InfraError(r.message, r.source ?? 'env');
  if (r.name === 'FatalRunError') return new FatalRunError(r.message);
  const e = new Error(r.message);
  e.name = r.name;
  return e;
}

/**
 * `env` with every reset and step reported to `sink`, results as JSON (what a recording file holds).
 * The results returned to the caller are the environment's own objects, untouched.
 * `serialisingSink`: the sink writes each event as JSON before it returns (the run recording), so it
 * is given the result itself, not a JSON copy: the line is the same, the copy is not made per step.
 */
export function recordingEnv(env: Env, item: Item, attempt: string, sink: EnvSink, opts: { serialisingSink?: boolean } = {}): Env {
  let step = 0;
  const asRecorded = opts.serialisingSink ? <T>(v: T): T => v : asJson;
  const wrapped: Env = {
    async reset(opts?: EnvCallOptions): Promise<ResetResult> {
      step = 0;
      const base = { item: item.index, attempt, step: 0, call: 'reset' as const };
      try {
        const result = await env.reset(opts);
        sink({ ...base, result: asRecorded(result) });
        return result;
      } catch (e) {
        sink({ ...base, error: recordError(e, opts?.signal) });
        throw e;
      }
    },
    async step(action: string, opts?: EnvCallOptions): Promise<StepResult> {
      step++;
      const base = { item: item.index, attempt, step, call: 'step' as const, action };
      try {
        const result = await env.step(action, opts);
        sink({ ...base, result: asRecorded(result) });
        return result;
      } catch (e) {
        sink({ ...base, error: recordError(e, opts?.signal) });
        throw e;
      }
    },
  };
  if (env.close) wrapped.close = () => env.close!();
  return wrapped;
}

/**
 * An EnvHandle whose environments report their traffic to `sink`. Each makeEnv(item) starts a new
 * attempt, named `${prefix}${n}` (give each session its own prefix so attempts stay unique in a file).
 */
export function recordingEnvHandle(handle: EnvHandle, sink: EnvSink, opts: { attemptPrefix?: string } = {}): EnvHandle {
  let n = 0;
  const out: EnvHandle = {
    makeEnv: (item) => recordingEnv(handle.makeEnv(item), item, `${opts.attemptPrefix ?? ''}${n++}`, sink),
    describe: () => handle.describe(),
  };
  if (handle.check) out.check = (signal) => handle.check!(signal);
  if (handle.close) out.close = () => handle.close!();
  return out;
}

/** The value as it reads back from JSON (what a replay returns): no undefined fields, no shared objects. */
function asJson<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

// ---------------------------------------------------------------------------------------------
// Replay

/** A replayed call that is not the recorded one: stops the re-run (a FatalRunError) with one line. */
export class ReplayDivergence extends FatalRunError {
  constructor(
    readonly item: number,
    readonly step: number,
    detail: string,
  ) {
    super(`replay diverged at episode ${item}, step ${step}: ${detail}`);
  }
}

/** A string as it may be quoted in a one-line message. */
export function quote(s: string, max = 80): string {
  return JSON.stringify(clip(s, max));
}

/** `s` cut to `max` characters, with "…" where it was cut. */
export function clip(s: string, max: number): string {
  return s.length > max ? s.slice(0, max) + '…' : s;
}

/** Where one episode's replay stands: shared by its environment and its model calls (src/run/from-bundle.ts). */
export interface EpisodeCursor {
  /** Environment steps taken so far (the step a model call belongs to is steps + 1). */
  steps: number;
  /** Recorded environment calls answered so far (resets and steps). */
  envCalls: number;
}

export interface ReplayEnvOptions {
  /** What describe() returns: the recorded run's environment fingerprint (it is part of the run id). */
  describe: Record<string, unknown>;
  /** What identity() returns: the recorded run's environment identity (the manifest's identity.environment); default: describe. */
  identity?: Record<string, unknown>;
  /** Per-episode position shared with the model replay (for step numbers in messages). */
  cursor?(item: Item): EpisodeCursor;
}

/**
 * An EnvHandle that answers from `recording`: for each item index, the events of the one recorded
 * attempt to follow, in order. No network, no server: makeEnv(item) for an item without events is a
 * divergence at its reset.
 */
export function replayEnvHandle(recording: ReadonlyMap<number, readonly EnvEvent[]>, opts: ReplayEnvOptions): EnvHandle {
  return {
    makeEnv: (item) => new ReplayEnv(item, recording.get(item.index) ?? [], opts.cursor?.(item) ?? { steps: 0, envCalls: 0 }),
    describe: () => structuredClone(opts.describe),
    identity: () => structuredClone(opts.identity ?? opts.describe),
  };
}

class ReplayEnv implements Env {
  constructor(
    private readonly item: Item,
    private readonly events: readonly EnvEvent[],
    private readonly cursor: EpisodeCursor,
  ) {}

  async reset(opts?: EnvCallOptions): Promise<ResetResult> {
    opts?.signal?.throwIfAborted();
    const ev = this.take('reset', undefined);
    return this.answer(ev);
  }

  async step(action: string, opts?: EnvCallOptions): Promise<StepResult> {
    opts?.signal?.throwIfAborted();
    const ev = this.take('step', action);
    this.cursor.steps = ev.step;
    return this.answer(ev) as StepResult;
  }

  private take(call: 'reset' | 'step', action: string | undefined): EnvEvent {
    // one cursor per episode: an episode that builds a second env goes on where the first stopped
    const ev = this.events[this.cursor.envCalls];
    const at = call === 'reset' ? 0 : this.cursor.steps + 1;
    const what = call === 'reset' ? 'reset' : `action ${quote(action!)}`;
    if (!ev) {
      const why = this.events.length === 0 ? 'the bundle holds no environment traffic for this episode' : `the recorded episode ended after ${this.events.length} environment calls`;
      throw new ReplayDivergence(this.item.index, at, `${what} is not in the bundle (${why})`);
    }
    if (ev.call !== call) {
      throw new ReplayDivergence(this.item.index, at, `${what} is not in the bundle (recorded: ${ev.call === 'reset' ? 'reset' : `action ${quote(ev.action ?? '')}`})`);
    }
    if (call === 'step' && ev.action !== action) {
      throw new ReplayDivergence(this.item.index, ev.step, `${what} is not in the bundle (recorded: action ${quote(ev.action ?? '')})`);
    }
    this.cursor.envCalls++;
    return ev;
  }

  private answer(ev: EnvEvent): ResetResult | StepResult {
    if (ev.error) throw reviveError(ev.error);
    if (!ev.result) throw new ReplayDivergence(this.item.index, ev.step, 'the recorded call has neither a result nor an error');
    return structuredClone(ev.result);
  }
}
