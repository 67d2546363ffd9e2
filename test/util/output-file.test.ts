// writeOutputFile, the one writer of a file the user names with --out (report, export, bundle): a
// regular file or a new path is replaced atomically; a symbolic link's target is replaced and the link
// stays a link; a character device or a named pipe is written straight and stays what it is (a rename
// over /dev/null or /dev/full used to put a regular file in its place); a socket or a block device is
// refused (exit 2) with nothing written. Device nodes are made with mknod in a temp folder (root);
// each such case is skipped, with the reason, where mknod is not permitted.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/errors.js';
import { checkOutputPath, DiskError, outputTarget, writeOutputFile } from '../../src/util/durable.js';

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'output-file-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Makes a device node (`c` or `b`, major, minor) at `p` that can be opened; the reason when it cannot be. */
function mknod(p: string, type: 'c' | 'b', major: number, minor: number): string | undefined {
  try {
    execFileSync('mknod', ['-m', '666', p, type, String(major), String(minor)], { stdio: 'ignore' });
  } catch (e) {
    return `mknod is not permitted here (${(e as Error).message.split('\n')[0]})`;
  }
  if (type === 'b') return undefined; // never opened: only refused
  try {
    fs.closeSync(fs.openSync(p, fs.constants.O_WRONLY));
  } catch (e) {
    return `a device node made in ${tmp} cannot be opened (a nodev mount?): ${(e as Error).message}`;
  }
  return undefined;
}

/** Reads a named pipe in another process (`cat`), as a reader of the output would; killable. */
function readFifo(p: string): { text: Promise<string>; kill(): void } {
  const child = spawn('cat', [p], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  return { text: new Promise((resolve) => child.on('close', () => resolve(out))), kill: () => child.kill() };
}

function rdevOf(p: string): number {
  return fs.statSync(p).rdev;
}

/** The error `f` throws (fails the test when it throws none). */
function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error');
}

