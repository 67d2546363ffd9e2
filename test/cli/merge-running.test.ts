// `merge` of a shard whose last session never closed (README "Reliability", docs/cluster.md "Merging
// shards"): killed with -9 after its last record, the session is copied as a resume settles it
// (interrupted, process gone, its spend read from the recording), the shard's folder untouched; a shard
// whose run lock a live process holds is refused with one line and nothing written.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { runCli, runDirs, scriptedRespond } from '../run/cli-helpers.js';
import { acquireRunLock, LOCK_FILE } from '../../src/run/lock.js';
import { PROCESS_GONE } from '../../src/runlog/schema.js';

let tmp: string;
let srv: OpenAIServer;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-merge-running-'));
  srv = await startOpenAIServer({ respond: scriptedRespond });
});
afterAll(async () => {
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const FLAGS = ['--task', 'fever', '--method', 'standard', '--limit', '4', '--concurrency', '1', '--model', 'test-model', '--cache', 'off'];

/** Every file of a folder with its bytes (the run lock included). */
function folderBytes(dir: string): Map<string, Buffer> {
  return new Map(
    fs
      .readdirSync(dir)
      .sort()
      .map((f) => [f, fs.readFileSync(path.join(dir, f))]),
  );
}

const manifestOf = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));

/** Runs one shard into `results` against `baseURL` and returns its folder. */
async function runShard(shard: string, results: string, baseURL = srv.baseURL): Promise<string> {
  const r = await runCli(['run', ...FLAGS, '--shard', shard, '--base-url', baseURL, '--results-dir', results], { cwd: tmp });
  expect(r.code).toBe(0);
  const [dir] = runDirs(results);
  return path.join(results, dir);
}

/**
 * Shard 1/2 as a kill -9 after its last record leaves it. Between a session's opening and its close the
 * run writes only episodes.jsonl and recording.jsonl (src/run/execute.ts: the manifest, the run lock and
 * summary.csv are written at the start or the close): so the folder's other files as they stood while
 * its first call was in flight, with the episodes and recording of the finished run, are what the kill
 * leaves. Returns the folder and the spend its session recorded when it closed.
 */
async function killedAfterLastRecord(): Promise<{ dir: string; spentAtClose: unknown; billed: number }> {
  const results = path.join(tmp, 'killed');
  let inFlight: Map<string, Buffer> | undefined;
  let calls = 0;
  const hold = await startOpenAIServer({
    respond: (req, sample) => {
      if (calls++ === 0) {
        const [dir] = runDirs(results);
        inFlight = folderBytes(path.join(results, dir));
      }
      return scriptedRespond(req, sample);
    },
  });
  try {
    const dir = await runShard('1/2', results, hold.baseURL);
    const spentAtClose = manifestOf(dir).sessions[0].spent;
    expect(inFlight!.has(LOCK_FILE)).toBe(true);
    expect(JSON.parse(inFlight!.get('manifest.json')!.toString()).sessions[0].status).toBe('running');
    const appended = new Set(['episodes.jsonl', 'recording.jsonl']);
    for (const f of fs.readdirSync(dir)) if (!appended.has(f) && !inFlight!.has(f)) fs.rmSync(path.join(dir, f));
    for (const [f, bytes] of inFlight!) if (!appended.has(f)) fs.writeFileSync(path.join(dir, f), bytes);
    return { dir, spentAtClose, billed: hold.billed.requests };
  } finally {
    await hold.close();
  }
}

it('a shard killed after its last record merges with its session settled as a resume settles it; the shard is untouched', async () => {
  const { dir: s1, spentAtClose, billed } = await killedAfterLastRecord();
  const s2 = await runShard('2/2', path.join(tmp, 'whole'));
  const before = folderBytes(s1);
  const killedSession = manifestOf(s1).sessions[0];
  expect(killedSession.status).toBe('running');
  expect(killedSession.spent).toBeUndefined();

  const out = path.join(tmp, 'merged');
  const m = await runCli(['merge', s1, s2, '--out', out], { cwd: tmp });
  expect(m.stderr).toBe('');
  expect(m.code).toBe(0);
  const sessions = manifestOf(out).sessions;
  expect(sessions.map((s: { status: string }) => s.status)).toEqual(['interrupted', 'complete']);
  // As `run --resume` leaves it (settleAbandonedSessions): interrupted, process gone, the spend from the recording.
  expect(sessions[0]).toEqual({ ...killedSession, status: 'interrupted', stoppedBy: PROCESS_GONE, spent: spentAtClose });
  expect(sessions[0].spent.calls).toBe(billed);
  expect(sessions[1]).toEqual(manifestOf(s2).sessions[0]);
  // The report reads the merge, not a run in progress.
  const rep = await runCli(['report', out, '--format', 'csv'], { cwd: tmp });
  expect(rep.stdout).not.toMatch(/running/);
  // Merge reads its shards: the killed shard's folder is byte for byte as the kill left it.
  expect(folderBytes(s1)).toEqual(before);
}, 120_000);

