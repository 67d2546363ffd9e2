// recording.jsonl in a run folder: everything an episode received from outside, so that `bundle` can
// pack a run and `run --from-bundle` can re-run it with no model and no environment server (README
// "Publishable runs and exports"). Each episode attempt (one Method.run of one item) records, in order:
//   {"t":"env", item, attempt, step, call, action?, result|error}     every reset/step (src/envs/recording.ts)
//   {"t":"llm", item, attempt, call, step, key, n, choices, cached, usage, cost | error}   every model call
//   {"t":"end", item, attempt, written}                                 whether the runner wrote its record
// after one {"t":"session", session, model, api, startedAt} line per session. The model-call lines
// carry the completion cache key (src/llm/cache.ts cacheKey: the keys a bundle exports) and the call's
// own accounting (tokens, cost, cache hit), so a replay rebuilds the episode record byte for byte.
// Lines are appended whole (src/util/durable.ts appendRecord); an attempt's "end" line is fsync'ed
// before the runner appends the episode record, so a record never outlives its recording. The line
// types and their parser are the run log's (src/runlog/schema.ts); the file is the store's.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { CompletionModel, CompletionRequest, CompletionResult, TokenUsage } from '../llm/types.js';
import { cacheKey } from '../llm/cache.js';
import type { Method, MethodContext } from '../methods/types.js';
import type { Item } from '../benchmarks/types.js';
import { FatalRunError } from '../errors.js';
import { recordError, recordingEnv } from '../envs/recording.js';
import { appendRecord, DiskError } from '../util/durable.js';
import { assertNoSecrets } from './manifest.js';
import { isEnvRestart } from '../envs/pool.js';
import type { Settings } from './experiment.js';
import { BudgetStop } from './budget.js';
import { addCall, isInFlightAbort, noSpend, type Spend } from './meter.js';
import { openRecording, RECORDING_FILE, recordingFile } from '../runlog/store.js';
import { RECORDING_SCHEMA, type EnvEvent, type LlmLine, type RecordingLine, type SessionLine } from '../runlog/schema.js';
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
    this.fd = openRecording(file);
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
    return new RunRecorder(recordingFile(dir), o);
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
      this.end(item, attempt, !ctx.signal?.aborted);
      return result;
    } catch (e) {
      // The runner drops interrupted episodes and stops on a FatalRunError or a DiskError; it records
      // everything else (InfraError, internal errors) as an error episode.
      if (!(e instanceof DiskError))
        this.end(item, attempt, !ctx.signal?.aborted && !(e instanceof FatalRunError) && !(e instanceof BudgetStop) && !isEnvRestart(e));
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

  private end(item: Item, attempt: string, written: boolean): void {
    // fsync'ed: the runner appends the episode record right after this returns
    this.write({ t: 'end', item: item.index, attempt, written }, true);
  }

  private write(line: RecordingLine, fsync = false): void {
    if (this.fd === undefined) throw new Error('RunRecorder is closed');
    const text = JSON.stringify(line);
    assertNoSecrets(text, this.o.secrets ?? [], RECORDING_FILE);
    // A full or read-only disk throws a DiskError, which stops the run like a failed run-log write.
    appendRecord(this.fd, this.file, text, { fsync, what: 'the run recording' });
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}
