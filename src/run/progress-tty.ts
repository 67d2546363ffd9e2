// The progress block on a terminal: a few rows redrawn in place by log-update (a maintained library
// that rewrites only the rows that changed and handles the cursor), fitted to the terminal's width
// so nothing wraps or scrolls. Loaded only when the output is a TTY (Progress.create).
import { createLogUpdate } from 'log-update';
import { startLine, ttyLines, type ProgressRenderer, type ProgressSink, type ProgressView } from './progress-view.js';
import { terminalColumns } from '../util/terminal-text.js';

/** Redraws at most this often; a timer refreshes elapsed time and ETA in between. */
const MIN_INTERVAL_MS = 100;
const TICK_MS = 500;

export class TerminalRenderer implements ProgressRenderer {
  private readonly draw: ReturnType<typeof createLogUpdate>;
  private lastDraw = 0;
  private timer: NodeJS.Timeout | undefined;
  private done = false;

  constructor(
    private readonly out: ProgressSink,
    private readonly view: () => ProgressView,
  ) {
    // showCursor: the cursor is never hidden, so no exit path can leave the terminal without one.
    this.draw = createLogUpdate(out as unknown as NodeJS.WritableStream, { showCursor: true });
    this.timer = setInterval(() => this.update(this.view(), true), TICK_MS);
    this.timer.unref();
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
    const now = Date.now();
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
    // Keep the last frame; the cursor is on the row below it, at column 0.
    this.draw.done();
  }
}
