// recording.jsonl in a run folder: everything an episode received from outside, so that `bundle` can
// pack a run and `run --from-bundle` can re-run it with no model and no environment server (README
// "Publishable runs and exports"). Each episode attempt (one Method.run of one item) records, in order:
//   {"t":"env", item, attempt, step, call, action?, result|error}     every reset/step (src/envs/recording.ts)
//   {"t":"llm", item, attempt, call, step, key, n, choices, cached, usage, cost | error}   every model call
//   {"t":"end", item, attempt, written}                                 whether the runner wrote its record
// after one {"t":"session", session, model, api, startedAt} line per session. The model-call lines
// carry the completion cache key (src/llm/cache.ts cacheKey: the keys a bundle exports) and the call's
// own accounting (tokens, cost, cache hit), so a replay rebuilds the episode record byte for byte.
// Lines are appended whole (src/util/durable.ts appendRecord); an attempt's "end" line is durable
// before the runner appends the episode record, so a record never outlives its recording: it is made
// so by a group commit (src/util/group-commit.ts: one fsync off the event loop for every attempt ending
// meanwhile) rather than an fsync per attempt on the event loop, which held up every other episode.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { CompletionModel, CompletionRequest, CompletionResult, TokenUsage } from '../llm/types.js';
import { cacheKey } from '../llm/cache.js';
import type { Method, MethodContext } from '../methods/types.js';
import type { Item } from '../benchmarks/types.js';
import { FatalRunError, UserError } from '../errors.js';
import { recordError, recordingEnv, type EnvEvent, type RecordedError } from '../envs/recording.js';
import { appendRecord, DiskError, toDiskError, truncateTornTail } from '../util/durable.js';
import { GroupCommitLog } from '../util/group-commit.js';
import { assertNoSecrets } from './manifest.js';
import { isEnvRestart } from '../envs/pool.js';
import type { Settings } from './experiment.js';
import { BudgetStop } from './budget.js';
import { addCall, isInFlightAbort, noSpend, type Spend } from './meter.js';
import { RECORDING_FILE } from './layout.js';
/** Version of the line shapes above (the session line carries it). */
export const RECORDING_SCHEMA = 1;

export interface SessionLine {
  t: 'session';
  v: number;
  session: string;
  startedAt: string;
  /** The model name and the api string of its cache keys (what cacheKey() needs besides the request). */
  model: string;
  api: string;
}

export interface EnvLine extends EnvEvent {
  t: 'env';
}

export interface LlmLine {
  t: 'llm';
  item: number;
  attempt: string;
  /** 0-based model call number within the attempt. */
  call: number;
  /** The environment step this call precedes (env steps so far + 1). */
  step: number;
  /** The completion cache key of the request (src/llm/cache.ts). */
  key: string;
  n: number;
  /** What the episode received (the cache's samples 0..n-1). */
  choices?: Array<{ text: string; finishReason: string }>;
  /** The call's accounting as the episode counted it (CompletionResult's cachedChoices, usage, costUsd). */
  cached?: number;
  usage?: TokenUsage;
  cost?: number;
  /** The cache's "every call" accounting of a hit or partial hit (src/llm/cache.ts CacheAccountedResult.total). */
  total?: { usage: TokenUsage; costUsd: number };
  error?: RecordedError;
}

export interface EndLine {
  t: 'end';
  item: number;
  attempt: string;
  /** False when the runner drops the episode (interrupted, or the run stopped on a fatal error). */
  written: boolean;
}

export type RecordingLine = SessionLine | EnvLine | LlmLine | EndLine;

const tokenUsage = (u: TokenUsage): TokenUsage => ({
  promptTokens: u.promptTokens,
  completionTokens: u.completionTokens,
  totalTokens: u.totalTokens,
});

export interface RecorderOptions {
  model: CompletionModel;
  settings: Settings;
  /** Values that must never reach the file (API keys). */
  secrets?: string[];
}

/** Appends one run's recording. Open it once per session (after the manifest is written), close it after. */
export class RunRecorder {
  private fd: number | undefined;
  /** The same file: attempts' "end" lines, made durable together (group commit). */
  private readonly log: GroupCommitLog;
  private attempts = 0;
  readonly session: string;
  private readonly api: string;
  /** What this session paid for so far (the meter: src/run/meter.ts); its lines say the same. */
  readonly spent: Spend = noSpend();

