// The terminal block (src/run/progress-tty.ts) resumed after Ctrl-Z: the shell printed below it while
// it was stopped ("Stopped", then `fg` echoes the command), so the block is drawn anew below the cursor,
// never by moving up over the shell's lines, whether SIGCONT or the redraw timer comes first.
import { afterEach, describe, expect, it } from 'vitest';
import { TerminalRenderer } from '../../src/run/progress-tty.js';
import type { ProgressView } from '../../src/run/progress-view.js';

const view = (done: number): ProgressView => ({
  label: { id: 'hotpotqa-react-offline500-m-12345678', short: 'hotpotqa react' },
  state: {
    done,
    total: 40,
    scored: done,
    metricLabel: 'EM',
    metricValues: Array.from({ length: done }, () => 1),
    errors: 0,
    errorsBySource: {},
    retries: 0,
    tokens: 1000 * done,
    cost: 0,
  },
  elapsedSec: done,
  etaSec: 40 - done,
});

let renderer: TerminalRenderer | undefined;
afterEach(() => renderer?.finish(view(0), true));

describe('the terminal block after Ctrl-Z and fg', () => {
  it('is drawn anew below the cursor on SIGCONT, then redrawn in place again', () => {
    const writes: string[] = [];
    const tty = { isTTY: true, columns: 80, rows: 24, write: (s: string) => (writes.push(s), true) };
    let done = 1;
    renderer = new TerminalRenderer(tty, () => view(done));
    renderer.start(view(done));
    done = 2;
    renderer.update(view(done), true);
    const cursorUp = /\x1b\[\d*A/;
    expect(writes.at(-1)).toMatch(cursorUp); // an ordinary redraw moves up over the block
    const before = writes.length;
    done = 3;
    process.emit('SIGCONT');
    const afterResume = writes.slice(before).join('');
    expect(afterResume).toMatch(/ 3\/40 /);
    expect(afterResume).not.toMatch(cursorUp);
    expect(afterResume).not.toMatch(/\x1b\[2K/);
    done = 4;
    renderer.update(view(done), true);
    expect(writes.at(-1)).toMatch(/ 4\/40 /);
  });

  it('a redraw long after the last one (the timer redraws every 500 ms: the process was stopped) draws anew below', () => {
    const writes: string[] = [];
    const tty = { isTTY: true, columns: 80, rows: 24, write: (s: string) => (writes.push(s), true) };
    let t = 1_000_000;
    renderer = new TerminalRenderer(
      tty,
      () => view(1),
      () => t,
    );
    renderer.start(view(1));
    t += 500;
    renderer.update(view(2), true);
    expect(writes.at(-1)).toMatch(/\x1b\[\d*A/);
    t += 30_000; // stopped by Ctrl-Z, resumed by fg; the timer's redraw comes before SIGCONT is handled
    renderer.update(view(3), true);
    expect(writes.at(-1)).toMatch(/ 3\/40 /);
    expect(writes.at(-1)).not.toMatch(/\x1b\[\d*A|\x1b\[2K/);
    // SIGCONT then: the block drawn anew is redrawn in place, not drawn a second time below.
    t += 10;
    process.emit('SIGCONT');
    expect(writes.at(-1)).toMatch(/\x1b\[\d*A|\x1b\[2K/);
  });

  it('stops listening when the run ends', () => {
    const tty = { isTTY: true, columns: 80, rows: 24, write: () => true };
    const n = process.listenerCount('SIGCONT');
    renderer = new TerminalRenderer(tty, () => view(1));
    expect(process.listenerCount('SIGCONT')).toBe(n + 1);
    renderer.finish(view(1), false);
    expect(process.listenerCount('SIGCONT')).toBe(n);
  });
});
