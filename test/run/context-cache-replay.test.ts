// A run whose prompts outgrew the model's context window re-runs from its completion cache: behind a
// stand-in answering vLLM's 400 for prompts that do not fit, a run scores the refused episodes as
// context_exceeded; the same command with --cache replay makes no request at all, spends nothing and
// writes the same episodes (README "Cache and replay", "Model limits are outcomes, not outages").
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer } from '../servers/openai-server.js';
import { limitRespond } from '../cli/context-helpers.js';
import { cleanEnv, readLines, runCli, runDirs } from './cli-helpers.js';

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'context-replay-'));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/**
 * The records without what differs between any run and its re-run from the cache: the time taken and
 * what this invocation spent and took from the cache (a replay spends nothing; checked below).
 */
const byIdx = (records: Array<Record<string, unknown>>) =>
  records
    .map(({ latency_ms: _l, spent_cost: _c, spent_usage: _u, cached_calls: _h, ...rest }) => rest)
    .sort((a, b) => Number(a.idx) - Number(b.idx));

/**
 * Every episode of a replay spent nothing (spent_* are left out when they equal the totals, as for
 * an episode whose only call was refused), and each call of an episode that ran to its end was a cache hit.
 */
function expectServedFromCache(records: Array<Record<string, any>>): void {
  for (const x of records) {
    expect(x.spent_cost ?? x.cost).toBe(0);
    expect((x.spent_usage ?? x.usage).total_tokens).toBe(0);
    if (x.outcome === undefined) expect(x.cached_calls).toBe(x.n_calls);
  }
}

const csvRow = (dir: string): Record<string, string> => {
  const [head, row] = fs.readFileSync(path.join(dir, 'summary.csv'), 'utf8').trim().split('\n');
  const vals = row.split(',');
  return Object.fromEntries(head.split(',').map((c, i) => [c, vals[i]]));
};

async function runThenReplay(name: string, window: number, args: string[]) {
  const srv = await startOpenAIServer({ respond: limitRespond, contextWindow: { tokens: window, family: 'vllm' } });
  const env = cleanEnv({}, path.join(tmp, `${name}-cache`));
  const common = ['run', '--task', 'hotpotqa', ...args, '--base-url', srv.baseURL, '--model', 'test-model'];
  const prices = ['--price-prompt', '100', '--price-completion', '100'];
  try {
    const results = path.join(tmp, name);
    const first = await runCli([...common, ...prices, '--results-dir', results], { cwd: tmp, env });
    const firstDir = path.join(results, runDirs(results)[0]);
    const sent = srv.completionRequests().length;
    srv.reset();
    const replayed = path.join(tmp, `${name}-replay`);
    const again = await runCli([...common, ...prices, '--cache', 'replay', '--results-dir', replayed], { cwd: tmp, env });
    const [dir] = runDirs(replayed);
    return { first, firstDir, again, againDir: dir ? path.join(replayed, dir) : '', sent, requestsDuringReplay: srv.requests.length };
  } finally {
    await srv.close();
  }
}

describe('--cache replay re-runs a run with context_exceeded episodes', () => {
  it('ReAct: the refused turns are refused again from the cache; same episodes, exit 0, no request, nothing spent', async () => {
    // The second turns that read Scott Derrickson's page outgrow 1,175 tokens (test/cli/context-limits.test.ts).
    const { first, firstDir, again, againDir, sent, requestsDuringReplay } = await runThenReplay('react', 1175, [
      '--method',
      'react',
      '--limit',
      '20',
    ]);
    expect(first.code, first.stderr).toBe(0);
    const records = readLines(path.join(firstDir, 'episodes.jsonl'));
    const over = records.filter((x) => x.outcome === 'context_exceeded');
    expect(over.length).toBeGreaterThan(0);
    expect(over.length).toBeLessThan(20);
    expect(sent).toBeGreaterThan(20);

    expect(again.stderr).not.toMatch(/not in the cache file/);
    expect(again.code, again.stderr).toBe(first.code);
    expect(requestsDuringReplay).toBe(0);
    const replayed = readLines(path.join(againDir, 'episodes.jsonl'));
    expect(byIdx(replayed)).toEqual(byIdx(records));
    expectServedFromCache(replayed);
    expect(again.stderr).toContain(`${over.length} of 20 episodes outgrew the model's 1,175-token window`);
    expect(again.stdout).toContain('this command spent 0 tokens, $0.0000');
    const manifest = JSON.parse(fs.readFileSync(path.join(againDir, 'manifest.json'), 'utf8'));
    expect(manifest.sessions.at(-1)).toMatchObject({ status: 'complete', spent: { total_tokens: 0, cost_usd: 0 } });
    expect(manifest.limits).toMatchObject({ context_exceeded: over.length });
    expect(Number(csvRow(againDir).spent_tokens)).toBe(0);
    expect(Number(csvRow(againDir).spent_cost_usd)).toBe(0);
  }, 180_000);

  it('CoT-SC: every first prompt refused; the replay refuses them again without a request', async () => {
    const { first, firstDir, again, againDir, sent, requestsDuringReplay } = await runThenReplay('cot-sc', 120, [
      '--method',
      'cot-sc',
      '--samples',
      '3',
      '--limit',
      '5',
    ]);
    expect(first.code, first.stderr).toBe(0);
    const records = readLines(path.join(firstDir, 'episodes.jsonl'));
    expect(records.every((x) => x.outcome === 'context_exceeded' && x.error === null)).toBe(true);
    expect(sent).toBe(5);
    expect(again.code, again.stderr).toBe(0);
    expect(requestsDuringReplay).toBe(0);
    const replayed = readLines(path.join(againDir, 'episodes.jsonl'));
    expect(byIdx(replayed)).toEqual(byIdx(records));
    expectServedFromCache(replayed);
    expect(again.stderr).toContain("5 of 5 episodes outgrew the model's 120-token window");
    expect(again.stdout).toContain('this command spent 0 tokens, $0.0000');
  }, 120_000);
});
