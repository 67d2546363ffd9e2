// The advice after a failed write says what running the command again does (src/util/durable.ts,
// Retry): a run's own files resume; an output file the user named (report, export, bundle --out, the
// label sheet) is left untouched and written whole again, nothing resumes; a device or a pipe written
// straight (/dev/full) holds an incomplete output that no command takes up. Checked in-process with an
// injected writer, through the CLI on /dev/full, and on a full tmpfs where root can mount one.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiskError, replaceFileAtomic, writeOutputFile, type WriteFn } from '../../src/util/durable.js';
import { runCli } from '../run/cli-helpers.js';
import { qaRecords, writeRun } from '../report/run-folders.js';

let tmp: string;
let results: string;
let mnt: string;
let mounted = false;
let why = '';
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-out-advice-'));
  results = path.join(tmp, 'results');
  const idx = [0, 1, 2, 3];
  writeRun(results, { runId: 'hotpotqa-react', method: 'react', indices: idx, records: qaRecords(idx, 'rrrw') });
  mnt = path.join(tmp, 'mnt');
  fs.mkdirSync(mnt);
  if (process.platform !== 'linux' || process.getuid?.() !== 0) why = 'needs root on Linux to mount a small tmpfs';
  else {
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=65536', 'tmpfs', mnt], { stdio: 'ignore' });
      mounted = true;
    } catch (e) {
      why = `mount -t tmpfs failed (${(e as Error).message.split('\n')[0]})`;
    }
  }
});
afterAll(() => {
  if (mounted) execFileSync('umount', [mnt]);
  fs.rmSync(tmp, { recursive: true, force: true });
});

const RESUMES = 'free some space, then run the same command again (it resumes)';
const REWRITES = 'free some space, then run the same command again (it writes the file whole; this attempt left it untouched)';
const STRAIGHT =
  'the output is incomplete (written straight to a device, a pipe or a shell redirect, which no command resumes); write it to a file on a disk with space';

/** A writer that takes a few bytes, then finds the disk full. */
function fillsUp(): WriteFn {
  let calls = 0;
  return (_fd, _buf, _off, length) => {
    if (calls++ > 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    return Math.min(length, 3);
  };
}

function thrown(f: () => void): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a throw');
}

describe('the advice after a full disk, per what was written', () => {
  it('an output file the user named is written whole again (nothing resumes); a run file resumes', () => {
    const file = path.join(tmp, 'report.md');
    fs.writeFileSync(file, 'the old report\n');
    const e = thrown(() => writeOutputFile(file, 'x'.repeat(100), { flag: '--out', what: 'the report', write: fillsUp() }));
    expect(e).toBeInstanceOf(DiskError);
    expect(e.message).toBe(`${file}: writing the report failed (ENOSPC): no space left on the device: ${REWRITES}`);
    expect(fs.readFileSync(file, 'utf8')).toBe('the old report\n');

    // A run's own file (the manifest, through replaceFileAtomic) resumes, as before.
    const manifest = path.join(tmp, 'manifest.json');
    const m = thrown(() => replaceFileAtomic(manifest, 'y'.repeat(100), { what: 'the manifest', write: fillsUp() }));
    expect(m.message).toBe(`${manifest}: writing the manifest failed (ENOSPC): no space left on the device: ${RESUMES}`);
  });

  it('report and export --out /dev/full: exit 74, one line: the output is incomplete, no "run again (it resumes)"', async (ctx) => {
    if (!fs.existsSync('/dev/full')) return ctx.skip('no /dev/full here');
    const report = await runCli(['report', results, '--out', '/dev/full'], { cwd: tmp });
    expect(report.code).toBe(74);
    expect(report.stderr).toBe(`react-repro: /dev/full: writing the report failed (ENOSPC): no space left on the device: ${STRAIGHT}\n`);
    const exported = await runCli(['export', results, '--format', 'jsonl', '--out', '/dev/full'], { cwd: tmp });
    expect(exported.code).toBe(74);
    expect(exported.stderr).toBe(`react-repro: /dev/full: writing the export failed (ENOSPC): no space left on the device: ${STRAIGHT}\n`);
  }, 60_000);

  it('report and export --out on a full disk: exit 74, one line: run the same command again, it writes the file whole', async (ctx) => {
    if (!mounted) return ctx.skip(why);
    const filler = path.join(mnt, 'filler');
    const st = fs.statfsSync(mnt);
    fs.writeFileSync(filler, Buffer.alloc(Number(st.bavail) * Number(st.bsize)));
    try {
      for (const [args, what] of [
        [['report', results, '--format', 'html'], 'the report'],
        [['export', results, '--format', 'jsonl'], 'the export'],
      ] as const) {
        const out = path.join(mnt, 'out.file');
        const r = await runCli([...args, '--out', out], { cwd: tmp });
        expect(r.code, what).toBe(74);
        expect(r.stderr, what).toBe(`react-repro: ${out}: writing ${what} failed (ENOSPC): no space left on the device: ${REWRITES}\n`);
        expect(fs.readdirSync(mnt), what).toEqual(['filler']);
      }
    } finally {
      fs.rmSync(filler, { force: true });
    }
  }, 60_000);
});
