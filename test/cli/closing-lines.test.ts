// `run`'s closing lines and exit status, as pure functions (the CLI tests run them end to end).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkRepeatedFlags,
  closingLines,
  exitCodeOf,
  invocationCommand,
  resumeCommand,
  shellWord,
  EXIT,
} from '../../src/cli/commands/run.js';
import { CircuitOpenError } from '../../src/run/breaker.js';
import { BudgetStop } from '../../src/run/budget.js';
import { FatalRunError } from '../../src/errors.js';
import { defaultResultsDir } from '../../src/paths.js';
import { refuseUrlQueries } from '../../src/envs/http/base-url.js';
import '../../src/benchmarks/builtin.js';
import type { RunResult } from '../../src/run/execute.js';
import type { EndpointTally } from '../../src/llm/endpoints.js';

const result = (over: Partial<RunResult> & { runId: string }): RunResult =>
  ({
    dir: path.join('/data/res', over.runId),
    status: 'complete',
    summary: {} as RunResult['summary'],
    errorCauses: [],
    ...over,
  }) as RunResult;

describe('exit status', () => {
  it('fatal > signal > budget > errors > ok, over all the runs of an invocation', () => {
    const ok = result({ runId: 'a' });
    const errs = result({ runId: 'b', errorCauses: [{ source: 'env', count: 1, first: 'x' }] });
    expect(exitCodeOf([ok])).toBe(EXIT.ok);
    expect(exitCodeOf([ok, errs])).toBe(EXIT.errors);
    expect(exitCodeOf([errs, result({ runId: 'c', status: 'interrupted', stoppedBy: 'max-cost' })])).toBe(4);
    expect(exitCodeOf([errs, result({ runId: 'c', status: 'interrupted', stoppedBy: 'SIGTERM' })])).toBe(143);
    expect(exitCodeOf([result({ runId: 'c', status: 'interrupted', stoppedBy: 'SIGINT' })])).toBe(130);
    expect(exitCodeOf([errs, result({ runId: 'c', status: 'failed', fatal: new FatalRunError('401') })])).toBe(1);
  });
});