  private constructor(
    readonly file: string,
    private readonly o: RecorderOptions,
  ) {
    this.session = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
    // The model's own cache-key api (src/llm/cache.ts); an uncached test double has none.
    this.api = o.model.cacheApi ?? String(o.model.describe().api ?? 'completions');
    try {
      // a recording cut mid-line by kill -9 would glue its torn tail to our first line
      truncateTornTail(file);
      this.fd = fs.openSync(file, 'a');
    } catch (e) {
      throw toDiskError(e, file, 'opening the run recording');
    }
    this.log = new GroupCommitLog(this.fd, file, { what: 'the run recording' });
    const line: SessionLine = {
      t: 'session',
      v: RECORDING_SCHEMA,
      session: this.session,
      startedAt: new Date().toISOString(),
      model: o.model.model,
      api: this.api,
    };
    this.write(line, true);
  }

  static open(dir: string, o: RecorderOptions): RunRecorder {
    return new RunRecorder(path.join(dir, RECORDING_FILE), o);
  }

  /** The method with every episode's environment and model traffic recorded. */
  wrapMethod(method: Method): Method {
    return {
      name: method.name,
      needsEnv: method.needsEnv,
      describe: () => method.describe(),
      run: (item, ctx) => this.runRecorded(method, item, ctx),
    };
  }

  private async runRecorded(method: Method, item: Item, ctx: MethodContext) {
    const attempt = `${this.session}.${this.attempts++}`;
    const cursor = { steps: 0 };
    const onEnv = (ev: EnvEvent) => {
      if (ev.call === 'step') cursor.steps = ev.step;
      this.write({ t: 'env', ...ev });
    };
    const run: MethodContext = {
      ...ctx,
      model: this.recordingModel(ctx.model, item, attempt, cursor),
      makeEnv: ctx.makeEnv ? (it) => recordingEnv(ctx.makeEnv!(it), it, attempt, onEnv) : undefined,
    };
    try {
      const result = await method.run(item, run);
      await this.end(item, attempt, !ctx.signal?.aborted);
      return result;
    } catch (e) {
      // The runner drops interrupted episodes and stops on a FatalRunError or a DiskError; it records
      // everything else (InfraError, internal errors) as an error episode.
      if (!(e instanceof DiskError))
        await this.end(
          item,
          attempt,
          !ctx.signal?.aborted && !(e instanceof FatalRunError) && !(e instanceof BudgetStop) && !isEnvRestart(e),
        );
      throw e;
    }
  }

  private recordingModel(inner: CompletionModel, item: Item, attempt: string, cursor: { steps: number }): CompletionModel {
    let calls = 0;
    const write = (line: LlmLine) => this.write(line);
    const api = this.api;
    const spent = this.spent;
    return {
      get model() {
        return inner.model;
      },
      describe: () => inner.describe(),
      async complete(req: CompletionRequest, opts?: { signal?: AbortSignal }): Promise<CompletionResult> {
        const base = {
          t: 'llm' as const,
          item: item.index,
          attempt,
          call: calls++,
          step: cursor.steps + 1,
          key: cacheKey(inner.model, api, req),
          n: req.n,
        };
        let res: CompletionResult;
        try {
          res = await inner.complete(req, opts);
        } catch (e) {
          const error = recordError(e, opts?.signal);
          write({ ...base, error });
          if (isInFlightAbort(error)) spent.paid_unknown_calls++;
          throw e;
        }
        const total = (res as CompletionResult & { total?: LlmLine['total'] }).total;
        write({
          ...base,
          choices: res.choices.map((c) => ({ text: c.text, finishReason: c.finishReason })),
          cached: res.cachedChoices,
          usage: tokenUsage(res.usage),
          cost: res.costUsd,
          ...(total ? { total: { usage: tokenUsage(total.usage), costUsd: total.costUsd } } : {}),
        });
        addCall(spent, res.usage, res.costUsd); // counted once the line that proves it is written
        return res;
      },
    };
  }

  /** Written now (whole or not at all); resolves once durable: the runner appends the episode record after. */
  private end(item: Item, attempt: string, written: boolean): Promise<void> {
    if (this.fd === undefined) throw new Error('RunRecorder is closed');
    return this.log.append(this.text({ t: 'end', item: item.index, attempt, written }));
  }

