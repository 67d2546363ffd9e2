// End-to-end: shards run by the CLI, merged by `merge`, equal to the unsharded run; refusals are one line. A
// merge keeping error episodes ends as `run` does (exit 3, the retry command), and merging again over a
// merged run that was retried since is refused rather than undoing the retry.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { runCli, runDirs, scriptedRespond } from '../run/cli-helpers.js';

let tmp: string;
let srv: OpenAIServer;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-merge-'));
  srv = await startOpenAIServer({ respond: scriptedRespond });
});
afterAll(async () => {
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

it('merges --shard runs into the unsharded run and refuses a gap', async () => {
  const exp = path.join(tmp, 'shards.json');
  fs.writeFileSync(
    exp,
    JSON.stringify({ defaults: { task: 'fever', method: 'standard', limit: 5 }, runs: [{ shard: '1/2' }, { shard: '2/2' }, {}] }),
  );
  const results = path.join(tmp, 'results');
  const r = await runCli(['run', exp, '--base-url', srv.baseURL, '--model', 'test-model', '--cache', 'off', '--results-dir', results], {
    cwd: tmp,
  });
  expect(r.code).toBe(0);
  const dirs = runDirs(results);
  const s1 = dirs.find((d) => d.includes('-s1of2-'))!;
  const s2 = dirs.find((d) => d.includes('-s2of2-'))!;
  const whole = dirs.find((d) => !/-s\d+of\d+-/.test(d))!;
  const gap = await runCli(['merge', path.join(results, s1), '--out', path.join(tmp, 'm0')], { cwd: tmp });
  expect(gap.code).not.toBe(0);
  expect(gap.stderr.trim().split('\n')).toHaveLength(1);
  expect(gap.stderr).toMatch(/merge: the shards leave a gap: 2 of 5 items uncovered .*shard 2\/2 missing/);
  const m = await runCli(['merge', path.join(results, s2), path.join(results, s1), '--out', path.join(tmp, 'merged')], { cwd: tmp });
  expect(m.code).toBe(0);
  expect(m.stdout).toContain(`${whole}: merged 5/5 episodes`);
  expect(fs.readFileSync(path.join(tmp, 'merged', 'summary.csv'), 'utf8')).toBe(
    fs.readFileSync(path.join(results, whole, 'summary.csv'), 'utf8'),
  );
  const rep = await runCli(['report', path.join(tmp, 'merged'), '--format', 'csv'], { cwd: tmp });
  expect(rep.stdout).toContain(`runs,Runs,FEVER Standard,ours,Run,${whole},,,${whole}\n`);
  expect(rep.stdout).toContain('runs,Runs,FEVER Standard,ours,Done,5/5,,,' + whole + '\n');
});

/** Every file of a folder with its bytes (the run lock and temp files included: nothing may be left behind). */
function folderBytes(dir: string): Record<string, string> {
  return Object.fromEntries(
    fs
      .readdirSync(dir)
      .sort()
      .map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]),
  );
}

it('a merge with error episodes exits 3 with the retry command; merging again is refused once the merged run was retried', async () => {
  let completions = 0;
  // The first completion of the first shard fails: one error episode.
  const flaky = await startOpenAIServer({
    respond: scriptedRespond,
    fault: (req) => (req.path.endsWith('/completions') && completions++ === 0 ? { kind: 'status', status: 503 } : undefined),
  });
  try {
    const shards = path.join(tmp, 'err-shards');
    const flags = ['--task', 'fever', '--method', 'standard', '--limit', '4', '--concurrency', '1', '--max-retries', '0'];
    for (const shard of ['1/2', '2/2']) {
      const r = await runCli(
        [
          'run',
          ...flags,
          '--shard',
          shard,
          '--base-url',
          flaky.baseURL,
          '--model',
          'test-model',
          '--cache',
          'off',
          '--results-dir',
          shards,
        ],
        { cwd: tmp },
      );
      expect(r.code).toBe(shard === '1/2' ? 3 : 0);
    }
    const shardDirs = runDirs(shards).map((d) => path.join(shards, d));
    const merged = path.join(tmp, 'err-merged');
    const merge = () => runCli(['merge', ...shardDirs, '--results-dir', merged], { cwd: tmp });

    const m = await merge();
    expect(m.stderr).not.toMatch(/\n\s+at /);
    expect(m.code).toBe(3);
    const [id] = runDirs(merged);
    const dir = path.join(merged, id);
    expect(m.stdout).toMatch(new RegExp(`^${id}: merged 4/4 episodes, .*, errors 1 -> ${dir}\n$`));
    const tail = m.stderr.trimEnd().split('\n').slice(-3);
    expect(tail[0]).toBe(`react-repro: ${id}: 1 episode is recorded as errors:`);
    expect(tail[1]).toMatch(/^react-repro: {3}llm 1 \(first: .*HTTP 503\)$/);
    expect(tail[2]).toBe(
      `react-repro: re-run the error episodes with: react-repro run --resume ${id} --retry-errors --results-dir ${merged}`,
    );

    // Nothing was run in the merged run since: merging again is the same merge.
    const again = await merge();
    expect(again.code).toBe(3);
    expect(again.stderr).toContain(`merge: ${dir} already held this merged run, not run since: merged again (nothing lost)`);
    expect(again.stdout).toBe(m.stdout);

    // The printed command retries the error episode in the merged run (a new session there).
    const fixed = await runCli(tail[2].replace(/^.*with: react-repro /, '').split(' '), { cwd: tmp });
    expect(fixed.code).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'summary.csv'), 'utf8')).toContain(',4,4,4,0,');
    const before = folderBytes(dir);

    // Merging the shards again would put the error back and drop the retry's session: refused, nothing written.
    const refused = await merge();
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain(
      `merge: ${dir} holds merged run ${id} continued since the merge (1 session not from these shards, e.g. run --resume or --retry-errors): merging again would lose them; merge into another --results-dir or --out, or remove ${dir} first`,
    );
    expect(folderBytes(dir)).toEqual(before);

    // --out names the folder: `run --resume` finds a run by its id, so the hint says to rename it first.
    const named = path.join(tmp, 'err-out');
    const o = await runCli(['merge', ...shardDirs, '--out', named], { cwd: tmp });
    expect(o.code).toBe(3);
    expect(o.stderr.trimEnd().split('\n').slice(-2)).toEqual([
      `react-repro: ${named} is not named after the run id: rename it to ${path.join(tmp, id)} (merge --results-dir names it so), then`,
      `react-repro: re-run the error episodes with: react-repro run --resume ${id} --retry-errors --results-dir ${tmp}`,
    ]);
  } finally {
    await flaky.close();
  }
});
