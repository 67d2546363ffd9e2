// The terminal's status line (src/cli/status-line.ts): drawn in place on a terminal at a bounded rate,
// never wider than it, cleared before other output; nothing at all when the stream is not a terminal.
import { describe, expect, it } from 'vitest';
import { statusLine } from '../../src/cli/status-line.js';

function fakeStream(isTTY: boolean, columns = 30) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, columns, write: (s: string) => (writes.push(s), true) } };
}

describe('statusLine', () => {
  it('writes nothing when the stream is not a terminal, or when turned off', () => {
    for (const [tty, enabled] of [
      [false, true],
      [true, false],
    ] as const) {
      const { writes, stream } = fakeStream(tty);
      const s = statusLine(stream, { enabled });
      s.show('reading', true);
      s.clear();
      expect(s.enabled).toBe(false);
      expect(writes).toEqual([]);
    }
  });

  it('redraws one row in place, at most every minIntervalMs unless forced, cut to the width', () => {
    let t = 0;
    const { writes, stream } = fakeStream(true, 20);
    const s = statusLine(stream, { minIntervalMs: 100, now: () => t });
    s.show('reading 1 of 9');
    t = 50;
    s.show('reading 2 of 9'); // too soon: skipped
    s.show('computing tables', true);
    t = 200;
    s.show('writing report.html: 12.5 MB written so far');
    expect(writes).toEqual(['\rreading 1 of 9\x1b[K', '\rcomputing tables\x1b[K', '\rwriting report.htm…\x1b[K']);
    s.clear();
    s.clear(); // already clear: nothing more
    expect(writes.slice(3)).toEqual(['\r\x1b[K']);
  });
});
