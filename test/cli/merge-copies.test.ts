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

for (const [what, cut] of [
  ['missing', (d: string) => fs.rmSync(path.join(d, 'recording.jsonl'))],
  ['cut short', (d: string) => fs.truncateSync(path.join(d, 'recording.jsonl'), 200)],
] as const) {
  it(`a shard whose recording.jsonl is ${what} is named by the merge, which carries no recording; bundle names the shards once`, async () => {
    const dirs = copies(`rec-${what.replace(' ', '-')}`, cut);
    const out = path.join(tmp, `m-rec-${what.replace(' ', '-')}`);
    const m = await runCli(['merge', ...dirs, '--out', out], { cwd: tmp });
    expect(m.code).toBe(0);
    expect(m.stderr).toContain(`merge: ${path.join(dirs[1], 'recording.jsonl')}`);
    expect(m.stderr).toContain('the merged run carries no recording.jsonl, so `bundle` cannot pack it');
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
