// Text from servers and models is data (a model's answer, an environment's observation or error body,
// a server's error message): before it reaches a terminal, every control character is made visible,
// so an answer cannot retitle the terminal, clear the screen, move the cursor or overwrite a line.
// One function, applied where such text is printed (error lines, log lines, trajectories).

/**
 * C0 controls but tab and newline (ESC starts every escape sequence), DEL, and the bidirectional
 * overrides and isolates (the "Trojan Source" characters). C1 code points (U+0080-U+009F) pass: the paper's own prompts hold them (the
 * released files' mojibake, "â\u0080\u0093" for an en dash, docs/protocol.md §4), and a UTF-8 terminal
 * does not start a sequence on them without an ESC.
 */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_WITH_NEWLINES = /[\u0000-\u0008\u000a-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g;

function visible(c: string): string {
  const code = c.codePointAt(0)!;
  if (c === '\r') return '\\r';
  if (c === '\n') return '\\n';
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` safe to write to a terminal: ESC, CR, backspace, BEL, DEL and bidi controls become visible escapes (`\x1b`, `\r`...); tabs and newlines stay unless `oneLine` (then `\n` too).
 */
export function forTerminal(text: string, opts: { oneLine?: boolean } = {}): string {
  return String(text).replace(opts.oneLine ? CONTROL_WITH_NEWLINES : CONTROL, visible);
}

/** A terminal's width in columns; 80 when it does not say (a stream that is not a terminal). */
export function terminalColumns(out: { columns?: number }): number {
  return out.columns && out.columns > 0 ? out.columns : 80;
}