describe('writeOutputFile', () => {
  it('a new path and a regular file: replaced atomically, as before', () => {
    const f = path.join(tmp, 'plain.md');
    expect(outputTarget(f, '--out')).toEqual({ kind: 'replace', path: f });
    writeOutputFile(f, 'one\n', { flag: '--out' });
    expect(fs.readFileSync(f, 'utf8')).toBe('one\n');
    writeOutputFile(f, ['two', '\n'], { flag: '--out' });
    expect(fs.readFileSync(f, 'utf8')).toBe('two\n');
    expect(fs.readdirSync(tmp).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('a symbolic link: its target is replaced and the link stays a link to the new content', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'link-'));
    fs.mkdirSync(path.join(dir, 'real'));
    const target = path.join(dir, 'real', 'target.md');
    fs.writeFileSync(target, 'old\n');
    const link = path.join(dir, 'link.md');
    fs.symlinkSync('real/target.md', link);
    // a link to the link, through a linked folder
    fs.symlinkSync('real', path.join(dir, 'folder'));
    const link2 = path.join(dir, 'link2.md');
    fs.symlinkSync('folder/../link.md', link2);
    expect(outputTarget(link, '--out')).toEqual({ kind: 'replace', path: fs.realpathSync(target) });
    writeOutputFile(link, 'new\n', { flag: '--out' });
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readlinkSync(link)).toBe('real/target.md');
    expect(fs.readFileSync(target, 'utf8')).toBe('new\n');
    writeOutputFile(link2, 'newer\n', { flag: '--out' });
    expect(fs.lstatSync(link2).isSymbolicLink()).toBe(true);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(target, 'utf8')).toBe('newer\n');
    expect(fs.readdirSync(dir).sort()).toEqual(['folder', 'link.md', 'link2.md', 'real']);
  });

  it('a dangling symbolic link: the path it names is written, the link stays', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'dangling-'));
    fs.mkdirSync(path.join(dir, 'sub'));
    const link = path.join(dir, 'out.jsonl');
    fs.symlinkSync('sub/made.jsonl', link);
    expect(checkOutputPath(link, '--out')).toBe(link);
    writeOutputFile(link, '{}\n', { flag: '--out' });
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(path.join(dir, 'sub', 'made.jsonl'), 'utf8')).toBe('{}\n');
    // a dangling link into a missing folder: the check names the folder, as for any --out file
    const bad = path.join(dir, 'bad.md');
    fs.symlinkSync('missing/x.md', bad);
    expect(() => checkOutputPath(bad, '--out')).toThrow(/does not exist/);
  });

  it('a named pipe: written straight to its reader, and stays a pipe', async () => {
    const fifo = path.join(tmp, 'pipe');
    execFileSync('mkfifo', [fifo]);
    expect(outputTarget(fifo, '--out')).toEqual({ kind: 'stream', path: fifo });
    expect(checkOutputPath(fifo, '--out')).toBe(fifo);
    const reader = readFifo(fifo);
    try {
      writeOutputFile(fifo, ['line 1\n', 'line 2\n'], { flag: '--out', what: 'the report' });
    } finally {
      if (!fs.lstatSync(fifo).isFIFO()) reader.kill();
    }
    expect(await reader.text).toBe('line 1\nline 2\n');
    expect(fs.lstatSync(fifo).isFIFO()).toBe(true);
    expect(fs.readdirSync(tmp).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('a pipe whose reader goes away: one line, exit status 141 (as SIGPIPE), the pipe stays', () => {
    const fifo = path.join(tmp, 'pipe-closed');
    execFileSync('mkfifo', [fifo]);
    const child = spawn('head', ['-c', '1', fifo], { stdio: 'ignore' });
    const e = thrown(() => writeOutputFile(fifo, 'x'.repeat(8 << 20), { flag: '--out', what: 'the export' }));
    child.kill();
    expect(e).toBeInstanceOf(UserError);
    expect((e as UserError).exitCode).toBe(141);
    expect((e as Error).message).toBe(
      `${fifo}: writing the export failed (EPIPE): the reader of the pipe went away; the output is incomplete`,
    );
    expect(fs.lstatSync(fifo).isFIFO()).toBe(true);
  });

  it('/dev/null: written, and still the character device it was', () => {
    const before = fs.statSync('/dev/null');
    expect(before.isCharacterDevice()).toBe(true);
    expect(outputTarget('/dev/null', '--out')).toEqual({ kind: 'stream', path: '/dev/null' });
    expect(checkOutputPath('/dev/null', '--out')).toBe('/dev/null');
    writeOutputFile('/dev/null', 'discarded\n', { flag: '--out' });
    writeOutputFile('/dev/null', ['a', 'b'], { flag: '--out' });
    const after = fs.lstatSync('/dev/null');
    expect(after.isCharacterDevice()).toBe(true);
    expect(after.rdev).toBe(before.rdev);
    expect(after.ino).toBe(before.ino);
  });

  it('a character device made with mknod (null): written straight, still a device, no temp file', (ctx) => {
    const dir = fs.mkdtempSync(path.join(tmp, 'devnull-'));
    const dev = path.join(dir, 'null');
    const why = mknod(dev, 'c', 1, 3);
    if (why) return ctx.skip(why);
    const rdev = rdevOf(dev);
    writeOutputFile(dev, 'x'.repeat(3 << 20), { flag: '--out' });
    expect(fs.lstatSync(dev).isCharacterDevice()).toBe(true);
    expect(rdevOf(dev)).toBe(rdev);
    expect(fs.readdirSync(dir)).toEqual(['null']);
  });

  it('a full device (mknod 1 7, as /dev/full): the disk error, exit 74 and one line; still a device', (ctx) => {
    const dir = fs.mkdtempSync(path.join(tmp, 'devfull-'));
    const dev = path.join(dir, 'full');
    const why = mknod(dev, 'c', 1, 7);
    if (why) return ctx.skip(why);
    const e = thrown(() => writeOutputFile(dev, 'report\n', { flag: '--out', what: 'the report' }));
    expect(e).toBeInstanceOf(DiskError);
    expect((e as DiskError).exitCode).toBe(74);
    expect((e as DiskError).code).toBe('ENOSPC');
    expect((e as Error).message).toMatch(new RegExp(`^${dev}: writing the report failed \\(ENOSPC\\): no space left on the device`));
    expect((e as Error).message).not.toContain('\n');
    const chunks = thrown(() => writeOutputFile(dev, ['a', 'b'], { flag: '--out' }));
    expect((chunks as DiskError).code).toBe('ENOSPC');
    expect(fs.lstatSync(dev).isCharacterDevice()).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(['full']);
  });

  it('a socket or a block device: refused with one line naming the flag and the path (exit 2), nothing written', async (ctx) => {
    const dir = fs.mkdtempSync(path.join(tmp, 'refused-'));
    const sock = path.join(dir, 'sock');
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(sock, resolve));
    try {
      for (const f of [() => outputTarget(sock, 'bundle --out'), () => checkOutputPath(sock, 'bundle --out')]) {
        const e = thrown(f);
        expect(e).toBeInstanceOf(UserError);
        expect((e as UserError).exitCode).toBe(2);
        expect((e as Error).message).toBe(
          `bundle --out: ${sock} is a socket; expected a regular file, a new file, a character device (such as /dev/null or /dev/stdout) or a named pipe`,
        );
      }
      expect(() => writeOutputFile(sock, 'x', { flag: '--out' })).toThrow(/^--out: .* is a socket; expected/);
      expect(fs.lstatSync(sock).isSocket()).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    // a link to a folder, and a loop of links
    fs.symlinkSync(dir, path.join(dir, 'to-folder'));
    expect(() => writeOutputFile(path.join(dir, 'to-folder'), 'x', { flag: '--out' })).toThrow(/^--out: .* is a folder; name a file$/);
    fs.symlinkSync('loop-b', path.join(dir, 'loop-a'));
    fs.symlinkSync('loop-a', path.join(dir, 'loop-b'));
    const loop = thrown(() => writeOutputFile(path.join(dir, 'loop-a'), 'x', { flag: '--out' }));
    expect((loop as UserError).exitCode).toBe(2);
    expect((loop as Error).message).toMatch(/^--out: .*loop-a is a loop of symbolic links; expected/);
    expect(fs.readlinkSync(path.join(dir, 'loop-a'))).toBe('loop-b');
    const block = path.join(dir, 'block');
    const why = mknod(block, 'b', 7, 0);
    if (why) return ctx.skip(why);
    const e = thrown(() => writeOutputFile(block, 'x', { flag: '--out' }));
    expect((e as UserError).exitCode).toBe(2);
    expect((e as Error).message).toBe(
      `--out: ${block} is a block device; expected a regular file, a new file, a character device (such as /dev/null or /dev/stdout) or a named pipe`,
    );
    expect(fs.lstatSync(block).isBlockDevice()).toBe(true);
  });
});