describe('closing lines', () => {
  it('errors of several runs: per cause with the first message, the retry commands last', () => {
    const lines = closingLines([
      result({
        runId: 'r1',
        errorCauses: [{ source: 'llm', count: 2, first: 'model "m" at http://h/v1 failed after 6 attempts:\n HTTP 503' }],
      }),
      result({ runId: 'r2' }),
      result({
        runId: 'r3',
        errorCauses: [
          { source: 'env', count: 1, first: 'Wikipedia: GET http://w/x failed 10 times' },
          { source: 'internal', count: 3, first: 'TypeError: x' },
        ],
      }),
    ]);
    expect(lines).toEqual([
      'r1: 2 episodes are recorded as errors:',
      '  llm 2 (first: model "m" at http://h/v1 failed after 6 attempts: HTTP 503)',
      'r3: 4 episodes are recorded as errors:',
      '  env 1 (first: Wikipedia: GET http://w/x failed 10 times)',
      '  internal 3 (first: TypeError: x)',
      're-run the error episodes with: react-repro run --resume r1 --retry-errors --results-dir /data/res',
      're-run the error episodes with: react-repro run --resume r3 --retry-errors --results-dir /data/res',
    ]);
  });

  it('a stop says why first, and the resume command is the last line', () => {
    const open = new CircuitOpenError(
      'env',
      5,
      'Wikipedia unreachable at http://w: failed 3 times (last: connection refused (ECONNREFUSED))',
    );
    const stopped = closingLines([
      result({ runId: 'r', status: 'failed', fatal: open, errorCauses: [{ source: 'env', count: 5, first: 'Wikipedia unreachable' }] }),
    ]);
    expect(stopped[0]).toBe(
      'stopped: 5 episodes in a row failed on the environment: Wikipedia unreachable at http://w: failed 3 times (last: connection refused (ECONNREFUSED))',
    );
    expect(stopped.at(-1)).toBe('resume with: react-repro run --resume r --retry-errors --results-dir /data/res');
    expect(stopped.filter((l) => l.includes('react-repro run'))).toHaveLength(1);
    const budget = closingLines([
      result({
        runId: 'r',
        status: 'interrupted',
        stoppedBy: 'max-cost',
        budgetStop: new BudgetStop('stopped at the --max-cost budget of $1.00: ...'),
      }),
    ]);
    expect(budget).toEqual([
      'stopped at the --max-cost budget of $1.00: ...',
      'resume with: react-repro run --resume r --results-dir /data/res',
    ]);
    // With the invocation's meter: what it spent in all, calls of unknown billing said apart.
    const stop = result({ runId: 'r', status: 'interrupted', stoppedBy: 'max-cost', budgetStop: new BudgetStop('stopped at ...') });
    const spent = { calls: 4, prompt_tokens: 10, completion_tokens: 2, total_tokens: 12, cost_usd: 0.75, paid_unknown_calls: 0 };
    expect(closingLines([stop], undefined, spent)[0]).toBe(
      'stopped at ...; with the calls then in flight, this command spent $0.7500 in all',
    );
    // Those calls are left out of the figure, so it is a lower bound; with none counted, no figure at all.
    expect(closingLines([stop], undefined, { ...spent, paid_unknown_calls: 2 })[0]).toBe(
      'stopped at ...; with the calls then in flight, this command spent ≥ $0.7500 in all (+2 calls of unknown billing)',
    );
    const nothingCounted = {
      ...spent,
      calls: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      cost_usd: 0,
      paid_unknown_calls: 3,
    };
    expect(closingLines([stop], undefined, nothingCounted)[0]).toBe(
      'stopped at ...; with the calls then in flight, this command spent an unknown amount in all (+3 calls of unknown billing)',
    );
  });

  it('a fleet endpoint that failed: one line each, summed over the runs, kinds most frequent first; none when all answered', () => {
    const fleet = (a: Partial<EndpointTally>, b: Partial<EndpointTally> = {}): EndpointTally[] => [
      { endpoint: 'http://a:8000/v1', attempts: 5, answered: 5, failures: {}, ...a },
      { endpoint: 'http://b:8000/v1?api-key=***', attempts: 5, answered: 5, failures: {}, ...b },
    ];
    expect(closingLines([result({ runId: 'r', endpoints: fleet({}) })])).toEqual([]);
    const lines = closingLines([
      result({ runId: 'r1', endpoints: fleet({}, { attempts: 3, answered: 0, failures: { refused: 3 } }) }),
      result({
        runId: 'r2',
        endpoints: fleet(
          { attempts: 6, answered: 5, failures: { 'HTTP 503': 1 } },
          { attempts: 4, answered: 0, failures: { timeout: 1, refused: 3 } },
        ),
      }),
      result({
        runId: 'r3',
        status: 'failed',
        fatal: new FatalRunError('the model server http://a:8000/v1 rejected the API key (401)'),
      }),
    ]);
    expect(lines.slice(0, 3)).toEqual([
      'model endpoint http://a:8000/v1: answered 10 of its 11 attempts (1 HTTP 503 response)',
      'model endpoint http://b:8000/v1?api-key=***: answered 0 of its 7 attempts (6 refused connections, 1 timeout)',
      'the model server http://a:8000/v1 rejected the API key (401)',
    ]);
  });

  it('a combination with errors points at its base runs', () => {
    const lines = closingLines([
      result({
        runId: 'combo',
        errorCauses: [{ source: 'llm', count: 1, first: 'cot-sc: x' }],
        retryRuns: [{ runId: 'base-cotsc', dir: '/data/res/base-cotsc' }],
      }),
    ]);
    expect(lines.slice(-2)).toEqual([
      "the combination errors are its base runs' errors: retry those, then run the combination again",
      're-run the error episodes with: react-repro run --resume base-cotsc --retry-errors --results-dir /data/res',
    ]);
  });

  it('the resume command leaves out the default results folder and quotes what the shell would split', () => {
    expect(resumeCommand(path.join(defaultResultsDir(), 'r1'), { retryErrors: true })).toBe('react-repro run --resume r1 --retry-errors');
    expect(resumeCommand("/my runs/it's/r1", { retryErrors: false })).toBe(`react-repro run --resume r1 --results-dir '/my runs/it'\\''s'`);
    expect(shellWord('a-b_c.d/e:1')).toBe('a-b_c.d/e:1');
  });

  it("an environment server's URL recorded with a key in its query (by an older version) is printed as a resume takes it", () => {
    const results = fs.mkdtempSync(path.join(os.tmpdir(), 'closing-'));
    try {
      const runDir = path.join(results, 'r1');
      fs.mkdirSync(runDir);
      const settings = {
        wikiUrl: 'http://wiki.test:3000/w?key=***',
        envUrl: 'http://e:1/?Token=***,http://f:2/?lang=en',
        baseUrl: ['http://a/v1?api-version=1&api-key=***'],
      };
      const manifest = { runId: 'r1', task: 'hotpotqa', method: 'react', split: 'dev', model: 'm', indices: [0], settings };
      fs.writeFileSync(path.join(runDir, 'manifest.json'), JSON.stringify(manifest));
      const cmd = resumeCommand(runDir, { retryErrors: true });
      // the model's URL keeps its query; a server's URL drops it, its key shown in the userinfo it now goes in
      expect(cmd).toBe(
        `react-repro run --resume r1 --wiki-url 'http://***@wiki.test:3000/w' --env-url 'http://***@e:1/,http://f:2/' --base-url 'http://a/v1?api-version=1&api-key=***' --retry-errors --results-dir ${results}`,
      );
      // with the credentials put back, as the note above it says, the check on a server's URL takes it
      const given = (flag: string) => cmd.split(' ')[cmd.split(' ').indexOf(flag) + 1].replaceAll("'", '').replace('***', 'user:KEY');
      expect(() => refuseUrlQueries(given('--wiki-url'), '--wiki-url')).not.toThrow();
      expect(() => refuseUrlQueries(given('--env-url'), '--env-url')).not.toThrow();
      const lines = closingLines([result({ runId: 'r1', dir: runDir, status: 'interrupted', stoppedBy: 'SIGINT' })]);
      expect(lines.slice(-2)).toEqual([
        "a URL below had credentials, printed as ***: put them back before running it (***@ stands for the URL's user:KEY@)",
        `resume with: ${resumeCommand(runDir, { retryErrors: false })}`,
      ]);
    } finally {
      fs.rmSync(results, { recursive: true, force: true });
    }
  });
});

