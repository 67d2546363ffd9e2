// Reliability through the real CLI: outcomes that tell the truth. A dead model endpoint stops the run
// within seconds (circuit breaker) naming the endpoint; a model that dies mid-run too; a run that
// ends with error episodes (also when they tripped the breaker as its last ones) exits 3 and prints
// their causes and the exact command that retries them, and that command (settings from the manifest,
// key from the environment) finishes the run; --max-cost stops cleanly and resumably; --dry-run calls
// nothing and writes nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { cleanEnv, readLines, runCli, runDirs, scriptedRespond } from '../run/cli-helpers.js';
import { deadPort } from '../servers/dead-port.js';

let tmp: string;
let srv: OpenAIServer;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-out-'));
  srv = await startOpenAIServer({ respond: scriptedRespond });
});
afterAll(async () => {
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const noStack = (s: string) => expect(s).not.toMatch(/\n\s+at /);
const lastLines = (s: string, n: number) => s.trimEnd().split('\n').slice(-n);
/** The command after "... with: " on the last stderr line, as argv for runCli. */
const printedCommand = (stderr: string) => {
  const m = /with: react-repro (run .*)$/.exec(lastLines(stderr, 1)[0]);
  expect(m).not.toBeNull();
  return m![1].split(' ');
};

describe('a dead model endpoint', () => {
  it('`run --limit 50` against a refused port stops within seconds, exit 1, naming the endpoint; 5 episodes recorded, the rest not attempted', async () => {
    const port = await deadPort();
    const results = path.join(tmp, 'dead');
    const r = await runCli(
      ['run', '--limit', '50', '--base-url', `http://127.0.0.1:${port}/v1`, '--model', 'm', '--cache', 'off', '--results-dir', results],
      { cwd: tmp, env: cleanEnv() },
    );
    // Stopped early: exit 1 with 5 episodes recorded (or a few more, below) and the rest never attempted
    // (timing is in the README, not asserted).
    expect(r.code).toBe(1);
    noStack(r.stderr);
    expect(r.stderr).toContain(
      `stopped: 5 episodes in a row failed on the model endpoint: model "m" at http://127.0.0.1:${port}/v1 failed after 3 attempts: connection error (ECONNREFUSED)`,
    );
    const [dir] = runDirs(results);
    const recs = readLines(path.join(results, dir, 'episodes.jsonl'));
    // Five trip the breaker; one that failed at the same moment, its recording already "written", is
    // written too (src/run/runner.ts), so a loaded machine may record more, each a model error.
    expect(recs.length).toBeGreaterThanOrEqual(5);
    expect(recs.length).toBeLessThanOrEqual(5 + 7); // at most the other 7 of --concurrency 8 in flight
    expect(recs.every((e) => e.error?.source === 'llm')).toBe(true);
    expect(r.stdout).toContain(`: ${recs.length}/50 episodes, `);
    expect(r.stdout).toMatch(/\/50 episodes, .*\[failed\]/);
    const tail = lastLines(r.stderr, 3);
    expect(tail[0]).toBe(`react-repro: ${dir}: ${recs.length} episodes are recorded as errors:`);
    expect(tail[1]).toMatch(
      new RegExp(
        `^react-repro: {3}llm ${recs.length} \\(first: model "m" at http://127\\.0\\.0\\.1:\\d+/v1 failed after 3 attempts: connection error \\(ECONNREFUSED\\)\\)$`,
      ),
    );
    expect(tail[2]).toBe(`react-repro: resume with: react-repro run --resume ${dir} --retry-errors --results-dir ${results}`);
    const m = JSON.parse(fs.readFileSync(path.join(results, dir, 'manifest.json'), 'utf8'));
    expect(m.sessions[0].status).toBe('failed');
    // Nothing reached a server: the calls stopped while backing off were never billed (not "billing unknown").
    expect(m.sessions[0].spent).toMatchObject({ calls: 0, paid_unknown_calls: 0 });
    expect(r.stderr + r.stdout).not.toContain('billing unknown');
    expect(fs.existsSync(path.join(results, dir, '.lock'))).toBe(false);
  }, 30_000);

  it('a dead Wikipedia stops the run the same way, naming the environment and its URL', async () => {
    const port = await deadPort();
    const results = path.join(tmp, 'dead-wiki');
    const r = await runCli(
      [
        'run',
        '--task',
        'hotpotqa',
        '--method',
        'react',
        '--limit',
        '30',
        '--wiki',
        'live',
        '--wiki-url',
        `http://127.0.0.1:${port}`,
        '--base-url',
        srv.baseURL,
        '--model',
        'test-model',
        '--cache',
        'off',
        '--results-dir',
        results,
      ],
      { cwd: tmp, env: cleanEnv() },
    );
    expect(r.code).toBe(1);
    noStack(r.stderr);
    expect(r.stderr).toMatch(
      new RegExp(
        `stopped: 5 episodes in a row failed on the environment: Wikipedia unreachable at http://127\\.0\\.0\\.1:${port}: failed 3 times \\(last: connection refused`,
      ),
    );
    expect(r.stderr).toContain('fix the environment, then resume');
    const [dir] = runDirs(results);
    const recs = readLines(path.join(results, dir, 'episodes.jsonl'));
    // Five trip the breaker; an episode that failed at the same moment and whose recording already
    // said "written" is written too (src/run/runner.ts: a record and its recording never disagree),
    // so a loaded machine may record more than five, each an environment error and counted as one.
    expect(recs.length).toBeGreaterThanOrEqual(5);
    expect(recs.length).toBeLessThanOrEqual(5 + 7); // at most the other 7 of --concurrency 8 in flight
    expect(recs.every((e) => e.error?.source === 'env')).toBe(true);
    expect(r.stderr).toContain(`${dir}: ${recs.length} episodes are recorded as errors:`);
  }, 30_000);

  it('the literal `--base-url http://127.0.0.1:1/v1` (a port fetch never connects to) is a one-line error at once, nothing written', async () => {
    const results = path.join(tmp, 'port1');
    const r = await runCli(['run', '--limit', '50', '--base-url', 'http://127.0.0.1:1/v1', '--model', 'm', '--results-dir', results], {
      cwd: tmp,
      env: cleanEnv(),
    });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      'react-repro: --base-url http://127.0.0.1:1/v1: fetch never connects to port 1 (a "bad port" of the Fetch standard): serve the model on another port',
    );
    expect(fs.existsSync(results)).toBe(false);
  });

  it('a model that dies mid-run stops the run after 5 failed episodes in a row; the printed command resumes it once the model is back', async () => {
    // healthy for the first 6 completion requests, then every answer is a 503 until revived
    let healthy = 6;
    const dying = await startOpenAIServer({
      respond: scriptedRespond,
      fault: (req) => (!req.path.endsWith('/completions') || healthy-- > 0 ? undefined : { kind: 'status', status: 503 }),
    });
    try {
      const results = path.join(tmp, 'dying');
      const common = [
        'run',
        '--task',
        'hotpotqa',
        '--method',
        'cot',
        '--split',
        'dev',
        '--limit',
        '40',
        '--concurrency',
        '1',
        '--base-url',
        dying.baseURL,
        '--model',
        'test-model',
        '--max-retries',
        '1',
        '--cache',
        'off',
        '--results-dir',
        results,
      ];
      const r = await runCli(common, { cwd: tmp, env: cleanEnv() });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `stopped: 5 episodes in a row failed on the model endpoint: model "test-model" at ${dying.baseURL} failed after 2 attempts: HTTP 503`,
      );
      const [dir] = runDirs(results);
      const recs = readLines(path.join(results, dir, 'episodes.jsonl'));
      expect(recs.filter((e) => e.error).length).toBe(5);
      expect(recs.length).toBeLessThan(15);
      healthy = Infinity;
      const again = await runCli(printedCommand(r.stderr), { cwd: tmp, env: cleanEnv() });
      expect(again.code).toBe(0);
      const all = readLines(path.join(results, dir, 'episodes.jsonl'));
      const latest = new Map(all.map((e) => [e.idx, e]));
      expect(latest.size).toBe(40);
      expect([...latest.values()].every((e) => e.error === null)).toBe(true);
    } finally {
      await dying.close();
    }
  }, 60_000);
});

