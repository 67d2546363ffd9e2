// A token figure follows the rule a cost figure does (src/run/meter.ts costStanding, README
// "Reliability"): when calls were answered without usage it is a lower bound ("tokens ≥ 128"), and when
// no call of it was counted it is unknown, never "tokens 0", in every line a person reads: the result
// line, the progress line and the report's Runs table. The CSV sheets keep numbers (or "unknown").
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startOpenAIServer } from '../servers/openai-server.js';
import { cleanEnv, runCli, runDirs, scriptedRespond } from '../run/cli-helpers.js';

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'token-figures-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const common = ['--task', 'fever', '--method', 'standard', '--model', 'test-model', '--cache', 'off'];
const priced = ['--price-prompt', '100', '--price-completion', '100'];
const csvRow = (dir: string): Record<string, string> => {
  const [head, row] = fs.readFileSync(path.join(dir, 'summary.csv'), 'utf8').trim().split('\n');
  const cols = head.split(',');
  const vals = row.split(',');
  return Object.fromEntries(cols.map((c, i) => [c, vals[i]]));
};
async function reportOf(results: string, format: string): Promise<string> {
  const r = await runCli(['report', results, '--format', format], { cwd: tmp });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}
/** The last plain progress line of a run's stderr (not a terminal: one line per update). */
const lastProgress = (stderr: string) =>
  stderr
    .split('\n')
    .filter((l) => / \d+\/\d+ \(\d+%\) /.test(l))
    .at(-1)!;

it('a server that never reports usage: the tokens are unknown, not 0', async () => {
  const srv = await startOpenAIServer({ respond: scriptedRespond, usage: false });
  try {
    const results = path.join(tmp, 'none');
    const made = await runCli(['run', ...common, '--limit', '2', '--base-url', srv.baseURL, ...priced, '--results-dir', results], {
      cwd: tmp,
      env: cleanEnv(),
    });
    expect(made.code, made.stderr).toBe(0);
    const [id] = runDirs(results);
    expect(made.stdout).toContain(
      'errors 0, tokens unknown, cost unknown (+2 calls answered without usage, not counted); this command spent an unknown number of tokens, cost unknown (+2 calls of unknown billing',
    );
    expect(made.stdout).not.toMatch(/tokens 0\b|spent 0 tokens/);
    expect(lastProgress(made.stderr)).toContain(' tokens unknown ');
    // summary.csv keeps its numbers: its count of calls without usage says what they leave out.
    expect(csvRow(path.join(results, id))).toMatchObject({ total_tokens: '0', spent_tokens: '0', usage_unknown_calls: '2' });
    const md = await reportOf(results, 'md');
    const row = md.split('\n').find((l) => l.startsWith('|') && l.includes(id))!;
    // Calls, cached calls, tokens (total, spent), cost (total), calls without usage, cost (spent), calls of unknown billing.
    expect(row).toContain('| 2 | 0 | unknown | unknown | unknown | 2 | unknown | 2 |');
    const csv = await reportOf(results, 'csv');
    expect(csv).toContain(`,ours,Tokens (total),unknown,,,${id}`);
    expect(csv).toContain(`,ours,Tokens (spent),unknown,,,${id}`);
  } finally {
    await srv.close();
  }
}, 60_000);

it('some calls answered without usage: the tokens counted are a lower bound, marked ≥', async () => {
  let k = 0;
  // Every second call fails (no retries): two error episodes for the resume to re-run without usage.
  const withUsage = await startOpenAIServer({
    respond: scriptedRespond,
    fault: (r) => (r.path.includes('completions') && ++k % 2 === 0 ? { kind: 'status', status: 503 } : undefined),
  });
  const noUsage = await startOpenAIServer({ respond: scriptedRespond, usage: false });
  try {
    const results = path.join(tmp, 'some');
    const one = await runCli(
      ['run', ...common, '--limit', '4', '--max-retries', '0', '--base-url', withUsage.baseURL, ...priced, '--results-dir', results],
      { cwd: tmp, env: cleanEnv() },
    );
    expect(one.code, one.stderr).toBe(3);
    const [id] = runDirs(results);
    const counted = Number(csvRow(path.join(results, id)).total_tokens);
    expect(counted).toBeGreaterThan(0);
    expect(one.stdout).toContain(`tokens ${counted}, cost $`); // every call it counted had usage: whole
    const two = await runCli(
      ['run', '--resume', id, '--retry-errors', '--results-dir', results, '--base-url', noUsage.baseURL, ...priced],
      {
        cwd: tmp,
        env: cleanEnv(),
      },
    );
    expect(two.code, two.stderr).toBe(0);
    expect(two.stdout).toContain(`tokens ≥ ${counted}, cost ≥ $`);
    // This command's own calls all came back without usage: it counted none of them.
    expect(two.stdout).toContain('this command spent an unknown number of tokens, cost unknown (+2 calls of unknown billing');
    expect(lastProgress(two.stderr)).toContain(` tokens ≥ ${counted} ≥ $`);
    const md = await reportOf(results, 'md');
    const row = md.split('\n').find((l) => l.startsWith('|') && l.includes(id))!;
    expect(row).toContain(`| ≥${counted} | ≥${counted} | ≥`);
    const csv = await reportOf(results, 'csv');
    expect(csv).toContain(`,ours,Tokens (total),${counted},,,${id}`);
    expect(csv).not.toContain('≥');
  } finally {
    await withUsage.close();
    await noUsage.close();
  }
}, 120_000);