it('a shard whose run lock a live process (or one on another host) holds is refused in one line, nothing written', async () => {
  const s1 = await runShard('1/2', path.join(tmp, 'live-1'));
  const s2 = await runShard('2/2', path.join(tmp, 'live-2'));
  const lock = acquireRunLock(s2); // this test process: a resume of shard 2 under way
  try {
    const out = path.join(tmp, 'live-merged');
    const m = await runCli(['merge', s1, s2, '--out', out], { cwd: tmp });
    expect(m.code).toBe(2);
    expect(m.stdout).toBe('');
    expect(m.stderr.trim().split('\n')).toHaveLength(1);
    expect(m.stderr).toContain(`merge: ${s2} is still running (process ${process.pid}`);
    expect(m.stderr).toMatch(/wait for it or stop it/);
    expect(fs.existsSync(out)).toBe(false);
  } finally {
    lock.release();
  }
  // A lock from another host cannot be judged from here (lock.ts): refused too, saying which lock to delete.
  const lockPath = path.join(s2, LOCK_FILE);
  fs.writeFileSync(lockPath, JSON.stringify({ host: 'node-7.cluster.invalid', pid: 4242, token: 'x', since: '' }) + '\n');
  const out = path.join(tmp, 'elsewhere-merged');
  const m = await runCli(['merge', s1, s2, '--out', out], { cwd: tmp });
  expect(m.code).toBe(2);
  expect(m.stderr.trim().split('\n')).toHaveLength(1);
  expect(m.stderr).toContain(`merge: ${s2} may still be running on host node-7.cluster.invalid`);
  expect(m.stderr).toContain(`if that host no longer runs it, delete ${lockPath}`);
  expect(fs.existsSync(out)).toBe(false);
  // Once no process may hold it, the same merge goes through.
  fs.rmSync(lockPath);
  expect((await runCli(['merge', s1, s2, '--out', out], { cwd: tmp })).code).toBe(0);
}, 120_000);

it("an old bare-PID lock follows resume's rule: a PID alive here refuses the merge naming the .lock to delete; a gone one does not", async () => {
  const s1 = await runShard('1/2', path.join(tmp, 'bare-1'));
  const s2 = await runShard('2/2', path.join(tmp, 'bare-2'));
  // 0.1 wrote the bare PID, no host: from a shard copied from another machine, this machine's live
  // process with that PID (here this test's) says nothing about that run.
  const lockPath = path.join(s2, LOCK_FILE);
  fs.writeFileSync(lockPath, `${process.pid}\n`);
  const out = path.join(tmp, 'bare-merged');
  const m = await runCli(['merge', s1, s2, '--out', out], { cwd: tmp });
  expect(m.code).toBe(2);
  expect(m.stdout).toBe('');
  expect(m.stderr.trim().split('\n')).toHaveLength(1);
  expect(m.stderr).toContain(
    `merge: ${s2} may still be running: its run lock ${lockPath} is an old bare-PID lock naming process ${process.pid}`,
  );
  expect(m.stderr).toContain(`if no process on this machine is running that run, delete ${lockPath}`);
  expect(m.stderr).not.toMatch(/is still running/); // nothing says a process holds it
  expect(fs.existsSync(out)).toBe(false);
  // A resume of that shard is refused by the same rule, with the same advice.
  const resume = await runCli(['run', '--resume', path.basename(s2), '--results-dir', path.dirname(s2), '--base-url', srv.baseURL], {
    cwd: tmp,
  });
  expect(resume.code).toBe(2);
  expect(resume.stderr).toContain(`if no process on this machine is running that run, delete ${lockPath}`);
  // A bare PID gone from this machine is stale for a resume, and so for the merge.
  fs.writeFileSync(lockPath, '999999999\n');
  expect((await runCli(['merge', s1, s2, '--out', out], { cwd: tmp })).code).toBe(0);
}, 120_000);