describe('the circuit breaker on the last episodes', () => {
  /** cot (one call an episode) over 6 questions, one at a time, breaker at 2; the server fails these calls (by arrival). */
  async function runFailing(name: string, failing: Set<number>) {
    let n = 0;
    const flaky = await startOpenAIServer({
      respond: scriptedRespond,
      fault: (req) => (req.path.endsWith('/completions') && failing.has(n++) ? { kind: 'status', status: 500 } : undefined),
    });
    try {
      const results = path.join(tmp, name);
      const r = await runCli(
        [
          'run',
          '--task',
          'hotpotqa',
          '--method',
          'cot',
          '--split',
          'dev',
          '--limit',
          '6',
          '--concurrency',
          '1',
          '--base-url',
          flaky.baseURL,
          '--model',
          'test-model',
          '--max-retries',
          '0',
          '--max-consecutive-failures',
          '2',
          '--cache',
          'off',
          '--results-dir',
          results,
        ],
        { cwd: tmp, env: cleanEnv() },
      );
      const [dir] = runDirs(results);
      const manifest = JSON.parse(fs.readFileSync(path.join(results, dir, 'manifest.json'), 'utf8'));
      return { r, dir, results, manifest, recs: readLines(path.join(results, dir, 'episodes.jsonl')), url: flaky.baseURL };
    } finally {
      await flaky.close();
    }
  }

  it('tripped by the last two episodes, every episode recorded and none dropped: finished with errors (exit 3), not stopped', async () => {
    const { r, dir, results, manifest, recs, url } = await runFailing('breaker-last', new Set([4, 5]));
    expect(r.code, r.stderr).toBe(3);
    expect(recs).toHaveLength(6);
    expect(recs.filter((e) => e.error).map((e) => e.error.source)).toEqual(['llm', 'llm']);
    expect(r.stdout).toMatch(/: 6\/6 episodes, .*errors 2, .*\[complete\]/);
    expect(manifest.sessions.at(-1).status).toBe('complete');
    expect(lastLines(r.stderr, 3)).toEqual([
      `react-repro: ${dir}: 2 episodes are recorded as errors:`,
      `react-repro:   llm 2 (first: model "test-model" at ${url} failed after 1 attempt: HTTP 500)`,
      `react-repro: re-run the error episodes with: react-repro run --resume ${dir} --retry-errors --results-dir ${results}`,
    ]);
    expect(r.stderr).not.toContain('dropped');
    expect(r.stderr).not.toContain('stopped:');
    expect(r.stdout).not.toContain('[failed]');
  }, 30_000);

  it('tripped with episodes left to run: stopped (exit 1), naming the endpoint, with the resume advice', async () => {
    const { r, dir, results, manifest, recs } = await runFailing('breaker-mid', new Set([2, 3]));
    expect(r.code, r.stderr).toBe(1);
    expect(recs).toHaveLength(4);
    expect(r.stdout).toMatch(/: 4\/6 episodes, .*errors 2, .*\[failed\]/);
    expect(manifest.sessions.at(-1).status).toBe('failed');
    expect(r.stderr).toContain('stopped: 2 episodes in a row failed on the model endpoint');
    expect(r.stderr).toContain(
      'fix the model endpoint, then resume (the episodes in flight were dropped; the failed ones are recorded as errors)',
    );
    expect(lastLines(r.stderr, 1)).toEqual([
      `react-repro: resume with: react-repro run --resume ${dir} --retry-errors --results-dir ${results}`,
    ]);
  }, 30_000);
});

