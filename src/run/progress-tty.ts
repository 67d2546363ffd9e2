// The progress block on a terminal: a few rows redrawn in place by log-update (a maintained library
// that rewrites only the rows that changed and handles the cursor), fitted to the terminal's width
// so nothing wraps or scrolls. Loaded only when the output is a TTY (Progress.create).
import { createLogUpdate } from 'log-update';
import { startLine, ttyLines, type ProgressRenderer, type ProgressSink, type ProgressView } from './progress-view.js';
import { terminalColumns } from '../util/terminal-text.js';

/** Redraws at most this often; a timer refreshes elapsed time and ETA in between. */
const MIN_INTERVAL_MS = 100;
const TICK_MS = 500;
/**
 * A redraw this long after the last one (the timer asks every TICK_MS) follows a stop (Ctrl-Z, then
 * fg) or a stalled process: the shell may have printed below the block meanwhile, so it is drawn anew.
 */
const RESUMED_GAP_MS = 2000;

export class TerminalRenderer implements ProgressRenderer {
  private readonly draw: ReturnType<typeof createLogUpdate>;
  private lastDraw = 0;
  /** When update() was last called (drawn or not). */
  private lastSeen: number;
  /** When the block was last left as drawn (forget()), so a resume forgets it once. */
  private lastReset = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  private done = false;

  constructor(
    private readonly out: ProgressSink,
    private readonly view: () => ProgressView,
    private readonly now: () => number = Date.now,
  ) {
    this.lastSeen = now();
    // showCursor: the cursor is never hidden, so no exit path can leave the terminal without one.
    this.draw = createLogUpdate(out as unknown as NodeJS.WritableStream, { showCursor: true });
    this.timer = setInterval(() => this.update(this.view(), true), TICK_MS);
    this.timer.unref();
    process.on('SIGCONT', this.onContinue);
  }

  /**
   * Resumed after Ctrl-Z (`fg`): the shell has printed below the block ("Stopped", the command again),
   * so the rows above the cursor are no longer the block's; forget them and draw a new block below
   * (a timer's redraw that comes first does so by RESUMED_GAP_MS).
   */
  private readonly onContinue = () => {
    if (this.now() - this.lastReset > RESUMED_GAP_MS) this.forget();
    this.update(this.view(), true);
  };

  /** Leaves the block drawn so far as it is: the next frame is drawn below the cursor. */
  private forget(): void {
    this.draw.done();
    this.lastReset = this.now();
  }

  private columns(): number {
    return terminalColumns(this.out);
  }

  start(view: ProgressView): void {
    this.out.write(startLine(view.label, this.columns() - 1) + '\n');
    this.update(view, true);
  }

  update(view: ProgressView, force: boolean): void {
    if (this.done) return;
    const now = this.now();
    if (now - this.lastSeen > RESUMED_GAP_MS) this.forget();
    this.lastSeen = now;
    if (!force && now - this.lastDraw < MIN_INTERVAL_MS) return;
    this.lastDraw = now;
    this.draw(ttyLines(view, this.columns()).join('\n'));
  }

  interject(print: () => void): void {
    if (this.done) return print();
    this.draw.clear();
    print();
    this.update(this.view(), true);
  }

  finish(view: ProgressView, interrupted: boolean): void {
    if (this.done) return;
    if (!interrupted) {
      this.lastDraw = 0;
      this.update(view, true);
    }
    this.done = true;
    clearInterval(this.timer);
    process.off('SIGCONT', this.onContinue);
    // Keep the last frame; the cursor is on the row below it, at column 0.
    this.draw.done();
  }
}
