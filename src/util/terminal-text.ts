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

/**
 * Whether a display redrawn in place (cursor moves, rows rewritten) suits this environment: not a
 * dumb terminal (TERM=dumb: Emacs' shell, a plain console) and not a CI job (CI set, as CI services
 * set it: a job that gives the command a pseudo-terminal still keeps a log, which must read as lines).
 */
export function redrawAllowed(env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.TERM === 'dumb') return false;
  const ci = env.CI?.trim().toLowerCase();
  return ci === undefined || ci === '' || ci === '0' || ci === 'false';
}

/** A stream as the progress display and status lines write to it. */
export interface DisplayStream {
  write(s: string): boolean;
  readonly isTTY: boolean;
  readonly columns?: number;
  readonly rows?: number;
}

/**
 * `stream` for a display that redraws on a terminal (the progress block, a status line): a terminal
 * only when it is one and redrawAllowed(env), so a dumb terminal and CI get the plain lines a log
 * gets. Width and height are read through to the stream, so a resized window is seen.
 */
export function displayStream(
  stream: { write(s: string): boolean; isTTY?: boolean; columns?: number; rows?: number },
  env: Readonly<Record<string, string | undefined>> = process.env,
): DisplayStream {
  const isTTY = stream.isTTY === true && redrawAllowed(env);
  return {
    write: (s) => stream.write(s),
    isTTY,
    get columns() {
      return stream.columns;
    },
    get rows() {
      return stream.rows;
    },
  };
}
