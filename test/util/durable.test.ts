// Durable writes (src/util/durable.ts, README "Reliability"): short writes are completed, a failed append leaves
// the file as it was, an atomic replace leaves the old or the new content and no temp file, disk
// errors are one-line DiskErrors naming the path; and, where root can mount one, the same on a real
// 64 KiB tmpfs filled to the last byte.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendRecord,
  DISK_EXIT_CODE,
  DiskError,
  removeStaleTempFiles,
  replaceFileAtomic,
  tempPathFor,
  truncateTornTail,
  writeAll,
  type WriteFn,
} from '../../src/util/durable.js';
import { UserError } from '../../src/errors.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'durable-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28 });
/** Writes at most `chunk` bytes per call (a short write every time). */
const dribble =
  (chunk: number, calls: number[] = []): WriteFn =>
  (fd, buf, off, len, pos) => {
    const n = fs.writeSync(fd, buf, off, Math.min(chunk, len), pos);
    calls.push(n);
    return n;
  };
/** Short writes, then ENOSPC once `limit` bytes have gone through. */
const fillsUpAt =
  (limit: number): WriteFn =>
  (fd, buf, off, len, pos) => {
    if (limit <= 0) throw enospc();
    const n = fs.writeSync(fd, buf, off, Math.min(3, len, limit), pos);
    limit -= n;
    return n;
  };

describe('writeAll', () => {
  it('loops over short writes until every byte is written', () => {
    const f = path.join(tmp, 'short.txt');
    const fd = fs.openSync(f, 'w');
    const calls: number[] = [];
    const text = 'é'.repeat(50) + ' the end';
    writeAll(fd, text, { write: dribble(3, calls) });
    fs.closeSync(fd);
    expect(fs.readFileSync(f, 'utf8')).toBe(text);
    expect(calls.length).toBe(Math.ceil(Buffer.byteLength(text) / 3));
  });

  it('writes at a position (pwrite) across short writes', () => {
    const f = path.join(tmp, 'pos.txt');
    fs.writeFileSync(f, 'aaaaaaaaaa');
    const fd = fs.openSync(f, 'r+');
    writeAll(fd, 'XYZW', { position: 3, write: dribble(1) });
    fs.closeSync(fd);
    expect(fs.readFileSync(f, 'utf8')).toBe('aaaXYZWaaa');
  });

  it('ENOSPC mid-way: a DiskError naming the path and the remedy', () => {
    const f = path.join(tmp, 'full.txt');
    const fd = fs.openSync(f, 'w');
    const err = (() => {
      try {
        writeAll(fd, 'x'.repeat(100), { write: fillsUpAt(10), path: f });
      } catch (e) {
        return e;
      }
    })() as DiskError;
    fs.closeSync(fd);
    expect(err).toBeInstanceOf(DiskError);
    expect(err).toBeInstanceOf(UserError);
    expect(err.exitCode).toBe(DISK_EXIT_CODE);
    expect(err.message).toBe(
      `${f}: writing failed (ENOSPC): no space left on the device: free some space, then run the same command again (it resumes)`,
    );
    expect(err.message).not.toContain('\n');
  });

  it('a write that returns 0 is a full device, not an endless loop', () => {
    const fd = fs.openSync(path.join(tmp, 'zero.txt'), 'w');
    expect(() => writeAll(fd, 'abc', { write: () => 0, path: 'zero.txt' })).toThrow(/zero\.txt: writing failed \(ENOSPC\)/);
    fs.closeSync(fd);
  });
});

