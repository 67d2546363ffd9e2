// Bad input (README "Hostile input"): bad inputs to `run` are one line on stderr, a non-zero exit, no stack trace, and nothing
// half-written (no results folder, no run folder, no model request).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { cleanEnv, runCli, scriptedRespond } from '../run/cli-helpers.js';

let tmp: string;
let srv: OpenAIServer;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-bad-'));
  srv = await startOpenAIServer({ respond: scriptedRespond });
});
afterAll(async () => {
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const model = () => ['--base-url', srv.baseURL, '--model', 'test-model', '--cache', 'off'];

/** Runs `run` with these arguments and checks the contract; returns the one stderr line. */
async function refused(args: string[], code = 2): Promise<string> {
  const before = srv.requests.length;
  const r = await runCli(['run', ...args], { cwd: tmp, env: cleanEnv({}, path.join(tmp, 'cache')) });
  expect(r.code).toBe(code);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^react-repro: /);
  expect(r.stdout).toBe('');
  expect(srv.requests.length).toBe(before);
  return lines[0];
}

describe('run: bad input', () => {
  it('--results-dir pointing at a file, or at a path under a file', async () => {
    const file = path.join(tmp, 'a-file');
    fs.writeFileSync(file, 'x');
    expect(await refused(['--method', 'cot', '--limit', '1', ...model(), '--results-dir', file])).toBe(
      `react-repro: --results-dir ${file}: this is a file, not a folder; choose a folder for the run folders`,
    );
    expect(await refused(['--method', 'cot', '--limit', '1', ...model(), '--results-dir', path.join(file, 'sub')])).toBe(
      `react-repro: --results-dir ${path.join(file, 'sub')}: ${file} is a file, not a folder; choose a folder for the run folders`,
    );
    expect(fs.readFileSync(file, 'utf8')).toBe('x');
  });

  it('--results-dir /proc/1/x returns at once instead of hanging', async () => {
    if (!fs.existsSync('/proc/1')) return;
    const line = await refused(['--method', 'cot', '--limit', '1', ...model(), '--results-dir', '/proc/1/x']);
    expect(line).toMatch(/^react-repro: --results-dir \/proc\/1\/x: /);
  });

  it('--results-dir in an unwritable folder (a read-only mount where root can mount one)', async (ctx) => {
    const ro = path.join(tmp, 'ro');
    fs.mkdirSync(ro);
    let mounted = false;
    try {
      if (process.getuid?.() === 0) {
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=64k', 'tmpfs', ro], { stdio: 'ignore' });
        mounted = true;
      } else fs.chmodSync(ro, 0o555);
    } catch {
      return ctx.skip('root without permission to mount a read-only tmpfs (root ignores permission bits)');
    }
    try {
      const line = await refused(['--method', 'cot', '--limit', '1', ...model(), '--results-dir', path.join(ro, 'results')]);
      expect(line).toMatch(
        new RegExp(
          `^react-repro: --results-dir ${ro}/results: cannot write there \\(${ro}: writing in this folder failed \\((EROFS|EACCES)\\): `,
        ),
      );
    } finally {
      if (mounted) execFileSync('umount', [ro]);
      else fs.chmodSync(ro, 0o755);
    }
  });

  it('--limit abc names the flag and the word (not "NaN"); --limit 0 and 2.5 too', async () => {
    const results = path.join(tmp, 'r-limit');
    expect(await refused(['--method', 'cot', '--limit', 'abc', ...model(), '--results-dir', results])).toBe(
      'react-repro: --limit: expected a number (a positive integer), got "abc"',
    );
    expect(await refused(['--method', 'cot', '--limit', '0', ...model(), '--results-dir', results])).toBe(
      'react-repro: --limit: expected a positive integer, got 0',
    );
    expect(await refused(['--method', 'cot', '--limit', '2.5', ...model(), '--results-dir', results])).toBe(
      'react-repro: --limit: expected a positive integer, got 2.5',
    );
    expect(await refused(['--method', 'cot', '--concurrency', 'many', ...model(), '--results-dir', results])).toBe(
      'react-repro: --concurrency: expected a number, got "many"',
    );
    expect(fs.existsSync(results)).toBe(false);
  });

  it('conflicting flags: --indices with --split, --from-runs with a method that runs episodes', async () => {
    const results = path.join(tmp, 'r-conflict');
    expect(await refused(['--method', 'cot', '--indices', '1,2', '--split', 'dev', ...model(), '--results-dir', results])).toBe(
      'react-repro: --indices and --split exclude each other: --indices runs exactly the items given, --split names a split (give one)',
    );
    expect(await refused(['--method', 'cot', '--limit', '1', '--from-runs', 'a,b', ...model(), '--results-dir', results])).toMatch(
      /^react-repro: --from-runs: only a combination method \(.*\) reads existing runs; --method cot runs its own episodes$/,
    );
    expect(await refused(['--method', 'cot', '--limit', '12', '--limit', '1', ...model(), '--results-dir', results])).toBe(
      'react-repro: --limit is given 2 times ("12", "1"): give it once',
    );
    expect(await refused(['--method', 'cot', '--split=dev', '--split', 'offline', ...model(), '--results-dir', results])).toBe(
      'react-repro: --split is given 2 times ("dev", "offline"): give it once',
    );
    expect(fs.existsSync(results)).toBe(false);
  });

  it("another benchmark's flag is refused (it would be ignored yet recorded); one only other methods read is noted", async () => {
    const results = path.join(tmp, 'r-foreign');
    expect(
      await refused([
        '--task',
        'hotpotqa',
        '--method',
        'react',
        '--limit',
        '1',
        '--games',
        '/nonexist.json',
        ...model(),
        '--results-dir',
        results,
      ]),
    ).toBe("react-repro: --games: hotpotqa has no such flag (it is alfworld's); leave it out");
    expect(await refused(['table1-hotpotqa-offline', '--prompt-set', '2,1', '--limit', '1', ...model(), '--results-dir', results])).toBe(
      "react-repro: --prompt-set: no run of table1-hotpotqa-offline is of a benchmark that has it (it is alfworld's); leave it out",
    );
    expect(fs.existsSync(results)).toBe(false);
    const r = await runCli(
      ['run', '--task', 'hotpotqa', '--method', 'cot', '--limit', '1', '--samples', '5', ...model(), '--results-dir', results],
      {
        cwd: tmp,
        env: cleanEnv({}, path.join(tmp, 'cache')),
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n')[0]).toBe('react-repro: note: --samples is not read by hotpotqa cot: it has no effect on this run');
  });

  it('session flags: --max-cost and --max-consecutive-failures', async () => {
    const results = path.join(tmp, 'r-session');
    expect(await refused(['--method', 'cot', '--limit', '1', ...model(), '--results-dir', results, '--max-cost', '-1'])).toBe(
      'react-repro: --max-cost: expected an amount in USD >= 0, got -1',
    );
    expect(await refused(['--method', 'cot', '--limit', '1', ...model(), '--results-dir', results, '--max-cost', 'lots'])).toBe(
      'react-repro: --max-cost: expected a number, got "lots"',
    );
    expect(
      await refused(['--method', 'cot', '--limit', '1', ...model(), '--results-dir', results, '--max-consecutive-failures', '1.5']),
    ).toBe('react-repro: --max-consecutive-failures: expected a whole number >= 0 (0: never stop), got 1.5');
    expect(fs.existsSync(results)).toBe(false);
  });

  it('--max-cost with a model of unknown price is refused before anything runs (the budget could not count its calls)', async () => {
    const results = path.join(tmp, 'r-unpriced');
    const line =
      'react-repro: --max-cost: no price is known for the model test-model, so the budget cannot count its calls; ' +
      'give --price-prompt and --price-completion (USD per 1M tokens; 0 for a server that bills nothing)';
    const args = ['--method', 'cot', '--limit', '1', ...model(), '--results-dir', results];
    expect(await refused([...args, '--max-cost', '1'])).toBe(line);
    expect(await refused([...args, '--max-cost', '1', '--dry-run'])).toBe(line);
    // An experiment whose second run has no price: refused before its first (priced) run spends anything.
    const exp = path.join(tmp, 'mixed-prices.json');
    fs.writeFileSync(
      exp,
      JSON.stringify({
        defaults: { task: 'hotpotqa', limit: 1, baseUrl: srv.baseURL, cache: 'off' },
        runs: [
          { method: 'cot', model: 'test-model', pricePrompt: 1, priceCompletion: 1 },
          { method: 'act', model: 'test-model' },
        ],
      }),
    );
    expect(await refused([exp, '--results-dir', results, '--max-cost', '1'])).toBe(line);
    expect(fs.existsSync(results)).toBe(false);
    // A run made without a price, resumed under a budget: refused, the run as it was.
    const made = await runCli(['run', ...args], { cwd: tmp, env: cleanEnv({}, path.join(tmp, 'cache')) });
    expect(made.code).toBe(0);
    const [runId] = fs.readdirSync(results);
    const manifest = fs.readFileSync(path.join(results, runId, 'manifest.json'), 'utf8');
    expect(await refused(['--resume', runId, '--results-dir', results, '--max-cost', '1'])).toBe(line);
    expect(fs.readFileSync(path.join(results, runId, 'manifest.json'), 'utf8')).toBe(manifest);
    // Prices given (0 and 0: a server that bills nothing) satisfy it.
    const free = await runCli(['run', ...args, '--price-prompt', '0', '--price-completion', '0', '--max-cost', '1'], {
      cwd: tmp,
      env: cleanEnv({}, path.join(tmp, 'cache')),
    });
    expect(free.stderr).not.toMatch(/no price is known/);
    expect(free.code).toBe(0);
  });
});
