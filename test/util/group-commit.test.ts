// The run log's group commit (src/util/group-commit.ts): every append is written whole at once and
// its promise resolves after an fsync; appends that arrive together share fsyncs; a failed write
// throws at once and leaves the file as it was; a failed fsync rejects the records it covered.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GroupCommitLog } from '../../src/util/group-commit.js';
import { DiskError } from '../../src/util/durable.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'group-commit-'));
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('GroupCommitLog', () => {
  it('writes each line whole at once and resolves every append after a shared fsync', async () => {
    const file = path.join(dir, 'log.jsonl');
    const log = new GroupCommitLog(fs.openSync(file, 'a'), file);
    const fsync = vi.spyOn(fs, 'fsync');
    const done = Array.from({ length: 50 }, (_, i) => log.append(JSON.stringify({ idx: i })));
    // written before any fsync completes: the bytes are in the file already
    expect(fs.readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(50);
    await Promise.all(done);
    // the first append starts an fsync; the 49 written meanwhile share the next one
    expect(fsync.mock.calls.length).toBe(2);
    log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe(Array.from({ length: 50 }, (_, i) => `{"idx":${i}}\n`).join(''));
  });

  it('a failed write throws at once and leaves the file as it was; later appends go on', async () => {
    const file = path.join(dir, 'log.jsonl');
    let fail = true;
    const write = (fd: number, buf: Uint8Array, off: number, len: number, pos: number | null) => {
      if (fail) {
        fs.writeSync(fd, buf, off, 3, pos);
        throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      }
      return fs.writeSync(fd, buf, off, len, pos);
    };
    const log = new GroupCommitLog(fs.openSync(file, 'a'), file, { what: 'the run log', write });
    expect(() => log.append('{"idx":1}')).toThrow(DiskError);
    expect(fs.readFileSync(file, 'utf8')).toBe('');
    fail = false;
    await log.append('{"idx":2}');
    log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('{"idx":2}\n');
  });

  it('a failed fsync rejects the appends it covered with a DiskError naming the file', async () => {
    const file = path.join(dir, 'log.jsonl');
    const log = new GroupCommitLog(fs.openSync(file, 'a'), file, { what: 'the run log' });
    vi.spyOn(fs, 'fsync').mockImplementation(((_fd: number, cb: (e: NodeJS.ErrnoException | null) => void) =>
      setImmediate(() => cb(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' })))) as unknown as typeof fs.fsync);
    const a = log.append('{"idx":1}');
    const b = log.append('{"idx":2}');
    await expect(a).rejects.toThrow(
      new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: appending to the run log failed \\(EIO\\)`),
    );
    await expect(b).rejects.toBeInstanceOf(DiskError);
    log.close();
  });

  it('tracks the file length: one fstat for many appends, and a failed write (cut back) is followed by whole lines', async () => {
    const file = path.join(dir, 'log.jsonl');
    fs.writeFileSync(file, '{"idx":0}\n');
    let fail = false;
    const write = (fd: number, buf: Uint8Array, off: number, len: number, pos: number | null) => {
      if (fail) {
        fs.writeSync(fd, buf, off, 4, pos);
        throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      }
      return fs.writeSync(fd, buf, off, len, pos);
    };
    const log = new GroupCommitLog(fs.openSync(file, 'a'), file, { what: 'the run log', write });
    const fstat = vi.spyOn(fs, 'fstatSync');
    const done = [log.append('{"idx":1}')];
    log.write('{"idx":2,"note":"é"}');
    log.write('{"idx":3}', { fsync: true });
    expect(fstat.mock.calls.length).toBe(1);
    fail = true;
    // cut back to the tracked length: the three lines before stay, no torn bytes
    expect(() => log.write('{"idx":4,"pad":"' + 'p'.repeat(100) + '"}')).toThrow(DiskError);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"idx":0}\n{"idx":1}\n{"idx":2,"note":"é"}\n{"idx":3}\n');
    fail = false;
    done.push(log.append('{"idx":5}'));
    log.write('{"idx":6}');
    await Promise.all(done);
    log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe('{"idx":0}\n{"idx":1}\n{"idx":2,"note":"é"}\n{"idx":3}\n{"idx":5}\n{"idx":6}\n');
    // after a failure the length is asked again once, then tracked
    expect(fstat.mock.calls.length).toBe(2);
  });

  it('a write whose cut-back fails is not trusted: the next append asks the file for its length', () => {
    const file = path.join(dir, 'log.jsonl');
    let fail = false;
    const write = (fd: number, buf: Uint8Array, off: number, len: number, pos: number | null) => {
      if (fail) {
        fs.writeSync(fd, buf, off, 2, pos);
        throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      }
      return fs.writeSync(fd, buf, off, len, pos);
    };
    const log = new GroupCommitLog(fs.openSync(file, 'a'), file, { write });
    log.write('{"idx":1}');
    fail = true;
    const truncate = vi.spyOn(fs, 'ftruncateSync').mockImplementationOnce(() => {
      throw Object.assign(new Error('EIO'), { code: 'EIO' });
    });
    expect(() => log.write('{"idx":2}')).toThrow(/could not be removed/);
    truncate.mockRestore();
    fail = true;
    // the torn 2 bytes are in the file: this failure cuts back to the file's real length, not the stale one
    expect(() => log.write('{"idx":3}')).toThrow(DiskError);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"idx":1}\n{"');
    log.close();
  });

  it('close waits for the fsync in flight before closing the file', async () => {
    const file = path.join(dir, 'log.jsonl');
    const log = new GroupCommitLog(fs.openSync(file, 'a'), file);
    const p = log.append('{"idx":1}');
    log.close();
    expect(() => log.append('{"idx":2}')).toThrow(/closed/);
    await p;
    expect(fs.readFileSync(file, 'utf8')).toBe('{"idx":1}\n');
  });
});