describe('a run that ends with error episodes', () => {
  it('exits 3 with the count per cause and the retry command last; that command (settings and model flags from the manifest, key from the environment) fixes them', async () => {
    const KEY = 'sk-outcomes-0123456789abcdefXYZ';
    let failing = new Set([1, 2]); // completion requests (by arrival) that get a 503
    let n = 0;
    const flaky = await startOpenAIServer({
      respond: scriptedRespond,
      apiKey: KEY,
      fault: () => (failing.has(n++) ? { kind: 'status', status: 503 } : undefined),
    });
    try {
      const results = path.join(tmp, 'errors');
      const env = cleanEnv({ OUTCOME_KEY: KEY });
      const r = await runCli(
        [
          'run',
          '--task',
          'fever',
          '--method',
          'standard',
          '--limit',
          '4',
          '--concurrency',
          '1',
          '--base-url',
          flaky.baseURL,
          '--model',
          'test-model',
          '--api-key-env',
          'OUTCOME_KEY',
          '--max-retries',
          '0',
          '--cache',
          'off',
          '--results-dir',
          results,
        ],
        { cwd: tmp, env },
      );
      expect(r.code).toBe(3);
      const [dir] = runDirs(results);
      expect(lastLines(r.stderr, 3)).toEqual([
        `react-repro: ${dir}: 2 episodes are recorded as errors:`,
        `react-repro:   llm 2 (first: model "test-model" at ${flaky.baseURL} failed after 1 attempt: HTTP 503)`,
        `react-repro: re-run the error episodes with: react-repro run --resume ${dir} --retry-errors --results-dir ${results}`,
      ]);
      failing = new Set();
      const before = flaky.completionRequests().length;
      const fixed = await runCli(printedCommand(r.stderr), { cwd: tmp, env });
      expect(fixed.code).toBe(0);
      expect(fixed.stderr).toContain('re-running the 2 episodes of this run recorded as errors (--retry-errors)');
      const sent = flaky.completionRequests().slice(before);
      expect(sent).toHaveLength(2);
      expect(sent.every((q) => q.body.model === 'test-model' && q.headers.authorization === `Bearer ${KEY}`)).toBe(true);
      expect(fs.readFileSync(path.join(results, dir, 'summary.csv'), 'utf8')).toContain(',4,4,4,0,');
      for (const f of fs.readdirSync(path.join(results, dir)))
        expect(fs.readFileSync(path.join(results, dir, f), 'utf8')).not.toContain(KEY);
      expect(r.stdout + r.stderr + fixed.stdout + fixed.stderr).not.toContain(KEY);
    } finally {
      await flaky.close();
    }
  });
});

