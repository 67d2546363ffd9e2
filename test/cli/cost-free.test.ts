// What a cost figure is of the bill when some calls came back without usage (README "Reliability",
// src/run/meter.ts costStanding), end to end: a $0 is whole only when every session it covers billed
// nothing by its rates (prices of 0 given, or a model run in-process), never because the counted calls
// happened to cost $0; and an episode's spend is whole when its calls without usage were cache hits.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer } from '../servers/openai-server.js';
import { cleanEnv, runCli, runDirs, scriptedRespond } from '../run/cli-helpers.js';

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cost-free-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const common = ['--task', 'fever', '--method', 'standard', '--model', 'test-model'];
const free = ['--price-prompt', '0', '--price-completion', '0'];
const priced = ['--price-prompt', '100', '--price-completion', '100'];
const csvRow = (dir: string): Record<string, string> => {
  const [head, row] = fs.readFileSync(path.join(dir, 'summary.csv'), 'utf8').trim().split('\n');
  const cols = head.split(',');
  const vals = row.split(',');
  return Object.fromEntries(cols.map((c, i) => [c, vals[i]]));
};
const manifestOf = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
const recordsOf = (dir: string): any[] =>
  fs
    .readFileSync(path.join(dir, 'episodes.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
async function exported(results: string): Promise<any[]> {
  const ex = await runCli(['export', results, '--format', 'jsonl'], { cwd: tmp });
  expect(ex.code, ex.stderr).toBe(0);
  return ex.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}
async function reportOf(results: string, format: string): Promise<string> {
  const r = await runCli(['report', results, '--format', format], { cwd: tmp });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

describe('a $0 is whole only when every session billed nothing by its rates', () => {
  it('priced at 0 by one session and at 100 by the resume that got answers without usage: a lower bound, not $0', async () => {
    let k = 0;
    // Every second call fails (no retries): two error episodes for the resume to re-run. One episode at a
    // time, so the calls arrive in plan order and the scored ones (their tokens below) are the same two
    // whatever the machine's timing.
    const withUsage = await startOpenAIServer({
      respond: scriptedRespond,
      fault: (r) => (r.path.includes('completions') && ++k % 2 === 0 ? { kind: 'status', status: 503 } : undefined),
    });
    const noUsage = await startOpenAIServer({ respond: scriptedRespond, usage: false });
    try {
      const results = path.join(tmp, 'price-mix');
      const args = [...common, '--cache', 'off', '--results-dir', results];
      const once = ['--limit', '4', '--concurrency', '1', '--max-retries', '0'];
      const one = await runCli(['run', ...args, ...once, '--base-url', withUsage.baseURL, ...free], {
        cwd: tmp,
        env: cleanEnv(),
      });
      expect(one.code, one.stderr).toBe(3);
      const [id] = runDirs(results);
      const dir = path.join(results, id);
      const two = await runCli(
        ['run', '--resume', id, '--retry-errors', '--results-dir', results, '--base-url', noUsage.baseURL, ...priced],
        { cwd: tmp, env: cleanEnv() },
      );
      expect(two.code, two.stderr).toBe(0);
      // Prices of 0 are a session that billed nothing; the resume billed at 100.
      expect(manifestOf(dir).sessions.map((s: any) => s.price)).toEqual(['free', 'known']);
      expect(two.stdout).toContain('tokens ≥ 128, cost ≥ $0.0000 (+2 calls answered without usage, not counted)');
      // summary.csv keeps its cost cells numbers: the count beside them says they leave calls out.
      expect(csvRow(dir)).toMatchObject({ cost_usd: '0', usage_unknown_calls: '2', spent_cost_usd: '0', paid_unknown_calls: '2' });
      const md = await reportOf(results, 'md');
      const row = md.split('\n').find((l) => l.startsWith('|') && l.includes(id))!;
      expect(row).toMatch(/\| ≥0\.0000 \| 2 \| ≥0\.0000 \| 2 \|/);
      const rows = await exported(results);
      // The re-run episodes' calls went to the model at 100 without usage: left out of what they spent.
      expect(rows.filter((r) => r.spent_cost_lower_bound === undefined && r.spent_cost === null)).toHaveLength(2);
      expect(rows.filter((r) => r.spent_cost === 0 && r.spent_cost_lower_bound === undefined)).toHaveLength(2);
    } finally {
      await withUsage.close();
      await noUsage.close();
    }
  }, 120_000);

  it('priced at 0 on a server that never reports usage: $0, the whole bill, in every output', async () => {
    const srv = await startOpenAIServer({ respond: scriptedRespond, usage: false });
    try {
      const results = path.join(tmp, 'free-no-usage');
      const made = await runCli(
        ['run', ...common, '--cache', 'off', '--limit', '2', '--base-url', srv.baseURL, ...free, '--results-dir', results],
        {
          cwd: tmp,
          env: cleanEnv(),
        },
      );
      expect(made.code, made.stderr).toBe(0);
      const [id] = runDirs(results);
      const dir = path.join(results, id);
      expect(manifestOf(dir).sessions.map((s: any) => s.price)).toEqual(['free']);
      expect(made.stdout).toContain(
        'tokens unknown, cost $0.0000 (+2 calls answered without usage, not counted); this command spent an unknown number of tokens, $0.0000 (+2 calls answered without usage or cut off in flight: billed nothing, tokens not counted)',
      );
      expect(csvRow(dir)).toMatchObject({ cost_usd: '0', spent_cost_usd: '0', usage_unknown_calls: '2', paid_unknown_calls: '2' });
      const csv = await reportOf(results, 'csv');
      expect(csv).toContain(`,ours,Cost USD (total),0.0000,,,${id}`);
      expect(csv).toContain(`,ours,Cost USD (spent),0.0000,,,${id}`);
      const rows = await exported(results);
      expect(rows.map((r) => [r.cost, r.cost_lower_bound, r.spent_cost, r.spent_cost_lower_bound])).toEqual([
        [0, undefined, 0, undefined],
        [0, undefined, 0, undefined],
      ]);
    } finally {
      await srv.close();
    }
  }, 60_000);
});

describe("an episode's spend when its calls without usage were cache hits", () => {
  it('a run served wholly from the cache spent $0, whole; one whose calls went to the model without usage did not say what', async () => {
    const srv = await startOpenAIServer({ respond: scriptedRespond, usage: false });
    try {
      const cache = path.join(tmp, 'hits.sqlite');
      const args = ['run', ...common, '--cache-path', cache, '--base-url', srv.baseURL, ...priced];
      const first = path.join(tmp, 'hits-first');
      const made = await runCli([...args, '--limit', '2', '--results-dir', first], { cwd: tmp, env: cleanEnv() });
      expect(made.code, made.stderr).toBe(0);
      // Its calls went to the model: each record says how many of its calls without usage did.
      expect(recordsOf(path.join(first, runDirs(first)[0])).map((r) => r.spent_usage_unknown_calls)).toEqual([1, 1]);
      expect((await exported(first)).map((r) => r.spent_cost)).toEqual([null, null]);
      // Again into another folder: two episodes from the cache, a third that goes to the model.
      const again = path.join(tmp, 'hits-again');
      const re = await runCli([...args, '--limit', '3', '--results-dir', again], { cwd: tmp, env: cleanEnv() });
      expect(re.code, re.stderr).toBe(0);
      // (In the order of their cached calls: episodes are appended as they finish.)
      const byCached = (a: any[], b: any[]) => b[0] - a[0];
      const recs = recordsOf(path.join(again, runDirs(again)[0]));
      // Each record with a call without usage says how many went to the model, 0 for a cache hit.
      expect(recs.map((r) => [r.cached_calls, r.spent_usage_unknown_calls]).sort(byCached)).toEqual([
        [1, 0],
        [1, 0],
        [0, 1],
      ]);
      const rows = await exported(again);
      expect(rows.map((r) => [r.cached_calls, r.cost, r.spent_cost, r.spent_cost_lower_bound]).sort(byCached)).toEqual([
        [1, null, 0, undefined],
        [1, null, 0, undefined],
        [0, null, null, undefined],
      ]);
      // Wholly from the cache: nothing went to the model, so every episode spent $0.
      const hits = path.join(tmp, 'hits-only');
      const all = await runCli([...args, '--limit', '2', '--results-dir', hits], { cwd: tmp, env: cleanEnv() });
      expect(all.code, all.stderr).toBe(0);
      expect((await exported(hits)).map((r) => [r.spent_cost, r.spent_cost_lower_bound])).toEqual([
        [0, undefined],
        [0, undefined],
      ]);
    } finally {
      await srv.close();
    }
  }, 120_000);

  it('a run whose calls went to the model without usage, bundled and re-run offline, comes back identical', async () => {
    const srv = await startOpenAIServer({ respond: scriptedRespond, usage: false });
    try {
      const results = path.join(tmp, 'bundled');
      const env = cleanEnv({}, path.join(tmp, 'bundled-cache'));
      const made = await runCli(['run', ...common, '--limit', '2', '--base-url', srv.baseURL, ...priced, '--results-dir', results], {
        cwd: tmp,
        env,
      });
      expect(made.code, made.stderr).toBe(0);
      const dir = path.join(results, runDirs(results)[0]);
      const file = path.join(tmp, 'bundled.tar.gz');
      const bundled = await runCli(['bundle', dir, '--out', file], { cwd: tmp, env });
      expect(bundled.code, bundled.stderr).toBe(0);
      const offline = path.join(tmp, 'bundled-offline');
      const re = await runCli(['run', '--from-bundle', file, '--results-dir', offline], { cwd: tmp, env });
      expect(re.code, re.stderr).toBe(0);
      expect(re.stdout).toContain('identical to the bundle');
      const strip = (rs: any[]) => rs.map(({ latency_ms: _l, ...r }) => r);
      expect(strip(recordsOf(path.join(offline, runDirs(offline)[0])))).toEqual(strip(recordsOf(dir)));
      expect(recordsOf(dir).map((r) => r.spent_usage_unknown_calls)).toEqual([1, 1]);
    } finally {
      await srv.close();
    }
  }, 60_000);
});
