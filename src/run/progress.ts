// Progress of a run: the counters (this file) and their display (progress-view.ts: the text;
// progress-tty.ts: a block redrawn in place on a terminal). On a terminal the block is a bar with
// done/total, percentage and ETA, then the counters, fitted to its width; elsewhere (CI, a log file)
// plain lines every 10 episodes or 10 s. It shows what happens as it happens: errors by cause (llm /
// env / internal) and the retries of model and environment requests, so an outage is visible long
// before the run ends. The score is the one every view shows (src/report/numbers.ts: exact sum, one
// rounding), so the progress display, the summary and the report agree.
import {
  errorsText,
  formatDuration,
  plainLine,
  startLine,
  type ProgressLabel,
  type ProgressRenderer,
  type ProgressSink,
  type ProgressState,
  type ProgressView,
} from './progress-view.js';
import { isContextExceeded } from './limit-outcomes.js';
import { usageUnknownCalls } from '../runlog/schema.js';

export { errorsText, formatDuration };
export type { ProgressRenderer, ProgressSink, ProgressState };

/** Pure: the text of one plain progress line. `doneThisSession` and `elapsedSec` give the ETA. */
export function progressLine(label: string | ProgressLabel, s: ProgressState, doneThisSession: number, elapsedSec: number): string {
  return plainLine(viewOf(toLabel(label), s, doneThisSession, elapsedSec));
}

export function viewOf(label: ProgressLabel, s: ProgressState, doneThisSession: number, elapsedSec: number): ProgressView {
  const remaining = s.total - s.done;
  return { label, state: s, elapsedSec, etaSec: doneThisSession > 0 ? (elapsedSec / doneThisSession) * remaining : null };
}

const toLabel = (l: string | ProgressLabel): ProgressLabel => (typeof l === 'string' ? { id: l, short: l } : l);

/** Not a terminal: the id once, then a line every `every.episodes` episodes or `every.ms` ms, and at the end. */
export class PlainRenderer implements ProgressRenderer {
  private lastPrint = 0;
  private lastPrinted = '';
  private lastPrintedDone = -1;

  constructor(
    private readonly out: ProgressSink,
    private readonly every = { episodes: 10, ms: 10_000 },
  ) {}

  start(view: ProgressView): void {
    if (view.label.id !== view.label.short) this.out.write(startLine(view.label) + '\n');
  }

  update(view: ProgressView, force: boolean): void {
    const now = Date.now();
    const s = view.state;
    const due =
      force ||
      s.done - this.lastPrintedDone >= this.every.episodes ||
      now - this.lastPrint >= this.every.ms ||
      (s.done === s.total && s.done !== this.lastPrintedDone);
    if (!due) return;
    // What changed, leaving out the times (a line only for news).
    const body = plainLine({ ...view, elapsedSec: 0, etaSec: null });
    if (body !== this.lastPrinted) {
      this.out.write(plainLine(view) + '\n');
      this.lastPrint = now;
      this.lastPrinted = body;
      this.lastPrintedDone = s.done;
    }
  }

  interject(print: () => void): void {
    print();
  }

  finish(view: ProgressView): void {
    this.update(view, true);
  }
}

/** What the progress display reads of an episode's record. */
export interface ProgressRecord {
  error: { source: string } | null;
  metrics: Record<string, number | undefined>;
  usage: { total_tokens: number };
  cost: number;
  usage_unknown_calls?: number;
  outcome?: unknown;
}

/**
 * Adds a recorded episode to the counters: one rule for the records a resumed run starts from and
 * those it records, so every figure of the line (done, score, errors, limits, tokens) covers the run.
 */
export function countRecord(s: ProgressState, rec: ProgressRecord, primaryKey: string): void {
  s.done++;
  if (rec.error) {
    s.errors++;
    s.errorsBySource[rec.error.source] = (s.errorsBySource[rec.error.source] ?? 0) + 1;
  } else {
    s.scored++;
    s.metricValues.push(rec.metrics[primaryKey] ?? 0);
    // A model limit is an outcome, scored and counted (limit-outcomes.ts): shown as it happens.
    if (isContextExceeded(rec)) s.counts = { ...s.counts, 'context exceeded': (s.counts?.['context exceeded'] ?? 0) + 1 };
  }
  s.tokens += rec.usage.total_tokens;
  s.cost += rec.cost;
  if (usageUnknownCalls(rec) > 0) s.usageUnknownCalls = (s.usageUnknownCalls ?? 0) + usageUnknownCalls(rec);
}

export class Progress {
  private readonly started = Date.now();
  private session = 0;
  private ended = false;
  private readonly label: ProgressLabel;
  private readonly renderer: ProgressRenderer;
  private interrupted = false;
  /** Takes our listener off the caller's signal: one invocation runs many runs on one signal (an experiment, a bundle). */
  private readonly detach: () => void;

  constructor(
    label: string | ProgressLabel,
    readonly state: ProgressState,
    out: ProgressSink = process.stderr,
    every = { episodes: 10, ms: 10_000 },
    renderer?: ProgressRenderer,
    signal?: AbortSignal,
  ) {
    this.label = toLabel(label);
    this.renderer = renderer ?? new PlainRenderer(out, every);
    const onAbort = () => this.stop();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.detach = () => signal?.removeEventListener('abort', onAbort);
    this.renderer.start(this.view());
  }

  /** A Progress for this sink: the terminal block on a TTY (its library loaded only then), plain lines otherwise. */
  static async create(label: ProgressLabel, state: ProgressState, out: ProgressSink, signal?: AbortSignal): Promise<Progress> {
    if (!out.isTTY) return new Progress(label, state, out, undefined, undefined, signal);
    const { TerminalRenderer } = await import('./progress-tty.js');
    const p: Progress = new Progress(label, state, out, undefined, new TerminalRenderer(out, () => p.view()), signal);
    return p;
  }

  view(): ProgressView {
    return viewOf(this.label, this.state, this.session, (Date.now() - this.started) / 1000);
  }

  /** An episode finished in this session and was recorded. */
  record(rec: ProgressRecord, primaryKey: string): void {
    countRecord(this.state, rec, primaryKey);
    this.session++;
    this.render(false);
  }

  /** A model or environment request is being retried. */
  retry(): void {
    this.state.retries++;
    this.render(false);
  }

  /** Prints a note (through `print`) without breaking the display. */
  note(print: () => void): void {
    if (this.ended) print();
    else this.renderer.interject(print);
  }

  render(force: boolean): void {
    if (!this.ended) this.renderer.update(this.view(), force);
  }

  /** Ctrl-C/SIGTERM, or a run that threw: the display stops where it is and leaves the cursor on a clean line. */
  stop(): void {
    if (this.ended) return;
    this.interrupted = true;
    this.ended = true;
    this.detach();
    this.renderer.finish(this.view(), true);
  }

  finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.detach();
    this.renderer.finish(this.view(), this.interrupted);
  }
}