  private text(line: RecordingLine): string {
    const text = JSON.stringify(line);
    assertNoSecrets(text, this.o.secrets ?? [], RECORDING_FILE);
    return text;
  }

  private write(line: RecordingLine, fsync = false): void {
    if (this.fd === undefined) throw new Error('RunRecorder is closed');
    // A full or read-only disk throws a DiskError, which stops the run like a failed run-log write.
    appendRecord(this.fd, this.file, this.text(line), { fsync, what: 'the run recording' });
  }

  /** Closes the file now, or once the fsync in flight is done. */
  close(): void {
    if (this.fd !== undefined) this.log.close();
    this.fd = undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Reading

export interface RecordedAttempt {
  attempt: string;
  item: number;
  session: SessionLine;
  env: EnvEvent[];
  llm: LlmLine[];
  written: boolean;
}

export interface ParsedRecording {
  sessions: SessionLine[];
  /** Every attempt, in the order their first line appears. */
  attempts: RecordedAttempt[];
  /**
   * Per item, the attempt whose episode record is the run's (the last attempt the runner wrote:
   * later attempts of an item are --retry-errors or resumes, and episodes.jsonl keeps the latest line).
   */
  final: Map<number, RecordedAttempt>;
  /** Lines of the file (the last complete one's number). */
  lines?: number;
  /** The line number of a cut last line (not JSON), when there is one. */
  torn?: number;
}

/** Parses recording.jsonl text (`where` names it in errors). A cut last line (kill -9) is ignored. */
export function parseRecording(text: string, where: string): ParsedRecording {
  const lines = text.split('\n');
  const sessions: SessionLine[] = [];
  const bySession = new Map<string, SessionLine>();
  const attempts = new Map<string, RecordedAttempt>();
  const final = new Map<number, RecordedAttempt>();
  const attemptOf = (l: { item: number; attempt: string }, i: number): RecordedAttempt => {
    let a = attempts.get(l.attempt);
    if (!a) {
      const session = bySession.get(l.attempt.slice(0, l.attempt.lastIndexOf('.')));
      if (!session) throw new UserError(`${where}:${i + 1}: attempt ${l.attempt} has no session line before it`);
      a = { attempt: l.attempt, item: l.item, session, env: [], llm: [], written: false };
      attempts.set(l.attempt, a);
    }
    return a;
  };
  let torn: number | undefined;
  let count = 0;
  lines.forEach((raw, i) => {
    if (!raw.trim()) return;
    let l: RecordingLine;
    try {
      l = JSON.parse(raw) as RecordingLine;
      count = i + 1;
    } catch {
      if (i === lines.length - 1) {
        torn = i + 1;
        return; // a torn last line: that attempt has no "end" and is not used
      }
      throw new UserError(`${where}:${i + 1}: not a JSON line of a run recording`);
    }
    switch (l?.t) {
      case 'session':
        if (l.v !== RECORDING_SCHEMA)
          throw new UserError(`${where}:${i + 1}: recording schema ${l.v}; this version reads schema ${RECORDING_SCHEMA}`);
        sessions.push(l);
        bySession.set(l.session, l);
        return;
      case 'env': {
        const { t: _t, ...ev } = l;
        attemptOf(l, i).env.push(ev);
        return;
      }
      case 'llm':
        attemptOf(l, i).llm.push(l);
        return;
      case 'end': {
        const a = attemptOf(l, i);
        a.written = l.written;
        if (l.written) {
          final.delete(l.item); // keep map order = order of the final attempts
          final.set(l.item, a);
        }
        return;
      }
      default:
        throw new UserError(`${where}:${i + 1}: unknown recording line (expected t = session, env, llm or end)`);
    }
  });
  return { sessions, attempts: [...attempts.values()], final, lines: count, ...(torn !== undefined ? { torn } : {}) };
}

export function readRecording(dir: string): ParsedRecording {
  const file = path.join(dir, RECORDING_FILE);
  if (!fs.existsSync(file)) {
    throw new UserError(
      `${dir}: no ${RECORDING_FILE} (the run was made by a version that did not record its environment and model traffic); re-run it to bundle it`,
    );
  }
  return parseRecording(fs.readFileSync(file, 'utf8'), file);
}
