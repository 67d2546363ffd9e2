// Shard folders copied back from the nodes before the merge job (docs/cluster.md), some of them
// incompletely: a shard whose episodes.jsonl lost records is named as a copy to redo (a resume would
// run and pay for those episodes again), and a shard whose recording.jsonl is missing or cut is named
// when the merge is made (the merged run then carries no recording and cannot be bundled), not first
// at `bundle` time, whose message names the missing shards once.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { runCli, runDirs, scriptedRespond } from '../run/cli-helpers.js';

let tmp: string;
let srv: OpenAIServer;
let shards: string[];
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-merge-copies-'));
  srv = await startOpenAIServer({ respond: scriptedRespond });
  const exp = path.join(tmp, 'shards.json');
  fs.writeFileSync(
    exp,
    JSON.stringify({ defaults: { task: 'fever', method: 'standard', limit: 6 }, runs: [{ shard: '1/2' }, { shard: '2/2' }] }),
  );
  const results = path.join(tmp, 'results');
  const r = await runCli(['run', exp, '--base-url', srv.baseURL, '--model', 'test-model', '--cache', 'off', '--results-dir', results], {
    cwd: tmp,
  });
  expect(r.code).toBe(0);
  shards = runDirs(results).map((d) => path.join(results, d));
  expect(shards).toHaveLength(2);
});
afterAll(async () => {
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The shards copied to `name`, the second one passed through `cut` (a copy stopped part way). */
function copies(name: string, cut: (dir: string) => void): string[] {
  return shards.map((d, i) => {
    const to = path.join(tmp, name, path.basename(d));
    fs.mkdirSync(to, { recursive: true });
    for (const f of fs.readdirSync(d)) if (f !== '.lock') fs.copyFileSync(path.join(d, f), path.join(to, f));
    if (i === 1) cut(to);
    return to;
  });
}

it('a shard whose episodes.jsonl lost records in the copy is named as a partial copy, not sent to be resumed', async () => {
  const dirs = copies('cut-episodes', (d) => {
    const file = path.join(d, 'episodes.jsonl');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    fs.writeFileSync(file, lines[0] + '\n' + lines[1].slice(0, 40));
  });
  const m = await runCli(['merge', ...dirs, '--out', path.join(tmp, 'm-episodes')], { cwd: tmp });
  expect(m.code).toBe(2);
  expect(m.stderr.trim().split('\n')).toHaveLength(1);
  expect(m.stderr).toContain(`${path.join(dirs[1], 'episodes.jsonl')} holds 1 of the 3 episode records its manifest's sessions wrote`);
  expect(m.stderr).toContain('copy the shard');
  expect(m.stderr).not.toContain('resume');
});

it('a cut copy given beside a whole folder of the same shard: the message also says it can be left out', async () => {
  const dirs = copies('cut-beside-whole', (d) => {
    const file = path.join(d, 'episodes.jsonl');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').split('\n')[0] + '\n');
  });
  const whole = path.join(tmp, 'cut-beside-whole', 'whole-copy');
  fs.mkdirSync(whole);
  for (const f of fs.readdirSync(shards[1])) if (f !== '.lock') fs.copyFileSync(path.join(shards[1], f), path.join(whole, f));
  const m = await runCli(['merge', ...dirs, whole, '--out', path.join(tmp, 'm-beside')], { cwd: tmp });
  expect(m.code).toBe(2);
  expect(m.stderr.trim().split('\n')).toHaveLength(1);
  expect(m.stderr).toContain(`copy the shard's folder again, whole, then merge, or leave it out (${whole} holds shard 2/2 too)`);
});

it('a --retry-errors shard copied without its last lines (the fixes) is refused as a partial copy, though no item is missing', async () => {
  const dirs = copies('cut-retry', (d) => {
    // As the file was after a first session that ended with an error on its first item and a
    // --retry-errors session that appended the fix: the copy stopped before that last line.
    const file = path.join(d, 'episodes.jsonl');
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    const failed = { ...JSON.parse(lines[0]), answer: null, error: { source: 'llm', message: 'boom' } };
    fs.writeFileSync(file, [JSON.stringify(failed), ...lines.slice(1)].join('\n') + '\n');
    const mf = path.join(d, 'manifest.json');
    const m = JSON.parse(fs.readFileSync(mf, 'utf8'));
    const last = m.sessions[m.sessions.length - 1];
    m.sessions.push({ ...last, startedAt: '2099-01-01T00:00:00.000Z', linesAtStart: lines.length, written: 1, retryErrors: true });
    fs.writeFileSync(mf, JSON.stringify(m, null, 2));
  });
  const out = path.join(tmp, 'm-retry');
  const m = await runCli(['merge', ...dirs, '--out', out], { cwd: tmp });
  expect(m.code).toBe(2);
  expect(m.stderr.trim().split('\n')).toHaveLength(1);
  expect(m.stderr).toContain(`${path.join(dirs[1], 'episodes.jsonl')} holds 3 of the 4 episode records its manifest's sessions wrote`);
  expect(m.stderr).toContain('copy the shard');
  expect(m.stderr).not.toContain('retry-errors');
  expect(m.stdout).toBe('');
  expect(fs.existsSync(out)).toBe(false);
});

for (const [what, cut] of [
  ['missing', (d: string) => fs.rmSync(path.join(d, 'recording.jsonl'))],
  ['cut short', (d: string) => fs.truncateSync(path.join(d, 'recording.jsonl'), 200)],
  // Cut where a line ends, before the last episode's first line: no torn line, no trace of that item.
  [
    'cut at a line',
    (d: string) => {
      const file = path.join(d, 'recording.jsonl');
      const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
      const last = lines
        .map((l) => JSON.parse(l))
        .filter((l) => l.t === 'end' && l.written)
        .pop();
      fs.writeFileSync(
        file,
        lines
          .slice(
            0,
            lines.findIndex((l) => JSON.parse(l).attempt === last.attempt),
          )
          .join('\n') + '\n',
      );
    },
  ],
] as const) {
  it(`a shard whose recording.jsonl is ${what} is named by the merge, which carries no recording; bundle names the shards once`, async () => {
    const dirs = copies(`rec-${what.replaceAll(' ', '-')}`, cut);
    const out = path.join(tmp, `m-rec-${what.replaceAll(' ', '-')}`);
    const m = await runCli(['merge', ...dirs, '--out', out], { cwd: tmp });
    expect(m.code).toBe(0);
    expect(m.stderr).toContain(`merge: ${path.join(dirs[1], 'recording.jsonl')}`);
    expect(m.stderr).toContain(
      'the merged run carries no recording.jsonl, so `bundle` cannot pack it; copy that file whole and merge again\n',
    );
    expect(fs.existsSync(path.join(out, 'recording.jsonl'))).toBe(false);
    const b = await runCli(['bundle', out, '--out', path.join(tmp, 'b.tar.gz')], { cwd: tmp });
    expect(b.code).toBe(2);
    const ids = dirs.map((d) => path.basename(d));
    expect(b.stderr).toContain(
      `is a merge of ${ids.join(', ')} (it carries no recording.jsonl, so its shards are packed instead); none of them is`,
    );
    expect(b.stderr.split(ids[0])).toHaveLength(2);
  });
}

/** The manifest of shard folder `d` passed through `edit`. */
function editManifest(d: string, edit: (m: { sessions: Record<string, unknown>[] }) => void): void {
  const file = path.join(d, 'manifest.json');
  const m = JSON.parse(fs.readFileSync(file, 'utf8'));
  edit(m);
  fs.writeFileSync(file, JSON.stringify(m, null, 2));
}

it('a shard run before recordings existed is not sent to copy a file it never had', async () => {
  // No recording.jsonl and no session recording id (written by versions before either existed): the
  // copy may have left the file behind, or there never was one; the merge says both.
  const dirs = copies('no-recording', (d) => {
    fs.rmSync(path.join(d, 'recording.jsonl'));
    editManifest(d, (m) => m.sessions.forEach((s) => delete s.recording));
  });
  const m = await runCli(['merge', ...dirs, '--out', path.join(tmp, 'm-no-recording')], { cwd: tmp });
  expect(m.code).toBe(0);
  expect(m.stderr).toContain(
    `merge: ${path.join(dirs[1], 'recording.jsonl')} is missing (not copied, or the shard ran before recordings existed?)`,
  );
  expect(m.stderr).toContain(
    "if the shard's own folder holds more of that file, copy it whole and merge again; if not (the shard ran before recordings existed), re-run that shard",
  );
});

it('a shard whose first episode ran before recordings existed, resumed since, is told a copy will not help', async () => {
  // Its first session (an older version) wrote one record and no recording; the resume recorded the
  // other two, all of which the recording holds: nothing was lost in the copy.
  const dirs = copies('resumed-recording', (d) => {
    const file = path.join(d, 'recording.jsonl');
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    const first = lines.map((l) => JSON.parse(l)).find((l) => l.t === 'end' && l.written);
    fs.writeFileSync(file, lines.filter((l) => JSON.parse(l).attempt !== first.attempt).join('\n') + '\n');
    editManifest(d, (m) => {
      const s = m.sessions[0];
      m.sessions = [
        { startedAt: '2020-01-01T00:00:00.000Z', endedAt: '2020-01-01T00:01:00.000Z', status: 'interrupted', linesAtStart: 0, written: 1 },
        { ...s, linesAtStart: 1, written: 2 },
      ];
    });
  });
  const m = await runCli(['merge', ...dirs, '--out', path.join(tmp, 'm-resumed-recording')], { cwd: tmp });
  expect(m.code).toBe(0);
  expect(m.stderr).toMatch(/recording\.jsonl has no complete recording of item \d+ \(it ran before recordings existed\)/);
  expect(m.stderr).toContain('copying it again will not help: to bundle the merged run, re-run that shard into a new --results-dir');
  expect(m.stderr).not.toContain('copy that file whole');
});
