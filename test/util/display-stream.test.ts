// Where a display redrawn in place may be drawn (src/util/terminal-text.ts redrawAllowed, displayStream):
// a terminal, but not a dumb one nor a CI job's pseudo-terminal, which get the plain lines of a log.
import { describe, expect, it } from 'vitest';
import { displayStream, redrawAllowed } from '../../src/util/terminal-text.js';

describe('redrawAllowed', () => {
  it('is off for TERM=dumb and for CI set as CI services set it', () => {
    expect(redrawAllowed({ TERM: 'xterm-256color' })).toBe(true);
    expect(redrawAllowed({})).toBe(true);
    expect(redrawAllowed({ TERM: 'dumb' })).toBe(false);
    for (const ci of ['true', '1', 'TRUE', 'yes']) expect(redrawAllowed({ TERM: 'xterm', CI: ci }), ci).toBe(false);
    for (const ci of ['', '0', 'false', 'False']) expect(redrawAllowed({ TERM: 'xterm', CI: ci }), ci).toBe(true);
  });
});

describe('displayStream', () => {
  const tty = () => {
    const writes: string[] = [];
    const s = { isTTY: true, columns: 80, rows: 24, write: (x: string) => (writes.push(x), true) };
    return { s, writes };
  };

  it('is a terminal only when the stream is one and redrawing is allowed', () => {
    expect(displayStream(tty().s, { TERM: 'xterm' }).isTTY).toBe(true);
    expect(displayStream(tty().s, { TERM: 'dumb' }).isTTY).toBe(false);
    expect(displayStream(tty().s, { TERM: 'xterm', CI: 'true' }).isTTY).toBe(false);
    expect(displayStream({ ...tty().s, isTTY: false }, { TERM: 'xterm' }).isTTY).toBe(false);
  });

  it('writes through and reads the size as it is now (a resized window)', () => {
    const { s, writes } = tty();
    const d = displayStream(s, { TERM: 'xterm' });
    d.write('a');
    s.columns = 50;
    s.rows = 10;
    expect(writes).toEqual(['a']);
    expect([d.columns, d.rows]).toEqual([50, 10]);
  });
});
