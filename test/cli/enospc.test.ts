// A full disk (README "Reliability") (a small tmpfs, which root can mount; skipped with the reason
// otherwise). A run whose disk fills up stops with a one-line error naming the path (exit 74), never
// leaves an unreadable run (manifest whole, every episode line whole, no temp files), and resuming
// after space is freed finishes identical to an uninterrupted run. A full cache disk only costs the
// cache: the run warns once and goes on uncached, with no error episodes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fillLeaving as fillSmallDisk, mountSmallDisk, unmountSmallDisk, type SmallDisk } from '../run/small-disk.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { cleanEnv, readLines, runCli, runDirs, scriptedRespond, withoutSpent } from '../run/cli-helpers.js';

let tmp: string;
let mnt: string;
let srv: OpenAIServer;
let mounted = false;
let why = '';
const SIZE = 1024 * 1024;
let disk: SmallDisk;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-enospc-'));
  disk = mountSmallDisk(path.join(tmp, 'mnt'), SIZE);
  mnt = disk.dir;
  mounted = disk.mounted;
  why = disk.mounted ? '' : disk.why;
  srv = await startOpenAIServer({ respond: scriptedRespond });
});
afterAll(async () => {
  await srv.close();
  unmountSmallDisk(disk);
  fs.rmSync(tmp, { recursive: true, force: true });
});

const fillLeaving = (free: number) => fillSmallDisk(disk, free);

const comparable = (r: Record<string, unknown>) => {
  const { latency_ms: _l, ...rest } = r;
  return rest;
};

const runArgs = (results: string, extra: string[] = [], limit = 12) => [
  'run',
  '--task',
  'hotpotqa',
  '--method',
  'cot',
  '--split',
  'dev',
  '--limit',
  String(limit),
  '--concurrency',
  '2',
  '--base-url',
  srv.baseURL,
  '--model',
  'test-model',
  '--results-dir',
  results,
  ...extra,
];

describe('a full disk', () => {
  it('stops the run with one line naming the path (exit 74), leaves it readable, and resuming after freeing space finishes identical', async (ctx) => {
    if (!mounted) return ctx.skip(why);
    const env = cleanEnv({}, path.join(tmp, 'cache'));
    const ref = path.join(tmp, 'ref');
    expect((await runCli(runArgs(ref, ['--cache', 'off']), { cwd: tmp, env })).code).toBe(0);
    const [refId] = runDirs(ref);
    const refBytes = fs.readdirSync(path.join(ref, refId)).reduce((a, f) => a + fs.statSync(path.join(ref, refId, f)).size, 0);

    const results = path.join(mnt, 'results');
    // Room for the folder, the lock, the manifest and a few episodes: the disk fills mid-run.
    const filler = fillLeaving(Math.floor(refBytes * 0.6));
    const full = await runCli(runArgs(results, ['--cache', 'off']), { cwd: tmp, env });
    expect(full.code).toBe(74);
    const errLine = full.stderr.trimEnd().split('\n').at(-1)!;
    expect(errLine).toMatch(
      new RegExp(
        `^react-repro: ${results}/${refId}/[a-z.]+: .*failed \\(ENOSPC\\): no space left on the device: free some space, then run the same command again \\(it resumes\\)$`,
      ),
    );
    expect(full.stderr).not.toMatch(/\n\s+at /);
    expect(full.stderr).not.toMatch(/recorded as an error/);
    // Readable: whole manifest, whole lines, no temp files, no lock.
    const dir = path.join(results, refId);
    const files = fs.readdirSync(dir);
    expect(files.filter((f) => f.includes('.tmp-'))).toEqual([]);
    expect(files).not.toContain('.lock');
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.runId).toBe(refId);
    const text = fs.readFileSync(path.join(dir, 'episodes.jsonl'), 'utf8');
    expect(text === '' || text.endsWith('\n')).toBe(true);
    const partial = readLines(path.join(dir, 'episodes.jsonl'));
    expect(partial.length).toBeLessThan(12);
    // Space again: the same command resumes and ends as the uninterrupted run did.
    fs.rmSync(filler);
    const resumed = await runCli(runArgs(results, ['--cache', 'off']), { cwd: tmp, env });
    expect(resumed.code).toBe(0);
    const a = new Map(readLines(path.join(ref, refId, 'episodes.jsonl')).map((r) => [r.idx, comparable(r)]));
    const b = new Map(readLines(path.join(dir, 'episodes.jsonl')).map((r) => [r.idx, comparable(r)]));
    expect(b).toEqual(a);
    // Every column but the spend equals the uninterrupted run's: calls answered before the disk filled
    // were paid (--cache off: the resume pays for their episodes again), and the run's spend says so.
    const got = fs.readFileSync(path.join(dir, 'summary.csv'), 'utf8');
    const want = fs.readFileSync(path.join(ref, refId, 'summary.csv'), 'utf8');
    expect(withoutSpent(got)).toBe(withoutSpent(want));
    const spentTokens = (csv: string) => {
      const [header, row] = csv.trimEnd().split('\n');
      return Number(row.split(',')[header.split(',').indexOf('spent_tokens')]);
    };
    expect(spentTokens(got)).toBeGreaterThanOrEqual(spentTokens(want));
    console.log(
      `ENOSPC: ${partial.length} of 12 episodes recorded when the disk filled (${errLine.replace(/^react-repro: /, '').split(':')[0]}); resume finished 12/12 identical`,
    );
    fs.rmSync(results, { recursive: true, force: true });
  }, 60_000);

  it('a full cache disk warns once and the run goes on uncached: no error episodes, nothing lost', async (ctx) => {
    if (!mounted) return ctx.skip(why);
    const env = cleanEnv({}, path.join(tmp, 'cache2'));
    const cachePath = path.join(mnt, 'completions.sqlite');
    const results = path.join(tmp, 'cache-full');
    // The cache file exists (one completion stored), then the disk fills up.
    expect((await runCli(runArgs(results, ['--cache-path', cachePath], 1), { cwd: tmp, env })).code).toBe(0);
    const filler = fillLeaving(0);
    try {
      const r = await runCli(runArgs(results, ['--cache-path', cachePath]), { cwd: tmp, env });
      expect(r.code).toBe(0);
      const warnings = r.stderr.split('\n').filter((l) => l.includes('warning: the completion cache'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/the run goes on without it/);
      const [dir] = runDirs(results);
      const recs = readLines(path.join(results, dir, 'episodes.jsonl'));
      expect(new Set(recs.map((e) => e.idx)).size).toBe(12);
      expect(recs.every((e) => e.error === null)).toBe(true);
    } finally {
      fs.rmSync(filler);
    }
  }, 60_000);
});