describe('--max-cost', () => {
  it('stops before the call that could pass the budget (exit 4, summary written, resumable); the resumed run equals an uninterrupted one', async () => {
    const priced = [
      '--task',
      'hotpotqa',
      '--method',
      'cot',
      '--split',
      'dev',
      '--limit',
      '6',
      '--concurrency',
      '1',
      '--base-url',
      srv.baseURL,
      '--model',
      'test-model',
      '--cache',
      'off',
      '--price-prompt',
      '100',
      '--price-completion',
      '100',
    ];
    const ref = path.join(tmp, 'budget-ref');
    expect((await runCli(['run', ...priced, '--results-dir', ref], { cwd: tmp, env: cleanEnv() })).code).toBe(0);
    const [refDir] = runDirs(ref);
    const perEpisode = readLines(path.join(ref, refDir, 'episodes.jsonl'))[0].cost as number;
    expect(perEpisode).toBeGreaterThan(0);
    const results = path.join(tmp, 'budget');
    const budget = (perEpisode * 2.5).toFixed(6);
    const r = await runCli(['run', ...priced, '--results-dir', results, '--max-cost', budget], { cwd: tmp, env: cleanEnv() });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      /react-repro: stopped at the --max-cost budget of \$[0-9.]+: \$[0-9.]+ spent by this command when it stopped, and the next call \(up to \$[0-9.]+\) could pass it; with the calls then in flight, this command spent \$[0-9.]+ in all\n/,
    );
    // That last figure is the one the result line gives, within the budget.
    const inAll = /this command spent (\$[0-9.]+) in all/.exec(r.stderr)![1];
    expect(r.stdout).toContain(`, ${inAll} [stopped (max-cost)]`);
    expect(Number(inAll.slice(1))).toBeLessThanOrEqual(Number(budget));
    const [dir] = runDirs(results);
    expect(lastLines(r.stderr, 1)[0]).toBe(`react-repro: resume with: react-repro run --resume ${dir} --results-dir ${results}`);
    // The result line names the stop as the report's Runs table does.
    expect(r.stdout).toContain(` [stopped (max-cost)] -> ${path.join(results, dir)}`);
    const done = readLines(path.join(results, dir, 'episodes.jsonl')).length;
    expect(done).toBeGreaterThanOrEqual(1);
    expect(done).toBeLessThanOrEqual(2);
    const m = JSON.parse(fs.readFileSync(path.join(results, dir, 'manifest.json'), 'utf8'));
    expect(m.sessions[0]).toMatchObject({ status: 'interrupted', stoppedBy: 'max-cost' });
    expect(m.settings.maxCost).toBeUndefined(); // a session flag, not a setting
    expect(fs.readFileSync(path.join(results, dir, 'summary.csv'), 'utf8')).toContain(`,6,${done},${done},0,`);
    const resumed = await runCli(printedCommand(r.stderr), { cwd: tmp, env: cleanEnv() });
    expect(resumed.code).toBe(0);
    expect(fs.readFileSync(path.join(results, dir, 'summary.csv'), 'utf8')).toBe(
      fs.readFileSync(path.join(ref, refDir, 'summary.csv'), 'utf8'),
    );
  }, 60_000);

  it("a combination stopped in its second base run: 'in all' is what both base runs spent, as their manifests say", async () => {
    const args = [
      '--task',
      'hotpotqa',
      '--method',
      'cot-sc-react',
      '--split',
      'dev',
      '--limit',
      '4',
      '--samples',
      '3',
      '--concurrency',
      '1',
    ];
    const priced = [
      ...args,
      '--base-url',
      srv.baseURL,
      '--model',
      'test-model',
      '--cache',
      'off',
      '--price-prompt',
      '100',
      '--price-completion',
      '100',
    ];
    const sessionsUsd = (dir: string) =>
      JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')).sessions.reduce((a: number, s: any) => a + s.spent.cost_usd, 0);
    const ref = path.join(tmp, 'combo-budget-ref');
    const whole = await runCli(['run', ...priced, '--results-dir', ref], { cwd: tmp, env: cleanEnv() });
    expect(whole.code).toBe(0);
    const base = (dir: string, method: string) =>
      path.join(
        dir,
        runDirs(dir).find((d) => d.startsWith(`hotpotqa-${method}-`))!,
      );
    const cotSc = sessionsUsd(base(ref, 'cot-sc'));
    const react = sessionsUsd(base(ref, 'react'));
    // The one result line printed, the combination's, says what the command spent on its base runs.
    expect(whole.stdout).toMatch(
      new RegExp(`^hotpotqa-cot-sc-react-.*; this command spent [0-9,]+ tokens, \\$${(cotSc + react).toFixed(4)} \\[complete\\]`, 'm'),
    );
    // Enough for the CoT-SC run and about half of the ReAct run.
    const budget = (cotSc + react / 2).toFixed(6);
    const results = path.join(tmp, 'combo-budget');
    const r = await runCli(['run', ...priced, '--results-dir', results, '--max-cost', budget], { cwd: tmp, env: cleanEnv() });
    expect(r.code, r.stderr).toBe(4);
    const spent = sessionsUsd(base(results, 'cot-sc')) + sessionsUsd(base(results, 'react'));
    expect(sessionsUsd(base(results, 'cot-sc'))).toBeCloseTo(cotSc, 9);
    const inAll = /this command spent \$([0-9.]+) in all\n/.exec(r.stderr);
    expect(inAll, r.stderr).not.toBeNull();
    expect(Number(inAll![1])).toBeCloseTo(spent, 4);
    expect(Number(inAll![1])).toBeLessThanOrEqual(Number(budget));
    // The one result line printed (the stopped base run's) gives the same figure: both base runs'.
    expect(r.stdout).toContain(`this command spent`);
    expect(/this command spent [0-9,]+ tokens, \$([0-9.]+) \[stopped \(max-cost\)\]/.exec(r.stdout)?.[1]).toBe(inAll![1]);
  }, 60_000);
});