describe('appendRecord', () => {
  it('appends whole lines; on ENOSPC mid-line the file is cut back to its previous bytes', () => {
    const f = path.join(tmp, 'log.jsonl');
    fs.writeFileSync(f, '{"idx":0}\n{"idx":1}\n');
    const fd = fs.openSync(f, 'a');
    const before = fs.readFileSync(f);
    const err = (() => {
      try {
        appendRecord(fd, f, JSON.stringify({ idx: 2, pad: 'p'.repeat(200) }), { write: fillsUpAt(50), what: 'the run log' });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toBeInstanceOf(DiskError);
    expect(err!.message).toMatch(
      new RegExp(`^${f.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: appending to the run log failed \\(ENOSPC\\): `),
    );
    expect(fs.readFileSync(f)).toEqual(before);
    appendRecord(fd, f, '{"idx":2}', { write: dribble(2), fsync: true });
    fs.closeSync(fd);
    expect(fs.readFileSync(f, 'utf8')).toBe('{"idx":0}\n{"idx":1}\n{"idx":2}\n');
  });

  it('other errors pass through unchanged (after the cut-back)', () => {
    const f = path.join(tmp, 'log2.jsonl');
    fs.writeFileSync(f, 'a\n');
    const fd = fs.openSync(f, 'a');
    const boom = new Error('boom');
    let n = 0;
    const w: WriteFn = (d, b, o, l, p) => {
      if (n++ > 0) throw boom;
      return fs.writeSync(d, b, o, 1, p);
    };
    expect(() => appendRecord(fd, f, 'bcdef', { write: w })).toThrow(boom);
    fs.closeSync(fd);
    expect(fs.readFileSync(f, 'utf8')).toBe('a\n');
  });
});

describe('truncateTornTail', () => {
  it('cuts a last line without "\\n", keeps whole files whole', () => {
    const f = path.join(tmp, 'torn.jsonl');
    fs.writeFileSync(f, '{"a":1}\n{"b":2}\n{"c":');
    expect(truncateTornTail(f)).toBe(5);
    expect(fs.readFileSync(f, 'utf8')).toBe('{"a":1}\n{"b":2}\n');
    expect(truncateTornTail(f)).toBe(0);
    fs.writeFileSync(f, 'no newline at all');
    expect(truncateTornTail(f)).toBe(17);
    expect(fs.readFileSync(f, 'utf8')).toBe('');
    expect(truncateTornTail(path.join(tmp, 'absent'))).toBe(0);
  });
  it('finds the last "\\n" beyond one read block', () => {
    const f = path.join(tmp, 'big-torn.jsonl');
    fs.writeFileSync(f, 'x\n' + 'y'.repeat(200_000));
    expect(truncateTornTail(f)).toBe(200_000);
    expect(fs.readFileSync(f, 'utf8')).toBe('x\n');
  });
});

describe('replaceFileAtomic', () => {
  const temps = (dir: string) => fs.readdirSync(dir).filter((n) => n.includes('.tmp-'));

  it('replaces the content; a failure keeps the old content and leaves no temp file', () => {
    const f = path.join(tmp, 'manifest.json');
    replaceFileAtomic(f, '{"v":1}');
    expect(fs.readFileSync(f, 'utf8')).toBe('{"v":1}');
    const err = (() => {
      try {
        replaceFileAtomic(f, JSON.stringify({ v: 2, big: 'b'.repeat(10_000) }), { write: fillsUpAt(8192), what: 'the manifest' });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toBeInstanceOf(DiskError);
    expect(err!.message).toContain(`${f}: writing the manifest failed (ENOSPC)`);
    expect(fs.readFileSync(f, 'utf8')).toBe('{"v":1}');
    expect(temps(tmp)).toEqual([]);
    replaceFileAtomic(f, '{"v":3}', { write: dribble(2) });
    expect(fs.readFileSync(f, 'utf8')).toBe('{"v":3}');
    expect(temps(tmp)).toEqual([]);
  });

  it('writes chunks as their joined text: across buffer fills, a chunk larger than the buffer, a surrogate pair split between chunks', () => {
    const f = path.join(tmp, 'page.html');
    const chunks = ['<p>', 'é'.repeat(300_000), 'x'.repeat(2_000_000), 'a\ud83d', '\ude00b', '🙂', 'end\ud83d'];
    replaceFileAtomic(f, chunks, { write: dribble(100_000) });
    expect(fs.readFileSync(f)).toEqual(Buffer.from(chunks.join(''), 'utf8'));
  });

  it('ENOTDIR and EISDIR are one-line DiskErrors naming the path', () => {
    const file = path.join(tmp, 'plain-file');
    fs.writeFileSync(file, 'x');
    const under = path.join(file, 'manifest.json');
    expect(() => replaceFileAtomic(under, '{}')).toThrow(
      `${under}: writing the file failed (ENOTDIR): a part of this path is a file, not a folder: choose another path`,
    );
    const dir = path.join(tmp, 'a-folder');
    fs.mkdirSync(dir);
    expect(() => replaceFileAtomic(dir, '{}')).toThrow(DiskError);
    expect(() => replaceFileAtomic(dir, '{}')).toThrow(/a-folder: writing the file failed \(EISDIR\): this is a folder, not a file/);
    expect(temps(tmp)).toEqual([]);
  });
});

describe('removeStaleTempFiles', () => {
  it('removes the temp files of dead processes only', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'stale-'));
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(dead.stdout);
    const livePid = process.ppid;
    const names = [
      `db.sqlite.tmp-${deadPid}-abc123`,
      `db.sqlite.tmp-${deadPid}-abc123-shard`,
      `db.sqlite.tmp-${livePid}-def456`,
      `db.sqlite.tmp-${process.pid}-0a0b0c0d`, // our PID, but not made by this process: a previous container's
      'db.sqlite',
      'notes.tmp-txt',
    ];
    for (const n of names) fs.writeFileSync(path.join(dir, n), 'x');
    const mine = tempPathFor(path.join(dir, 'db.sqlite'));
    fs.writeFileSync(mine, 'in progress');
    fs.writeFileSync(`${mine}-shard`, 'in progress');
    expect(removeStaleTempFiles(dir, 'other').length).toBe(0);
    expect(removeStaleTempFiles(dir, 'db.sqlite').sort()).toEqual([names[0], names[1], names[3]].sort());
    expect(fs.readdirSync(dir).sort()).toEqual(
      [names[2], 'db.sqlite', 'notes.tmp-txt', path.basename(mine), `${path.basename(mine)}-shard`].sort(),
    );
  });
});

// A real full disk: a 64 KiB tmpfs (root only; skipped with the reason otherwise).
function tryMountTmpfs(dir: string): string | undefined {
  if (process.getuid?.() !== 0) return 'not running as root';
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (e) {
    return `mount -t tmpfs failed: ${String((e as { stderr?: Buffer }).stderr ?? e).trim()}`;
  }
}
const mnt = fs.mkdtempSync(path.join(os.tmpdir(), 'durable-tmpfs-'));
const skipReason = tryMountTmpfs(mnt);
afterAll(() => {
  if (!skipReason) execFileSync('umount', [mnt]);
  fs.rmSync(mnt, { recursive: true, force: true });
});

describe.skipIf(skipReason !== undefined)(`on a full 64 KiB tmpfs${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const log = path.join(mnt, 'episodes.jsonl');
  const manifest = path.join(mnt, 'manifest.json');
  const filler = path.join(mnt, 'filler');
  const record = (i: number) => JSON.stringify({ idx: i, traj: 't'.repeat(1500) });

  beforeAll(() => {
    replaceFileAtomic(manifest, JSON.stringify({ run: 'r1', items: 1 }));
    const fd = fs.openSync(log, 'a');
    for (let i = 0; i < 3; i++) appendRecord(fd, log, record(i));
    fs.closeSync(fd);
    // take every remaining byte
    const ff = fs.openSync(filler, 'w');
    try {
      for (;;) writeAll(ff, Buffer.alloc(4096, 1), { path: filler });
    } catch (e) {
      expect(e).toBeInstanceOf(DiskError);
    }
    fs.closeSync(ff);
  });

  it('appends: whole records or a DiskError, and the log stays readable', () => {
    const fd = fs.openSync(log, 'a');
    // the real fs.writeSync, recording what was asked and what the kernel wrote
    const calls: [asked: number, wrote: number][] = [];
    const spy: WriteFn = (d, b, o, l, p) => {
      const n = fs.writeSync(d, b, o, l, p);
      calls.push([l, n]);
      return n;
    };
    const sizes: number[] = [];
    let err: unknown;
    for (let i = 3; i < 50 && !err; i++) {
      const before = fs.fstatSync(fd).size;
      try {
        appendRecord(fd, log, record(i), { write: spy });
        sizes.push(fs.fstatSync(fd).size - before);
      } catch (e) {
        err = e;
      }
    }
    fs.closeSync(fd);
    expect(err).toBeInstanceOf(DiskError);
    expect((err as DiskError).code).toBe('ENOSPC');
    // the disk took part of the last record (a real short write) before refusing the rest
    expect(calls.some(([asked, wrote]) => wrote > 0 && wrote < asked)).toBe(true);
    expect(sizes.every((s) => s === record(0).length + 1)).toBe(true);
    expect((err as Error).message).toContain(`${log}: appending to the file failed (ENOSPC)`);
    const text = fs.readFileSync(log, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.idx)).toEqual([...Array(lines.length).keys()]);
  });

  it('replacing the manifest with a bigger one fails whole, then succeeds once space is freed', () => {
    const big = JSON.stringify({ run: 'r1', items: 2, pad: 'm'.repeat(20_000) });
    expect(() => replaceFileAtomic(manifest, big, { what: 'the manifest' })).toThrow(DiskError);
    expect(JSON.parse(fs.readFileSync(manifest, 'utf8'))).toEqual({ run: 'r1', items: 1 });
    expect(fs.readdirSync(mnt).filter((n) => n.includes('.tmp-'))).toEqual([]);
    fs.rmSync(filler);
    replaceFileAtomic(manifest, big);
    expect(JSON.parse(fs.readFileSync(manifest, 'utf8')).items).toBe(2);
    const fd = fs.openSync(log, 'a');
    const n = fs.readFileSync(log, 'utf8').trimEnd().split('\n').length;
    appendRecord(fd, log, record(n));
    fs.closeSync(fd);
    expect(
      fs
        .readFileSync(log, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l).idx),
    ).toEqual([...Array(n + 1).keys()]);
  });
});

describe('replaceFileAtomic with content written piece by piece', () => {
  it('writes every piece in order, and leaves the old file (no temp) when a piece fails', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'durable-chunks-'));
    const file = path.join(dir, 'report.html');
    const big = 'x'.repeat(700_000);
    replaceFileAtomic(
      file,
      (function* () {
        yield 'a';
        yield big;
        yield big;
        yield 'z';
      })(),
    );
    expect(fs.readFileSync(file, 'utf8')).toBe(`a${big}${big}z`);
    expect(() =>
      replaceFileAtomic(
        file,
        (function* () {
          yield big;
          yield big;
          throw new Error('renderer failed');
        })(),
      ),
    ).toThrow('renderer failed');
    expect(fs.readFileSync(file, 'utf8')).toBe(`a${big}${big}z`);
    expect(fs.readdirSync(dir)).toEqual(['report.html']);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
