// `report --out FILE` and `export --out FILE` through the real CLI when FILE is not a regular file: a
// character device or a named pipe (/dev/null, /dev/stdout, a FIFO) is written straight and stays
// what it is (a rename used to replace /dev/full, as root, with a regular file); a symbolic link's
// target is replaced and the link stays; a socket is refused with one line (exit 2); a full device
// is the usual one-line disk error (exit 74). The system's /dev/null, /dev/stdout and /dev/full are
// only written to, and only after the same command has been seen to leave a FIFO in a temp folder a
// FIFO (so a build without the fix fails there instead of replacing them).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, cleanEnv, runCli } from '../run/cli-helpers.js';
import { qaRecords, writeRun } from '../report/run-folders.js';

let tmp: string;
let results: string;
/** What each command writes to a regular file: the bytes every other target must receive. */
const expected: Record<string, string> = {};
const COMMANDS: Record<string, string[]> = {
  // --format: the names here (.plain, .fifo, .out) are no report format's extension (report-out-names.test.ts).
  report: ['report', '--format', 'md'],
  export: ['export', '--format', 'jsonl'],
};

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-out-devices-'));
  results = path.join(tmp, 'results');
  const idx = [0, 1, 2];
  writeRun(results, { runId: 'hotpotqa-react', method: 'react', indices: idx, records: qaRecords(idx, 'rrw') });
  for (const [name, args] of Object.entries(COMMANDS)) {
    const file = path.join(tmp, `${name}.plain`);
    const r = await runCli([...args, results, '--out', file], { cwd: tmp });
    expect(r.code, r.stderr).toBe(0);
    expected[name] = fs.readFileSync(file, 'utf8');
    expect(expected[name].length).toBeGreaterThan(100);
  }
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Reads a named pipe in another process (`cat`), as a reader of the output would; killable. */
function readFifo(p: string): { text: Promise<string>; kill(): void } {
  const child = spawn('cat', [p], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  return { text: new Promise((resolve) => child.on('close', () => resolve(out))), kill: () => child.kill() };
}

/** Makes a character device node at `p` that can be opened; the reason when it cannot be. */
function mknod(p: string, major: number, minor: number): string | undefined {
  try {
    execFileSync('mknod', ['-m', '666', p, 'c', String(major), String(minor)], { stdio: 'ignore' });
    fs.closeSync(fs.openSync(p, fs.constants.O_WRONLY));
  } catch (e) {
    return `cannot make a usable device node with mknod here (${(e as Error).message.split('\n')[0]})`;
  }
  return undefined;
}

/** `command --out fifo` with a reader on the pipe: the bytes read, the CLI's result; the FIFO must stay one. */
async function throughFifo(name: string, fifo: string) {
  const reader = readFifo(fifo);
  try {
    const r = await runCli([...COMMANDS[name], results, '--out', fifo], { cwd: tmp });
    // Without the fix the FIFO was renamed over (the reader then waits for ever): fail here.
    expect(fs.lstatSync(fifo).isFIFO(), `${name} replaced the FIFO ${fifo}`).toBe(true);
    return { r, text: await reader.text };
  } finally {
    reader.kill();
  }
}

/** The CLI with its stdout a pipe (`react-repro ... | cat`); its exit status ends stderr ("exit 0"). */
function throughPipe(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const script = '{ "$0" "$@"; echo "exit $?" >&2; } | cat';
  const child = spawn('sh', ['-c', script, process.execPath, bin, ...args], {
    cwd: tmp,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', () => resolve({ stdout, stderr })));
}

function charDevice(p: string): { rdev: number; ino: number } {
  const st = fs.lstatSync(p);
  expect(st.isCharacterDevice(), `${p} is no longer a character device`).toBe(true);
  return { rdev: st.rdev, ino: st.ino };
}

describe('--out FILE that is not a regular file', () => {
  for (const name of Object.keys(COMMANDS)) {
    it(`${name}: a named pipe is written straight to its reader and stays a pipe`, async () => {
      const fifo = path.join(tmp, `${name}.fifo`);
      execFileSync('mkfifo', [fifo]);
      const { r, text } = await throughFifo(name, fifo);
      expect(r.code, r.stderr).toBe(0);
      expect(text).toBe(expected[name]);
      expect(fs.readdirSync(tmp).filter((n) => n.includes('.tmp-'))).toEqual([]);
    });

    it(`${name}: a symbolic link's target is replaced, the link stays a link; a dangling link's target is written`, async () => {
      const dir = fs.mkdtempSync(path.join(tmp, `${name}-link-`));
      const target = path.join(dir, 'target.out');
      fs.writeFileSync(target, 'old\n');
      const link = path.join(dir, 'link.out');
      fs.symlinkSync('target.out', link);
      const r = await runCli([...COMMANDS[name], results, '--out', link], { cwd: tmp });
      expect(r.code, r.stderr).toBe(0);
      expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
      expect(fs.readlinkSync(link)).toBe('target.out');
      expect(fs.readFileSync(target, 'utf8')).toBe(expected[name]);
      const dangling = path.join(dir, 'dangling.out');
      fs.symlinkSync('made.out', dangling);
      const d = await runCli([...COMMANDS[name], results, '--out', dangling], { cwd: tmp });
      expect(d.code, d.stderr).toBe(0);
      expect(fs.lstatSync(dangling).isSymbolicLink()).toBe(true);
      expect(fs.readFileSync(path.join(dir, 'made.out'), 'utf8')).toBe(expected[name]);
      expect(fs.readdirSync(dir).sort()).toEqual(['dangling.out', 'link.out', 'made.out', 'target.out']);
    });

    it(`${name}: character devices made with mknod stay devices: null takes the output, full is exit 74 and one line`, async (ctx) => {
      const dir = fs.mkdtempSync(path.join(tmp, `${name}-dev-`));
      const nul = path.join(dir, 'null');
      const full = path.join(dir, 'full');
      const why = mknod(nul, 1, 3) ?? mknod(full, 1, 7);
      if (why) return ctx.skip(why);
      const before = charDevice(nul);
      const r = await runCli([...COMMANDS[name], results, '--out', nul], { cwd: tmp });
      expect(r.code, r.stderr).toBe(0);
      expect(charDevice(nul)).toEqual(before);
      const f = await runCli([...COMMANDS[name], results, '--out', full], { cwd: tmp });
      charDevice(full);
      expect(f.code).toBe(74);
      // One line: no count of what was written before a write that failed.
      const lines = f.stderr.split('\n').filter((l) => l);
      expect(lines).toEqual([
        // A device holds what reached it: nothing resumes it, so no "run the same command again" (out-advice.test.ts).
        `react-repro: ${full}: writing the ${name} failed (ENOSPC): no space left on the device: the output is incomplete (written straight to a device, a pipe or a shell redirect, which no command resumes); write it to a file on a disk with space`,
      ]);
      expect(fs.readdirSync(dir).sort()).toEqual(['full', 'null']);
    });

    it(`${name}: a socket is refused with one line naming the flag and the path (exit 2), nothing written`, async () => {
      const sock = path.join(tmp, `${name}.sock`);
      const server = net.createServer();
      await new Promise<void>((resolve) => server.listen(sock, resolve));
      try {
        const r = await runCli([...COMMANDS[name], results, '--out', sock], { cwd: tmp });
        expect(r.code).toBe(2);
        expect(r.stderr).toBe(
          `react-repro: --out: ${sock} is a socket; expected a regular file, a new file, a character device (such as /dev/null or /dev/stdout) or a named pipe\n`,
        );
        expect(r.stdout).toBe('');
        expect(fs.lstatSync(sock).isSocket()).toBe(true);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it(`${name}: /dev/null, /dev/stdout and /dev/full are written to and stay what they are`, async () => {
      // First a FIFO in the temp folder: a build that would rename over the system's devices fails here.
      const fifo = path.join(tmp, `${name}-guard.fifo`);
      execFileSync('mkfifo', [fifo]);
      const guard = await throughFifo(name, fifo);
      expect(guard.text).toBe(expected[name]);

      const nul = charDevice('/dev/null');
      const r = await runCli([...COMMANDS[name], results, '--out', '/dev/null'], { cwd: tmp });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
      expect(charDevice('/dev/null')).toEqual(nul);

      // /dev/stdout: a link to /proc/self/fd/1, here a pipe (runCli's own stdout is a socket pair)
      const stdoutLink = fs.lstatSync('/dev/stdout');
      const s = await throughPipe([...COMMANDS[name], results, '--out', '/dev/stdout']);
      expect(s.stderr).toMatch(/exit 0\n$/);
      expect(s.stdout).toBe(expected[name]);
      expect(fs.lstatSync('/dev/stdout').isSymbolicLink()).toBe(stdoutLink.isSymbolicLink());
      expect(fs.lstatSync('/dev/stdout').ino).toBe(stdoutLink.ino);

      // /dev/stdout redirected to a file by the shell (>>): written through the shell's descriptor, so it
      // appends, and the file stays the file the shell opened (a rename would have replaced it).
      const appended = path.join(tmp, `${name}-appended.txt`);
      fs.writeFileSync(appended, 'PREVIOUS\n');
      const ino = fs.statSync(appended).ino;
      execFileSync('sh', ['-c', '"$0" "$@" >> "$APPENDED"', process.execPath, bin, ...COMMANDS[name], results, '--out', '/dev/stdout'], {
        cwd: tmp,
        env: { ...cleanEnv(), APPENDED: appended },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      expect(fs.readFileSync(appended, 'utf8')).toBe('PREVIOUS\n' + expected[name]);
      expect(fs.statSync(appended).ino).toBe(ino);

      if (fs.existsSync('/dev/full')) {
        const full = charDevice('/dev/full');
        const f = await runCli([...COMMANDS[name], results, '--out', '/dev/full'], { cwd: tmp });
        expect(charDevice('/dev/full')).toEqual(full);
        expect(f.code).toBe(74);
        expect(f.stderr).toContain(`react-repro: /dev/full: writing the ${name} failed (ENOSPC): no space left on the device`);
      }
    });
  }
});
