// `merge` on a full disk (a small tmpfs, which root can mount; skipped with the reason otherwise): a merge
// stopped between its files exits 74 with one line whose advice is to run it again, leaves a folder that
// reads as no run (no manifest, no temp file; never an earlier merge's manifest over new episodes), and the
// same command, once space is freed, writes the folder equal to a merge that never failed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fillLeaving as fillSmallDisk, mountSmallDisk, unmountSmallDisk, type SmallDisk } from '../run/small-disk.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { runCli, runDirs, scriptedRespond } from '../run/cli-helpers.js';

let tmp: string;
let mnt: string;
let srv: OpenAIServer;
let mounted = false;
let why = '';
let shards: string[] = [];
/** The files of a merge written to a disk with space: what every merge of these shards must write. */
let reference: Record<string, string> = {};
const SIZE = 512 * 1024;
let disk: SmallDisk;

/** Every file of a folder but the run lock, with its bytes. */
function folderFiles(dir: string): Record<string, string> {
  return Object.fromEntries(
    fs
      .readdirSync(dir)
      .filter((f) => f !== '.lock')
      .sort()
      .map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]),
  );
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-merge-disk-'));
  disk = mountSmallDisk(path.join(tmp, 'mnt'), SIZE);
  mnt = disk.dir;
  mounted = disk.mounted;
  why = disk.mounted ? '' : disk.why;
  srv = await startOpenAIServer({ respond: scriptedRespond });
  const results = path.join(tmp, 'results');
  for (const shard of ['1/2', '2/2']) {
    const r = await runCli(
      [
        'run',
        '--task',
        'fever',
        '--method',
        'standard',
        '--limit',
        '24',
        '--shard',
        shard,
        '--base-url',
        srv.baseURL,
        '--model',
        'test-model',
        '--cache',
        'off',
        '--results-dir',
        results,
      ],
      { cwd: tmp },
    );
    expect(r.code, r.stderr).toBe(0);
  }
  shards = runDirs(results).map((d) => path.join(results, d));
  const m = await runCli(['merge', ...shards, '--out', path.join(tmp, 'reference')], { cwd: tmp });
  expect(m.code, m.stderr).toBe(0);
  reference = folderFiles(path.join(tmp, 'reference'));
}, 120_000);

afterEach(() => {
  if (mounted) fs.rmSync(path.join(mnt, 'filler'), { force: true });
});

afterAll(async () => {
  await srv.close();
  unmountSmallDisk(disk);
  fs.rmSync(tmp, { recursive: true, force: true });
});

const fillLeaving = (free: number) => fillSmallDisk(disk, free);

const pages = (text: string) => Math.ceil(Buffer.byteLength(text) / 4096) * 4096;

describe('merge on a full disk', () => {
  it('stopped after its episodes: exit 74, one line saying to run it again, no run left; the same command then writes it whole', async (ctx) => {
    if (!mounted) return ctx.skip(why);
    const out = path.join(mnt, 'first');
    // Room for the merged episodes, not for the recording written next.
    const filler = fillLeaving(pages(reference['episodes.jsonl']) + 4096);
    const failed = await runCli(['merge', ...shards, '--out', out], { cwd: tmp });
    expect(failed.code).toBe(74);
    const lines = failed.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /no space left on the device: free some space, then run the same command again \(it writes the whole folder again from its inputs\)$/,
    );
    expect(fs.existsSync(path.join(out, 'manifest.json'))).toBe(false);
    expect(fs.readdirSync(out).filter((f) => f.includes('.tmp-'))).toEqual([]);
    // Nothing reads the stopped folder as a run.
    const report = await runCli(['report', out, '--format', 'csv'], { cwd: tmp });
    expect(report.code).not.toBe(0);

    fs.rmSync(filler);
    const again = await runCli(['merge', ...shards, '--out', out], { cwd: tmp });
    expect(again.code, again.stderr).toBe(0);
    expect(folderFiles(out)).toEqual(reference);
  });

  it('merging again over a merged run on a full disk withdraws the earlier manifest instead of leaving it over other files', async (ctx) => {
    if (!mounted) return ctx.skip(why);
    const out = path.join(mnt, 'again');
    const first = await runCli(['merge', ...shards, '--out', out], { cwd: tmp });
    expect(first.code, first.stderr).toBe(0);
    expect(folderFiles(out)).toEqual(reference);
    // Room for the run lock and what the withdrawn manifest frees, less than the episodes it writes next.
    expect(pages(reference['episodes.jsonl'])).toBeGreaterThan(pages(reference['manifest.json']));
    const filler = fillLeaving(4096);
    const failed = await runCli(['merge', ...shards, '--out', out], { cwd: tmp });
    expect(failed.code).toBe(74);
    const lines = failed.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/\(it writes the whole folder again from its inputs\)$/);
    expect(fs.existsSync(path.join(out, 'manifest.json'))).toBe(false);
    expect(fs.readdirSync(out).filter((f) => f.includes('.tmp-'))).toEqual([]);

    fs.rmSync(filler);
    const again = await runCli(['merge', ...shards, '--out', out], { cwd: tmp });
    expect(again.code, again.stderr).toBe(0);
    expect(folderFiles(out)).toEqual(reference);
  });

  it('a full disk that refuses even the run lock leaves the merged run as it was, and says to run the merge again', async (ctx) => {
    if (!mounted) return ctx.skip(why);
    const out = path.join(mnt, 'locked-out');
    const first = await runCli(['merge', ...shards, '--out', out], { cwd: tmp });
    expect(first.code, first.stderr).toBe(0);
    fillLeaving(0);
    const failed = await runCli(['merge', ...shards, '--out', out], { cwd: tmp });
    expect(failed.code).toBe(74);
    expect(failed.stderr.trim()).toMatch(
      new RegExp(
        `^react-repro: ${out}/\\.lock: writing the run lock failed \\(ENOSPC\\): .*\\(it writes the whole folder again from its inputs\\)$`,
      ),
    );
    expect(folderFiles(out)).toEqual(reference);
  });

  it('a folder holding anything else is still refused, with one line', async () => {
    const out = path.join(tmp, 'other');
    fs.mkdirSync(out);
    fs.writeFileSync(path.join(out, 'episodes.jsonl'), '');
    fs.writeFileSync(path.join(out, 'notes.txt'), 'mine\n');
    const r = await runCli(['merge', ...shards, '--out', out], { cwd: tmp });
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim()).toBe(`react-repro: merge: --out ${out} is not empty; choose an empty folder`);
    expect(fs.readFileSync(path.join(out, 'notes.txt'), 'utf8')).toBe('mine\n');
  });

  it('merging again with a shard whose recording is corrupt is refused in one line, the merged run left as it was', async () => {
    const out = path.join(tmp, 'bad-shard-input');
    const first = await runCli(['merge', ...shards, '--out', out], { cwd: tmp });
    expect(first.code, first.stderr).toBe(0);
    const copies = shards.map((d, i) => {
      const c = path.join(tmp, 'bad-shards', `${i}`, path.basename(d));
      fs.cpSync(d, c, { recursive: true });
      return c;
    });
    fs.appendFileSync(path.join(copies[1], 'recording.jsonl'), '{"t":"llm","not":"a line of a recording"}\n');
    const r = await runCli(['merge', ...copies, '--out', out], { cwd: tmp });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(
      /^react-repro: .*recording\.jsonl:\d+: a run recording's llm line has no "attempt" id; the file was edited or corrupted$/,
    );
    expect(folderFiles(out)).toEqual(reference);
  });
});
