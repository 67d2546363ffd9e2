// An experiment file stopped before its last run (--max-cost, or the circuit breaker) through the real
// CLI: its last lines say how many of the experiment's runs were not reached and give the command that
// resumes the whole experiment (not only the stopped run), and following that command finishes every run,
// the combinations included.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { cleanEnv, readLines, runCli, runDirs, scriptedRespond, withoutSpent } from '../run/cli-helpers.js';

const EXPERIMENT = 'table1-hotpotqa-offline';
const METHODS = ['standard', 'cot', 'cot-sc', 'act', 'react', 'cot-sc-react', 'react-cot-sc'];

let tmp: string;
let srv: OpenAIServer;
/** While set, every ReAct turn (a prompt ending "Thought N:") gets a 503: run 5 of the experiment fails. */
let reactDown = false;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-exp-resume-'));
  srv = await startOpenAIServer({
    respond: scriptedRespond,
    fault: (req) =>
      reactDown && typeof req.body?.prompt === 'string' && /Thought \d+:$/.test(req.body.prompt)
        ? { kind: 'status', status: 503 }
        : undefined,
  });
});
afterAll(async () => {
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const lastLines = (s: string, n: number) => s.trimEnd().split('\n').slice(-n);
const manifestOf = (results: string, d: string) => JSON.parse(fs.readFileSync(path.join(results, d, 'manifest.json'), 'utf8'));
/** Run folder per method. */
const byMethod = (results: string) => new Map(runDirs(results).map((d) => [manifestOf(results, d).method as string, d]));
/** The command after "resume with: react-repro " on the last stderr line, as argv for runCli (no word is quoted here). */
const printedCommand = (stderr: string) => {
  const m = /^react-repro: resume with: react-repro (run .*)$/.exec(lastLines(stderr, 1)[0]);
  expect(m).not.toBeNull();
  return m![1].split(' ');
};
const NOT_REACHED =
  'react-repro: the experiment stopped in run 5 of 7: 2 of its 7 runs were not reached (hotpotqa cot-sc-react, hotpotqa react-cot-sc); ' +
  'the command below resumes run 5 and runs them (complete runs make no calls)';

/** The experiment's command against the test server, 3 questions a run, then `extra`. */
const experimentArgs = (...extra: string[]) => [
  'run',
  EXPERIMENT,
  '--limit',
  '3',
  '--concurrency',
  '1',
  '--base-url',
  srv.baseURL,
  '--model',
  'test-model',
  '--cache',
  'off',
  ...extra,
];

/** Every run of the experiment is there, complete, with every episode scored. */
function expectAllComplete(results: string): void {
  const runs = byMethod(results);
  expect([...runs.keys()].sort()).toEqual([...METHODS].sort());
  for (const d of runs.values()) {
    const latest = new Map(readLines(path.join(results, d, 'episodes.jsonl')).map((e) => [e.idx, e]));
    expect(latest.size).toBe(3);
    expect([...latest.values()].every((e) => e.error === null)).toBe(true);
    expect(manifestOf(results, d).sessions.at(-1).status).toBe('complete');
  }
}

describe('an experiment stopped before its last run', () => {
  it('--max-cost in run 5 of 7: the hint re-runs the experiment with its flags, and following it finishes all 7 runs', async () => {
    const env = cleanEnv({}, path.join(tmp, 'cache'));
    const common = experimentArgs('--price-prompt', '100', '--price-completion', '100');
    const ref = path.join(tmp, 'budget-ref');
    const whole = await runCli([...common, '--results-dir', ref], { cwd: tmp, env });
    expect(whole.code, whole.stderr).toBe(0);
    const refRuns = byMethod(ref);
    const cost = (m: string) => readLines(path.join(ref, refRuns.get(m)!, 'episodes.jsonl')).reduce((a, e) => a + (e.cost as number), 0);
    expect(cost('react')).toBeGreaterThan(0);
    // Enough for the first four runs and half of ReAct's: the stop falls inside run 5.
    const budget = (['standard', 'cot', 'cot-sc', 'act'].reduce((a, m) => a + cost(m), 0) + cost('react') / 2).toFixed(6);

    const results = path.join(tmp, 'budget');
    const args = [...common, '--results-dir', results, '--max-cost', budget];
    const r = await runCli(args, { cwd: tmp, env });
    expect(r.code, r.stderr).toBe(4);
    const reached = byMethod(results);
    expect([...reached.keys()]).toEqual(expect.arrayContaining(['standard', 'cot', 'cot-sc', 'act', 'react']));
    expect(reached.size).toBe(5);
    expect(readLines(path.join(results, reached.get('react')!, 'episodes.jsonl')).length).toBeLessThan(3);
    const tail = lastLines(r.stderr, 3);
    expect(tail[0]).toMatch(/^react-repro: stopped at the --max-cost budget of \$[0-9.]+: /);
    expect(tail.slice(1)).toEqual([NOT_REACHED, `react-repro: resume with: react-repro ${args.join(' ')}`]);
    // The stopped run alone is not offered: its --resume would end [complete] with runs 6 and 7 never run.
    expect(r.stderr).not.toContain('--resume');

    const again = await runCli(printedCommand(r.stderr), { cwd: tmp, env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.trimEnd().split('\n')).toHaveLength(7);
    expectAllComplete(results);
    // The same numbers as the experiment run in one go.
    for (const [m, d] of byMethod(results)) {
      expect(d).toBe(refRuns.get(m));
      expect(withoutSpent(fs.readFileSync(path.join(results, d, 'summary.csv'), 'utf8'))).toBe(
        withoutSpent(fs.readFileSync(path.join(ref, d, 'summary.csv'), 'utf8')),
      );
    }
  }, 180_000);

  it('the circuit breaker in run 5 of 7: the hint re-runs the experiment retrying the failed episodes, and following it finishes all 7 runs', async () => {
    const env = cleanEnv({}, path.join(tmp, 'cache'));
    const results = path.join(tmp, 'breaker');
    const args = experimentArgs('--max-retries', '0', '--max-consecutive-failures', '2', '--results-dir', results);
    reactDown = true;
    let r;
    try {
      r = await runCli(args, { cwd: tmp, env });
    } finally {
      reactDown = false;
    }
    expect(r.code, r.stderr).toBe(1);
    const reactDir = byMethod(results).get('react')!;
    expect(byMethod(results).size).toBe(5);
    expect(r.stderr).toContain('stopped: 2 episodes in a row failed on the model endpoint');
    expect(lastLines(r.stderr, 4)).toEqual([
      `react-repro: ${reactDir}: 2 episodes are recorded as errors:`,
      `react-repro:   llm 2 (first: model "test-model" at ${srv.baseURL} failed after 1 attempt: HTTP 503)`,
      NOT_REACHED,
      `react-repro: resume with: react-repro ${args.join(' ')} --retry-errors`,
    ]);

    const again = await runCli(printedCommand(r.stderr), { cwd: tmp, env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('re-running the 2 episodes of this run recorded as errors (--retry-errors)');
    expectAllComplete(results);
  }, 180_000);

  it('a combination stopped in its base run: the hint re-runs the combination, and following it makes the combination too', async () => {
    const env = cleanEnv({}, path.join(tmp, 'cache'));
    const results = path.join(tmp, 'combination');
    const args = ['run', '--task', 'hotpotqa', '--method', 'cot-sc-react', '--limit', '3', '--concurrency', '1'];
    args.push('--base-url', srv.baseURL, '--model', 'test-model', '--cache', 'off', '--max-retries', '0');
    args.push('--max-consecutive-failures', '2', '--results-dir', results);
    reactDown = true;
    let r;
    try {
      r = await runCli(args, { cwd: tmp, env });
    } finally {
      reactDown = false;
    }
    expect(r.code, r.stderr).toBe(1);
    // cot-sc ran whole, then the react base run stopped: the combination was never made.
    expect([...byMethod(results).keys()].sort()).toEqual(['cot-sc', 'react']);
    const reactDir = byMethod(results).get('react')!;
    expect(lastLines(r.stderr, 2)).toEqual([
      `react-repro: ${reactDir} is a base run of hotpotqa cot-sc-react: hotpotqa cot-sc-react was not made; ` +
        `the command below resumes ${reactDir} and makes it (complete runs make no calls)`,
      `react-repro: resume with: react-repro ${args.join(' ')} --retry-errors`,
    ]);
    const again = await runCli(printedCommand(r.stderr), { cwd: tmp, env });
    expect(again.code, again.stderr).toBe(0);
    const runs = byMethod(results);
    expect([...runs.keys()].sort()).toEqual(['cot-sc', 'cot-sc-react', 'react']);
    for (const d of runs.values()) expect(manifestOf(results, d).sessions.at(-1).status).toBe('complete');
  }, 180_000);
});
