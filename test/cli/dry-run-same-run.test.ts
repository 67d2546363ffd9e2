// Through the real CLI against the test server: runs that flags make one run (--method cot over an
// experiment of several methods) run once, and `run --dry-run` plans what the same command without it
// would do: it resumes the run folder of the same id, so episodes already recorded are not to run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { cleanEnv, readLines, runCli, runDirs, scriptedRespond } from '../run/cli-helpers.js';

let tmp: string;
let srv: OpenAIServer;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-dry-same-'));
  srv = await startOpenAIServer({ respond: scriptedRespond });
});
afterAll(async () => {
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const model = () => ['--base-url', srv.baseURL, '--model', 'test-model', '--cache', 'off', '--concurrency', '1'];
const run = (args: string[]) => runCli(['run', ...args], { cwd: tmp, env: cleanEnv() });
/** The "episodes:" line of each planned run. */
const episodeLines = (out: string) => out.split('\n').filter((l) => l.startsWith('  episodes: '));

function experiment(name: string, data: unknown): string {
  const file = path.join(tmp, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(data));
  return file;
}

describe('flags that make several runs of an experiment one run', () => {
  const METHODS = {
    defaults: { task: 'hotpotqa', split: 'offline500', wiki: 'snapshot' },
    runs: [{ method: 'standard' }, { method: 'cot' }, { method: 'cot-sc', samples: 3 }, { method: 'act' }],
  };
  const NOTICE = 'react-repro: --method cot makes the 4 runs of methods one run: running it once';

  it('--dry-run plans it once, with one line naming the flag', async () => {
    const file = experiment('methods', METHODS);
    const results = path.join(tmp, 'dry-a');
    const r = await run([file, '--method', 'cot', '--limit', '3', ...model(), '--results-dir', results, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`${NOTICE}\n`);
    expect(r.stdout.match(/^dry run: hotpotqa /gm)).toHaveLength(1);
    expect(episodeLines(r.stdout)).toEqual(['  episodes: 3 planned, 3 to run (indices 3522, 1557, 200)']);
    expect(r.stdout).toMatch(/model calls: 3 first calls/);
    expect(r.stdout).not.toMatch(/^total:/m);
  }, 60_000);

  it('a real run runs it once: one run folder, one call per question', async () => {
    const file = experiment('methods', METHODS);
    const results = path.join(tmp, 'real-a');
    srv.reset();
    const r = await run([file, '--method', 'cot', '--limit', '3', ...model(), '--results-dir', results]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n').filter((l) => l === NOTICE)).toHaveLength(1);
    expect(r.stderr).not.toMatch(/resuming/);
    expect(srv.completionRequests()).toHaveLength(3);
    expect(runDirs(results)).toHaveLength(1);
  }, 60_000);

  it('runs that still differ in a setting their method reads stay apart, with no notice', async () => {
    const file = experiment('limits', {
      defaults: { task: 'hotpotqa' },
      runs: [
        { method: 'standard', limit: 2 },
        { method: 'cot', limit: 3 },
      ],
    });
    const r = await run([file, '--method', 'cot', ...model(), '--results-dir', path.join(tmp, 'dry-b'), '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(episodeLines(r.stdout)).toEqual([
      expect.stringMatching(/^ {2}episodes: 2 planned, 2 to run /),
      expect.stringMatching(/^ {2}episodes: 3 planned, 3 to run /),
    ]);
  }, 60_000);
});

describe('run --dry-run after a run of the same command', () => {
  it('a complete run: every episode already recorded, none to run, no cost', async () => {
    const results = path.join(tmp, 'complete');
    const cot = (limit: string) => ['--task', 'hotpotqa', '--method', 'cot', '--limit', limit, ...model(), '--results-dir', results];
    const args = cot('3');
    const first = await run(args);
    expect(first.code, first.stderr).toBe(0);
    const r = await run([...args, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(episodeLines(r.stdout)).toEqual(['  episodes: 3 planned, 3 already recorded (0 as errors), 0 to run']);
    expect(r.stdout).toMatch(/model calls: 0 first calls/);
    // A different identity (another --limit) is another run: nothing of it is recorded.
    const other = await run([...cot('5'), '--dry-run']);
    expect(episodeLines(other.stdout)).toEqual([expect.stringMatching(/^ {2}episodes: 5 planned, 5 to run /)]);
  }, 60_000);

  it('an interactive method (its environment in the run id): a complete ReAct run has none to run', async () => {
    const results = path.join(tmp, 'react');
    const args = ['--task', 'hotpotqa', '--method', 'react', '--split', 'offline500', '--limit', '2', ...model(), '--results-dir', results];
    const first = await run(args);
    expect(first.code, first.stderr).toBe(0);
    const r = await run([...args, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(episodeLines(r.stdout)).toEqual(['  episodes: 2 planned, 2 already recorded (0 as errors), 0 to run']);
  }, 120_000);

  it('a run stopped part way: the dry run counts what the resume would run', async () => {
    const results = path.join(tmp, 'partial');
    const args = ['--task', 'hotpotqa', '--method', 'cot', '--limit', '4', ...model(), '--results-dir', results];
    const prices = ['--price-prompt', '100', '--price-completion', '100'];
    const stopped = await run([...args, ...prices, '--max-cost', '0.13']);
    expect(stopped.code, stopped.stderr).toBe(4);
    const [dir] = runDirs(results);
    const done = new Set(readLines(path.join(results, dir, 'episodes.jsonl')).map((e) => e.idx)).size;
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(4);
    const r = await run([...args, ...prices, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(episodeLines(r.stdout)).toEqual([
      expect.stringMatching(
        new RegExp(`^ {2}episodes: 4 planned, ${done} already recorded \\(0 as errors\\), ${4 - done} to run \\(indices `),
      ),
    ]);
    expect(r.stdout).toMatch(new RegExp(`model calls: ${4 - done} first calls`));
    // The resume runs exactly those.
    srv.reset();
    const resumed = await run([...args, ...prices]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(new RegExp(`resuming ${dir}: ${done} of 4 episodes already recorded`));
    expect(srv.completionRequests()).toHaveLength(4 - done);
  }, 60_000);

  it('a method that steps no environment ignores the environment flags, as its run id does', async () => {
    const results = path.join(tmp, 'cot-live');
    const args = ['--task', 'hotpotqa', '--method', 'cot', '--limit', '3', ...model(), '--results-dir', results];
    const first = await run([...args, '--wiki', 'live', '--wiki-url', 'http://127.0.0.1:9']);
    expect(first.code, first.stderr).toBe(0);
    const r = await run([...args, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(episodeLines(r.stdout)).toEqual(['  episodes: 3 planned, 3 already recorded (0 as errors), 0 to run']);
    const again = await run(args);
    expect(again.stderr).toMatch(/resuming .*: 3 of 3 episodes already recorded/);
  }, 60_000);

  it('another folder of the task and method with an unreadable manifest is passed over, as the real run passes it', async () => {
    const results = path.join(tmp, 'bad-sibling');
    const args = ['--task', 'hotpotqa', '--method', 'cot', '--limit', '2', ...model(), '--results-dir', results];
    expect((await run(args)).code).toBe(0);
    const [dir] = runDirs(results);
    fs.mkdirSync(path.join(results, `${dir}-copy`));
    fs.writeFileSync(path.join(results, `${dir}-copy`, 'manifest.json'), '{ not json');
    const r = await run([...args, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(episodeLines(r.stdout)).toEqual(['  episodes: 2 planned, 2 already recorded (0 as errors), 0 to run']);
  }, 60_000);
});