describe('the cache folder before a run is under way', () => {
  it('a run refused at --resume (no such run) keeps no dataset memo: where the questions are is kept only once a run has begun', async () => {
    const cache = path.join(tmp, 'resume-cache');
    const args = ['run', '--task', 'hotpotqa', '--method', 'react', '--limit', '2', '--base-url', srv.baseURL, '--model', 'm'];
    const r = await runCli([...args, '--results-dir', path.join(tmp, 'resume-none'), '--resume', 'nope'], {
      cwd: tmp,
      env: cleanEnv({}, cache),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--resume nope: no run at/);
    expect(fs.existsSync(path.join(cache, 'dataset-spans.json'))).toBe(false);
    const ok = await runCli([...args, '--results-dir', path.join(tmp, 'resume-ok')], { cwd: tmp, env: cleanEnv({}, cache) });
    expect(ok.code, ok.stderr).toBe(0);
    expect(Object.keys(JSON.parse(fs.readFileSync(path.join(cache, 'dataset-spans.json'), 'utf8')))).toHaveLength(1);
  }, 60_000);
});

describe('--dry-run', () => {
  it('prints the plan, the calls, prompt tokens and cost from the real prompts; calls no model and writes nothing', async () => {
    const results = path.join(tmp, 'dry');
    const cache = path.join(tmp, 'dry-cache');
    const before = srv.completionRequests().length;
    const allBefore = srv.requests.length;
    const r = await runCli(
      [
        'run',
        '--task',
        'hotpotqa',
        '--method',
        'react',
        '--limit',
        '3',
        '--base-url',
        srv.baseURL,
        '--model',
        'gpt-3.5-turbo-instruct',
        '--price-prompt',
        '1.5',
        '--price-completion',
        '2',
        '--results-dir',
        results,
        '--dry-run',
      ],
      { cwd: tmp, env: cleanEnv({}, cache) },
    );
    expect(r.code).toBe(0);
    // No completion request (the window check only reads the server's model list and /props).
    expect(srv.completionRequests().length).toBe(before);
    expect(srv.requests.slice(allBefore).every((q) => q.method === 'GET')).toBe(true);
    expect(fs.existsSync(results)).toBe(false);
    expect(fs.existsSync(cache)).toBe(false);
    expect(r.stdout).toMatch(/^dry run: hotpotqa react, split offline500 \(/m);
    expect(r.stdout).toMatch(/^ {2}episodes: 3 planned, 3 to run \(indices \d+, \d+, \d+\)$/m);
    const calls =
      /^ {2}model calls: 3 first calls, prompt ([\d,]+) tokens \(cl100k_base \(the model's tokenizer, js-tiktoken\), of the real first prompts, ([\d,]+) per call\), completions at most 300 tokens$/m.exec(
        r.stdout,
      );
    expect(calls).not.toBeNull();
    const tokens = Number(calls![1].replaceAll(',', ''));
    // the ReAct HotpotQA prompt head (6 exemplars) is a few thousand tokens
    expect(tokens / 3).toBeGreaterThan(1000);
    expect(r.stdout).toMatch(/^ {2}interactive: 1\.\.7 calls per episode .*, so 3\.\.21 calls and [\d,]+\.\.[\d,]+ prompt tokens /m);
    const cost =
      /cost at \$1\.5\/\$2 per 1M prompt\/completion tokens \(--price-prompt\/--price-completion\): \$([\d.]+)\.\.\$[\d.]+ \(one call per episode/.exec(
        r.stdout,
      );
    expect(cost).not.toBeNull();
    expect(Number(cost![1])).toBeCloseTo((tokens * 1.5 + 300 * 2) / 1e6, 4);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('dry run: no model was called and nothing was written');
  });
});
