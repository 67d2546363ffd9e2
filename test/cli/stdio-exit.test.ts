// The end of a command (src/cli/stdio.ts): the process exits as soon as main is done, but only once
// stdout and stderr have drained into pipes that are read late; a write that failed decides the status
// of a command that otherwise succeeded: a reader that closed the pipe 141 (as SIGPIPE would), a full
// disk behind a redirect 74 with one line saying so. Driven through a small script on the real module,
// and through the CLI's `export`.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
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

function writer(env: Record<string, string>, stdout: 'pipe' | number = 'pipe'): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', script], { cwd: repo, env: cleanEnv(env), stdio: ['ignore', stdout, 'pipe'] });
}

/** Exit code and bytes read, the streams in `late` read only after 500 ms; `close` ends stdout's reading at once. */
async function collect(child: ChildProcess, opts: { late?: ('stdout' | 'stderr')[]; close?: boolean } = {}) {
  const bytes = { stdout: 0, stderr: 0 };
  let stderr = '';
  const exited = new Promise<number | null>((r) => child.on('exit', r));
  const ended = (s: NodeJS.ReadableStream | null) =>
    s ? new Promise((r) => ['end', 'error', 'close'].forEach((e) => s.once(e, r))) : Promise.resolve();
  const streams = Promise.all([ended(child.stdout), ended(child.stderr)]);
  child.stdout?.on('data', (d: Buffer) => (bytes.stdout += d.length));
  child.stderr?.on('data', (d: Buffer) => {
    bytes.stderr += d.length;
    if (stderr.length < 2000) stderr += d.toString();
  });
  if (opts.close) child.stdout?.destroy();
  for (const s of opts.late ?? []) child[s]?.pause();
  await new Promise((r) => setTimeout(r, 500));
  for (const s of opts.late ?? []) child[s]?.resume();
  const code = await exited;
  await Promise.race([streams, new Promise((r) => setTimeout(r, 5000))]); // what was cut short never ends
  return { code, ...bytes, stderr };
}

describe('the end of a command', () => {
  it.each(['stdout', 'stderr'] as const)('waits for %s to drain into a pipe read late, not for a leftover timer', async (late) => {
    const t0 = Date.now();
    const r = await collect(writer({ STREAMS: 'stdout,stderr', CODE: '5' }), { late: [late] });
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr.length > 0 ? 'bytes' : '' }).toEqual({
      code: 5,
      stdout: MiB,
      stderr: 'bytes',
    });
    expect(Date.now() - t0).toBeLessThan(30_000); // not held by the timer
  });

  it('a reader that closes stdout early: 141 when the command succeeded, silently; its own status otherwise', async () => {
    const ok = await collect(writer({ STREAMS: 'stdout', CODE: '0' }), { close: true });
    expect({ code: ok.code, stderr: ok.stderr }).toEqual({ code: 141, stderr: '' });
    const failed = await collect(writer({ STREAMS: 'stdout', CODE: '3' }), { close: true });
    expect(failed.code).toBe(3);
  });

  it('a full disk behind stdout: 74 and one line naming stdout and what to do', async (ctx) => {
    if (process.platform !== 'linux' || process.getuid?.() !== 0) return ctx.skip();
    const mnt = path.join(tmp, 'small');
    fs.mkdirSync(mnt);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt], { stdio: 'ignore' });
    } catch {
      return ctx.skip();
    }
    try {
      const fd = fs.openSync(path.join(mnt, 'out.txt'), 'w');
      const r = await collect(writer({ STREAMS: 'stdout', CODE: '0' }, fd));
      fs.closeSync(fd);
      expect(r.code).toBe(74);
      expect(r.stderr).toBe(
        'react-repro: stdout: writing failed (ENOSPC): no space left on the device: free some space, then run the same command again (it resumes)\n',
      );
    } finally {
      execFileSync('umount', [mnt]);
    }
  });

  it('`export` through the bin: whole into a pipe read late, 141 into one closed early', async () => {
    const results = path.join(tmp, 'results');
    const idx = Array.from({ length: 200 }, (_, i) => i);
    writeRun(results, { runId: 'hotpotqa-react', method: 'react', indices: idx, records: qaRecords(idx, 'r'.repeat(200)) });
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
    expect(late.stdout).toBeGreaterThan(64 * 1024); // more than a pipe holds
    expect(
      out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).idx),
    ).toEqual(idx);
    const closed = await collect(exportCli(), { close: true });
    expect({ code: closed.code, stderr: closed.stderr }).toEqual({ code: 141, stderr: 'react-repro: 200 episodes from 1 run\n' });
  });
});