describe('closing lines of an experiment file', () => {
  const exp = {
    args: ['run', 'table1', '--model', 'm', '--max-cost', '5'],
    runs: ['hotpotqa cot', 'hotpotqa react', 'hotpotqa cot-sc-react'],
  };
  const interrupted = (runId: string) => result({ runId, status: 'interrupted', stoppedBy: 'SIGINT' });

  it('stopped before its last run: how many runs were not reached, then the experiment command', () => {
    expect(closingLines([result({ runId: 'a' }), interrupted('b')], exp)).toEqual([
      'interrupted (SIGINT): the episodes in flight were dropped',
      'the experiment stopped in run 2 of 3: 1 of its 3 runs was not reached (hotpotqa cot-sc-react); the command below resumes run 2 and runs it (complete runs make no calls)',
      'resume with: react-repro run table1 --model m --max-cost 5',
    ]);
  });

  it('stopped in its last run, or not stopped: the lines of a single run', () => {
    expect(closingLines([result({ runId: 'a' }), result({ runId: 'b' }), interrupted('c')], exp).at(-1)).toBe(
      'resume with: react-repro run --resume c --results-dir /data/res',
    );
    expect(closingLines([result({ runId: 'a' }), result({ runId: 'b' }), result({ runId: 'c' })], exp)).toEqual([]);
  });

  it('the command adds --retry-errors once, quotes what the shell would split and never prints URL credentials', () => {
    expect(invocationCommand(['run', 'my exp.json', '--retry-errors'], { retryErrors: true })).toBe(
      "react-repro run 'my exp.json' --retry-errors",
    );
    const c = invocationCommand(['run', 'x', '--wiki-url', 'http://u:s3cret@h/w', '--env-url=http://u:s3cret@e'], { retryErrors: true });
    expect(c).toBe("react-repro run x --wiki-url 'http://***@h/w' '--env-url=http://***@e' --retry-errors");
    const lines = closingLines([interrupted('a')], { args: ['run', 'x', '--wiki-url', 'http://u:s3cret@h/w'], runs: ['t m', 't n'] });
    expect(lines.join('\n')).not.toContain('s3cret');
    expect(lines.slice(-3, -2)).toEqual([
      "a URL below had credentials, printed as ***: put them back before running it (***@ stands for the URL's user:KEY@)",
    ]);
    const q = invocationCommand(['run', 'x', '--base-url', 'http://h/v1?api-version=1&api-key=s3cret'], { retryErrors: false });
    expect(q).toBe("react-repro run x --base-url 'http://h/v1?api-version=1&api-key=***'");
    expect(invocationCommand(['run', 'x', '--base-url', 'http://h/v1?api-version=1'], { retryErrors: false })).toBe(
      "react-repro run x --base-url 'http://h/v1?api-version=1'",
    );
  });
});

describe('repeated flags', () => {
  it('a single-valued flag given twice is an error naming both values; --base-url may repeat', () => {
    const table = {
      limit: { type: 'number' as const, describe: '' },
      'base-url': { type: 'string' as const, describe: '' },
      'dry-run': { type: 'boolean' as const, describe: '' },
    };
    expect(() => checkRepeatedFlags(['run', '--limit', '12', '--limit=1'], table)).toThrow(
      '--limit is given 2 times ("12", "1"): give it once',
    );
    expect(() => checkRepeatedFlags(['run', '--dry-run', '--dryRun'], table)).toThrow(
      '--dry-run is given 2 times ("true", "true"): give it once',
    );
    expect(() =>
      checkRepeatedFlags(['run', '--base-url', 'http://a/v1', '--base-url', 'http://b/v1', '--limit', '3'], table),
    ).not.toThrow();
  });
});
