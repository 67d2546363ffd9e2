// The end of a command: stdout and stderr drained, then exit at once, without waiting for Node to
// tear its heap down (~10–20 ms a command: bench/results-loop.md). Writes to them are asynchronous
// when they are pipes (Node on POSIX), so a failure arrives later as an 'error' event: the reader went
// away (EPIPE), a full disk behind a redirect (ENOSPC). Each is kept from the start (watchStdio) and
// turned into the exit status when the command is done, never dropped and never a crash mid-command.
import fs from 'node:fs';

type StdioName = 'stdout' | 'stderr';
const failures = new Map<StdioName, NodeJS.ErrnoException>();
let watching = false;

/** Keeps the first write error of stdout and of stderr for exitWhenFlushed; idempotent. */
export function watchStdio(): void {
  if (watching) return;
  watching = true;
  for (const name of ['stdout', 'stderr'] as const) {
    process[name].on('error', (e: NodeJS.ErrnoException) => {
      if (!failures.has(name)) failures.set(name, e);
    });
  }
}

/** Resolves once what was written to `stream` so far has left the process, or writing it failed. */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || !stream.writable || stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => {
    stream.write('', () => resolve());
  });
}

/**
 * Exits with `code` once stdout and stderr have drained. A write that failed decides the status when
 * the command itself succeeded: a reader that closed its pipe gives 141 silently, as a process killed
 * by SIGPIPE would (`| head`); a disk error (src/util/durable.ts says which codes are) gives its 74,
 * any other failure 1, each with one line on stderr while stderr still works.
 */
export async function exitWhenFlushed(code: number): Promise<never> {
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  await new Promise((resolve) => setImmediate(resolve)); // an error is emitted on the next tick
  process.exit(failures.size > 0 ? await statusAfterFailedWrites(code) : code);
}

const SIGPIPE_EXIT = 141;

async function statusAfterFailedWrites(code: number): Promise<number> {
  // Loaded only here: a command whose output arrived does not pay for it.
  const { DISK_EXIT_CODE, isDiskErrorCode } = await import('../util/durable.js');
  let status = code;
  const lines: string[] = [];
  for (const [name, e] of failures) {
    let exit = SIGPIPE_EXIT;
    if (e.code !== 'EPIPE') {
      exit = isDiskErrorCode(e.code) ? DISK_EXIT_CODE : 1;
      lines.push(`${name}: writing failed (${e.code ?? e.message}): the output is incomplete`);
    }
    if (status === 0) status = exit;
  }
  if (lines.length > 0 && !failures.has('stderr')) {
    try {
      fs.writeSync(2, lines.map((l) => `react-repro: ${l}\n`).join(''));
    } catch {
      // stderr is gone too: the status says it
    }
  }
  return status;
}
