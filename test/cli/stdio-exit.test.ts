// The end of a command (src/cli/stdio.ts): the process exits as soon as main is done, but only once
// stdout and stderr have drained into pipes that are read late; a write that failed decides the status
// of a command that otherwise succeeded: a reader that closed the pipe 141 (as SIGPIPE would), a full
// disk behind a redirect 74 with one line saying so (/dev/full stands for it). Driven through a small
// script on the real module, and through the CLI's `export`.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qaRecords, writeRun } from '../report/run-folders.js';
import { bin, cleanEnv, repo } from '../run/cli-helpers.js';

let tmp: string;
let script: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-stdio-exit-'));
  script = path.join(tmp, 'writer.mts');
  // Writes 1 MiB to each stream STREAMS names, leaves a timer that would hold Node for a minute, and
  // ends as the bin does, with main's status CODE.
  fs.writeFileSync(
    script,
    `import { watchStdio, exitWhenFlushed } from ${JSON.stringify(pathToFileURL(path.join(repo, 'src/cli/stdio.ts')).href)};
watchStdio();
const line = 'x'.repeat(1023) + '\\n';
const streams = process.env.STREAMS.split(',');
for (let i = 0; i < 1024; i++) for (const s of streams) process[s].write(line);
setTimeout(() => {}, 60_000);
await exitWhenFlushed(Number(process.env.CODE));
`,
  );
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const MiB = 1024 * 1024;

function writer(env: Record<string, string>, out: { stdout?: 'pipe' | number; stderr?: 'pipe' | number } = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: repo,
    env: cleanEnv(env),
    stdio: ['ignore', out.stdout ?? 'pipe', out.stderr ?? 'pipe'],
  });
}

/** Exit code and bytes read, the streams in `late` read only after 500 ms; `close` ends stdout's reading at once. */
async function collect(child: ChildProcess, opts: { late?: ('stdout' | 'stderr')[]; close?: boolean } = {}) {
  const bytes = { stdout: 0, stderr: 0 };
  let text = '';
  const exited = new Promise<number | null>((r) => child.on('exit', r));
  const ended = (s: NodeJS.ReadableStream | null) =>
    s ? new Promise((r) => ['end', 'error', 'close'].forEach((e) => s.once(e, r))) : Promise.resolve();
  const streams = Promise.all([ended(child.stdout), ended(child.stderr)]);
  child.stdout?.on('data', (d: Buffer) => (bytes.stdout += d.length));
  child.stderr?.on('data', (d: Buffer) => {
    bytes.stderr += d.length;
    if (text.length < 2000) text += d.toString();
  });
  if (opts.close) child.stdout?.destroy();
  for (const s of opts.late ?? []) child[s]?.pause();
  await new Promise((r) => setTimeout(r, 500));
  for (const s of opts.late ?? []) child[s]?.resume();
  const code = await exited;
  await Promise.race([streams, new Promise((r) => setTimeout(r, 5000))]); // what was cut short never ends
  return { code, ...bytes, text };
}

/** /dev/full, where every write fails with ENOSPC (Linux), opened for writing; undefined elsewhere. */
function devFull(): number | undefined {
  try {
    return fs.openSync('/dev/full', 'w');
  } catch {
    return undefined;
  }
}

describe('the end of a command', () => {
  it.each(['stdout', 'stderr'] as const)('waits for %s to drain into a pipe read late, not for a leftover timer', async (late) => {
    const t0 = Date.now();
    const r = await collect(writer({ STREAMS: 'stdout,stderr', CODE: '5' }), { late: [late] });
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 5, stdout: MiB, stderr: MiB });
    expect(Date.now() - t0).toBeLessThan(30_000); // not held by the timer
  });

  it('a reader that closes stdout early: 141 when the command succeeded, silently; its own status otherwise', async () => {
    const ok = await collect(writer({ STREAMS: 'stdout', CODE: '0' }), { close: true });
    expect({ code: ok.code, text: ok.text }).toEqual({ code: 141, text: '' });
    const failed = await collect(writer({ STREAMS: 'stdout', CODE: '3' }), { close: true });
    expect(failed.code).toBe(3);
  });

  it('a full disk behind stdout: 74 and one line; behind stderr: 74, stdout whole', async (ctx) => {
    const full = devFull();
    if (full === undefined) return ctx.skip();
    try {
      const out = await collect(writer({ STREAMS: 'stdout', CODE: '0' }, { stdout: full }));
      expect({ code: out.code, text: out.text }).toEqual({
        code: 74,
        text: 'react-repro: stdout: writing failed (ENOSPC): the output is incomplete\n',
      });
      const err = await collect(writer({ STREAMS: 'stdout,stderr', CODE: '0' }, { stderr: full }));
      expect({ code: err.code, stdout: err.stdout }).toEqual({ code: 74, stdout: MiB });
    } finally {
      fs.closeSync(full);
    }
  });

  it('`export` through the bin: whole into a pipe read late, 141 into one closed early', async () => {
    const results = path.join(tmp, 'results');
    // ~1.7 MB of lines: more than a pipe (a socket pair, ~208 KiB here) holds.
    const idx = Array.from({ length: 1500 }, (_, i) => i);
    writeRun(results, { runId: 'hotpotqa-react', method: 'react', indices: idx, records: qaRecords(idx, 'r'.repeat(idx.length)) });
    const exportCli = () =>
      spawn(process.execPath, [bin, 'export', results, '--format', 'jsonl'], {
        cwd: tmp,
        env: cleanEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    let out = '';
    const child = exportCli();
    child.stdout.on('data', (d: Buffer) => (out += d));
    const late = await collect(child, { late: ['stdout'] });
    expect(late.code).toBe(0);
    expect(late.stdout).toBeGreaterThan(1024 * 1024);
    expect(
      out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).idx),
    ).toEqual(idx);
    expect(late.text).toBe('react-repro: 1,500 episodes from 1 run\n');
    // Closed early: 141 and no count (the episodes were not all written).
    const closed = await collect(exportCli(), { close: true });
    expect({ code: closed.code, text: closed.text }).toEqual({ code: 141, text: '' });
  });
});
