// recording.jsonl in a run folder: everything an episode received from outside, so that `bundle` can
// pack a run and `run --from-bundle` can re-run it with no model and no environment server (README
// "Publishable runs and exports"). Each episode attempt (one Method.run of one item) records, in order:
//   {"t":"env", item, attempt, step, call, action?, result|error}     every reset/step (src/envs/recording.ts)
//   {"t":"llm", item, attempt, call, step, key, n, choices, cached, usage, cost | error}   every model call
//   {"t":"end", item, attempt, written}                                 whether the runner wrote its record
// after one {"t":"session", session, model, api, startedAt} line per session. The model-call lines
// carry the completion cache key (src/llm/cache/key.ts cacheKey: the keys a bundle exports) and the call's
// own accounting (tokens, cost, cache hit), so a replay rebuilds the episode record byte for byte.
// Lines are appended whole (src/util/durable.ts appendRecord, all through one GroupCommitLog, which
// tracks the file's length); an attempt's "end" line is durable before the runner appends the episode
// record, so a record never outlives its recording: it is made so by a group commit
// (src/util/group-commit.ts: one fsync off the event loop for every attempt ending meanwhile) rather
// than an fsync per attempt on the event loop, which held up every other episode. The line types
// and their parser are the run log's (src/runlog/schema.ts); the file is the store's.
import { randomBytes } from 'node:crypto';
import type { CompletionModel } from '../llm/types.js';
import type { Item } from '../benchmarks/types.js';
import type { Env } from '../envs/types.js';
import { recordingEnv } from '../envs/recording.js';
import { GroupCommitLog } from '../util/group-commit.js';
import { assertNoSecrets } from './manifest.js';
import type { Settings } from './experiment.js';
import { openRecording, RECORDING_FILE, recordingFile } from '../runlog/store.js';
import { RECORDING_SCHEMA, type EnvEvent, type LlmLine, type RecordingLine, type SessionLine } from '../runlog/schema.js';

export interface RecorderOptions {
  model: CompletionModel;
  settings: Settings;
  /** Values that must never reach the file (API keys). */
  secrets?: string[];
}

/** Where one attempt's model calls are recorded (by the recording layer: src/run/model-chain.ts). */
export interface CallSink {
  item: number;
  attempt: string;
  /** The environment steps so far (a call precedes step steps + 1). */
  cursor: { steps: number };
  /** The api part of the cache keys (src/llm/cache/key.ts). */
  api: string;
  write(line: LlmLine): void;
}

/** What records one attempt: its model calls, its environment calls, and its closing line. */
export interface AttemptRecorder {
  calls: CallSink;
  env(makeEnv: (item: Item) => Env): (item: Item) => Env;
  /** Written now (whole or not at all); resolves once durable. */
  end(written: boolean): Promise<void>;
}

/** Appends one run's recording. Open it once per session (after the manifest is written), close it after. */
export class RunRecorder {
  private fd: number | undefined;
  /** The same file: attempts' "end" lines, made durable together (group commit). */
  private readonly log: GroupCommitLog;
  private attempts = 0;
  readonly session: string;
  private readonly api: string;

  private constructor(
    readonly file: string,
    private readonly o: RecorderOptions,
  ) {
    this.session = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
    // The model's own cache-key api (src/llm/cache/key.ts); an uncached test double has none.
    this.api = o.model.cacheApi ?? String(o.model.describe().api ?? 'completions');
    this.fd = openRecording(file);
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
    return new RunRecorder(recordingFile(dir), o);
  }

  /**
   * One attempt of an episode (one Method.run of one item): its model calls are recorded by the
   * recording layer of the episode's model chain (src/run/model-chain.ts), its environment calls by
   * env(), and end() says whether the runner wrote its record.
   */
  beginAttempt(item: Item): AttemptRecorder {
    const attempt = `${this.session}.${this.attempts++}`;
    const cursor = { steps: 0 };
    const onEnv = (ev: EnvEvent) => {
      if (ev.call === 'step') cursor.steps = ev.step;
      this.write({ t: 'env', ...ev });
    };
    return {
      calls: { item: item.index, attempt, cursor, api: this.api, write: (line) => this.write(line) },
      env: (makeEnv) => (it) => recordingEnv(makeEnv(it), it, attempt, onEnv, { serialisingSink: true }),
      // Resolves once durable: the runner appends the episode record after.
      end: (written) => {
        if (this.fd === undefined) throw new Error('RunRecorder is closed');
        return this.log.append(this.text({ t: 'end', item: item.index, attempt, written }));
      },
    };
  }

  private text(line: RecordingLine): string {
    const text = JSON.stringify(line);
    assertNoSecrets(text, this.o.secrets ?? [], RECORDING_FILE);
    return text;
  }

  private write(line: RecordingLine, fsync = false): void {
    if (this.fd === undefined) throw new Error('RunRecorder is closed');
    // A full or read-only disk throws a DiskError, which stops the run like a failed run-log write.
    // Through the group-commit log, which tracks the file's length for every line of the file.
    this.log.write(this.text(line), { fsync });
  }

  /** Closes the file now, or once the fsync in flight is done. */
  close(): void {
    if (this.fd !== undefined) this.log.close();
    this.fd = undefined;
  }
}
