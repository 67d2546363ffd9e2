// One line of status on a terminal, redrawn in place: a long command's stage and how far it is (the
// report of a sweep reads its folders and writes its page for minutes at a million episodes). Off when
// the stream is not a terminal, so pipes, logs and CI see exactly what they saw before.
import { fitWidth } from '../run/progress-view.js';
import { terminalColumns, type DisplayStream } from '../util/terminal-text.js';

export interface StatusLine {
  /** Shows `text` in place of the last one; skipped when the last was drawn under `minIntervalMs` ago, unless `force`. */
  show(text: string, force?: boolean): void;
  /** Removes the line (before other output, and at the end). */
  clear(): void;
  readonly enabled: boolean;
}

export interface StatusLineOptions {
  /** False turns it off on a terminal too (e.g. when the command's own output goes to the same terminal). */
  enabled?: boolean;
  minIntervalMs?: number;
  now?: () => number;
}

export function statusLine(out: Pick<DisplayStream, 'write' | 'isTTY' | 'columns'>, opts: StatusLineOptions = {}): StatusLine {
  const enabled = out.isTTY === true && opts.enabled !== false;
  const now = opts.now ?? Date.now;
  const every = opts.minIntervalMs ?? 100;
  let drawnAt = -Infinity;
  let shown = false;
  return {
    enabled,
    show(text, force = false) {
      if (!enabled || (!force && now() - drawnAt < every)) return;
      drawnAt = now();
      // One row: a line the terminal wrapped could not be redrawn with \r.
      const width = terminalColumns(out) - 1;
      out.write(`\r${fitWidth(text, width)}\x1b[K`);
      shown = true;
    },
    clear() {
      if (!shown) return;
      out.write('\r\x1b[K');
      shown = false;
    },
  };
}
