// A bundle's re-run pays for nothing (README "Reliability", spent = billed): a priced run made against
// the test OpenAI server is bundled and re-run with `run --from-bundle`; the re-run's session spent
// nothing (manifest, summary.csv, the result line, the report's spent columns), while its episode
// records, accounting included, are the bundled ones.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer } from '../servers/openai-server.js';
import { startWikiServer } from '../servers/wiki-server.js';
import { cleanEnv, readLines, runCli, runDirs, scriptedWikiRespond, withoutSpent } from '../run/cli-helpers.js';

const PRICE = 100; // USD per 1M tokens: the test tokenizer's prompts cost cents

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bundle-spend-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const respond = scriptedWikiRespond;

const manifestOf = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
const csvRow = (dir: string): Record<string, string> => {
  const [head, row] = fs.readFileSync(path.join(dir, 'summary.csv'), 'utf8').trim().split('\n');
  const vals = row.split(',');
  return Object.fromEntries(head.split(',').map((c, i) => [c, vals[i]]));
};
const byIdx = (dir: string) => new Map(readLines(path.join(dir, 'episodes.jsonl')).map((r) => [r.idx as number, r]));

describe('run --from-bundle spends nothing', () => {
  it("a priced run's re-run: session spent 0, summary and report spent 0, records as bundled", async () => {
    const llm = await startOpenAIServer({ respond });
    const wiki = await startWikiServer();
    const results = path.join(tmp, 'results');
    const cacheDir = path.join(tmp, 'cache');
    let dir: string;
    try {
      const r = await runCli(
        [
          'run',
          '--task',
          'hotpotqa',
          '--method',
          'react',
          '--indices',
          '0,1,2',
          '--wiki',
          'live',
          '--wiki-url',
          wiki.url,
          '--base-url',
          llm.baseURL,
          '--model',
          'test-model',
          '--price-prompt',
          String(PRICE),
          '--price-completion',
          String(PRICE),
          '--results-dir',
          results,
        ],
        { cwd: tmp, env: cleanEnv({}, cacheDir) },
      );
      expect(r.stderr).not.toMatch(/internal error/);
      expect(r.code).toBe(0);
      dir = path.join(results, runDirs(results)[0]);
      const b = await runCli(['bundle', dir, '--out', path.join(tmp, 'b1.tar.gz')], { cwd: tmp, env: cleanEnv({}, cacheDir) });
      expect(b.code).toBe(0);
    } finally {
      await llm.close();
      await wiki.close();
    }
    // The original paid: its session's spent is the server's bill.
    const paid = manifestOf(dir).sessions[0].spent;
    expect(paid).toMatchObject({ calls: llm.billed.requests, total_tokens: llm.billed.prompt_tokens + llm.billed.completion_tokens });
    expect(paid.cost_usd).toBeGreaterThan(0);
    expect(Number(csvRow(dir).spent_tokens)).toBe(paid.total_tokens);

    const rerun = path.join(tmp, 'rb1');
    const r = await runCli(['run', '--from-bundle', path.join(tmp, 'b1.tar.gz'), '--results-dir', rerun], {
      cwd: tmp,
      env: cleanEnv({}, path.join(tmp, 'no-cache')),
    });
    expect(r.stderr).not.toMatch(/internal error|warning/);
    expect(r.code).toBe(0);
    const again = path.join(rerun, path.basename(dir));

    const m = manifestOf(again);
    expect(m.sessions).toHaveLength(1);
    expect(m.sessions[0].spent).toEqual({
      calls: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      cost_usd: 0,
      paid_unknown_calls: 0,
    });
    const row = csvRow(again);
    expect([row.spent_tokens, row.spent_cost_usd]).toEqual(['0', '0']);
    // Everything else of the summary is the original's: the tokens and cost the calls stand for.
    expect(withoutSpent(fs.readFileSync(path.join(again, 'summary.csv'), 'utf8'))).toBe(
      withoutSpent(fs.readFileSync(path.join(dir, 'summary.csv'), 'utf8')),
    );
    expect(Number(row.total_tokens)).toBe(paid.total_tokens);

    // Each record is the bundled one (latency aside): what its calls stand for, and what the original spent.
    const orig = byIdx(dir);
    const replayed = byIdx(again);
    expect([...replayed.keys()].sort()).toEqual([0, 1, 2]);
    for (const [idx, rec] of orig) {
      const x = replayed.get(idx)!;
      expect(x.usage, `episode ${idx}`).toEqual(rec.usage);
      expect(x.cost, `episode ${idx}`).toBe(rec.cost);
      expect({ ...x, latency_ms: 0 }, `episode ${idx}`).toEqual({ ...rec, latency_ms: 0 });
    }
    expect(orig.get(0)!.cost).toBeGreaterThan(0);

    // The report's runs table: the tokens and cost the re-run's calls stand for, and nothing spent.
    const rep = await runCli(['report', rerun, '--format', 'csv'], { cwd: tmp });
    expect(rep.code).toBe(0);
    const cell = (column: string) => new RegExp(`^runs,Runs,[^,\n]*,ours,${column},([^,\n]*),`, 'm').exec(rep.stdout)?.[1];
    expect(cell('Tokens \\(total\\)')).toBe(String(paid.total_tokens));
    expect(cell('Cost USD \\(total\\)')).toBe(paid.cost_usd.toFixed(4));
    expect(cell('Tokens \\(spent\\)')).toBe('0');
    expect(cell('Cost USD \\(spent\\)')).toBe('0.0000');
    // The result line says what this command paid for: nothing.
    expect(r.stdout).toMatch(/identical to the bundle .*; this command spent 0 tokens, \$0\.0000; .*, errors 0 \(as recorded\) -> /);
  }, 120_000);
});
