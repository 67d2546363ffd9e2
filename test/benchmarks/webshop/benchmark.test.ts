// The WebShop plug-in as the core sees it: options, items and splits, methods, env handle, scoring,
// fidelity, the run summary's goals line and Table 4.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserError } from '../../../src/errors.js';
import { createWebshopBenchmark } from '../../../src/benchmarks/webshop/index.js';
import type { RunView } from '../../../src/report/model.js';
import { startWebshopSite, type WebshopSite } from '../../servers/webshop-site.js';
import type { EpisodeRecord } from '../../../src/runlog/schema.js';

const bench = createWebshopBenchmark();
let site: WebshopSite;
beforeAll(async () => {
  site = await startWebshopSite();
});
afterAll(async () => {
  await site.close();
});

describe('declaration', () => {
  it('name, metrics, options, methods', () => {
    expect(bench.name).toBe('webshop');
    expect(bench.metrics).toEqual([
      { key: 'score', label: 'Score' },
      { key: 'success', label: 'SR' },
    ]);
    expect(Object.keys(bench.options)).toEqual(['env-url', 'webshop-goals', 'webshop-server-errors', 'webshop-timeout']);
    expect(bench.options['webshop-goals']).toMatchObject({ choices: ['check', 'strict', 'off'], default: 'check' });
    expect([...bench.methods]).toEqual(['act', 'react']);
    expect(bench.itemRefKey).toBe('session');
    expect(bench.inputFiles('react', bench.parseOptions({}))).toEqual([
      'prompts/webshop_prompts.json',
      'envs/webshop/webshop.fixed100.json',
    ]);
  });
});

describe('items and splits', () => {
  it('fixed_0..fixed_499, split test500 (default), --limit, refs by session id', () => {
    expect(bench.size()).toBe(500);
    expect(bench.item(7)).toMatchObject({ index: 7, id: 'fixed_7', input: '' });
    expect(() => bench.item(500)).toThrow(UserError);
    expect(() => bench.item(-1)).toThrow(/expected an integer in 0\.\.499/);
    expect(bench.defaultSplit).toBe('test500');
    const s = bench.split('test500');
    expect(s.indices).toHaveLength(500);
    expect(s.indices[499]).toBe(499);
    expect(bench.split('test500', { limit: 3 }).indices).toEqual([0, 1, 2]);
    expect(() => bench.split('dev')).toThrow(/--split dev: WebShop has one split, test500/);
    expect(() => bench.split('test500', { limit: 0 })).toThrow('--limit: expected a positive integer, got 0');
    expect(bench.itemByRef('fixed_42').index).toBe(42);
    expect(() => bench.itemByRef('fixed_500')).toThrow(UserError);
    expect(() => bench.itemByRef(3)).toThrow(/"session": expected a session id/);
  });
});

describe('methods', () => {
  it('act and react with the notebook prompts; others refused', () => {
    const m = bench.createMethod('react', bench.parseOptions({}));
    expect(m.needsEnv).toBe(true);
    expect(m.describe()).toMatchObject({
      method: 'react',
      prompt: {
        file: 'prompts/webshop_prompts.json',
        key: 'react',
        notebookName: 'prompt1',
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
      stepLimit: 15,
      maxTurns: 14,
      contextChars: 6400,
      stop: ['\n'],
    });
    expect(bench.createMethod('act', bench.parseOptions({})).describe()).toMatchObject({ prompt: { notebookName: 'prompt1_actonly' } });
    expect(() => bench.createMethod('cot', bench.parseOptions({}))).toThrow(/--method cot: WebShop runs act or react/);
  });

  it('observe: refusals, thinks, pages', () => {
    const step = (observation: string) => ({ observation, reward: 0, done: false, info: {} });
    expect(bench.observe('click[Next >]', step('Invalid action!'))).toBe('Invalid action!');
    expect(bench.observe('think[x]', step('\n[Search] '))).toBe('OK.');
    expect(bench.observe('thinking', step('Invalid action!'))).toBe('OK.');
    expect(bench.observe('click[A]', step('\n[Back to Search] '))).toBe('\n[Back to Search] ');
  });

  it('score: the done reward; 0 without a purchase; success only at reward 1', () => {
    const r = (reward: number, done: boolean) => ({
      answer: null,
      reward,
      done,
      traj: '',
      steps: [],
      n_calls: 0,
      n_badcalls: 0,
    });
    const item = bench.item(0);
    expect(bench.score(item, r(1, true))).toEqual({ score: 1, success: 1 });
    expect(bench.score(item, r(0.6666666666666666, true))).toEqual({ score: 0.6666666666666666, success: 0 });
    expect(bench.score(item, r(0, false))).toEqual({ score: 0, success: 0 });
  });
});

describe('environment', () => {
  it('--env-url is required; bad values are UserErrors naming the flag', async () => {
    await expect(bench.createEnv(bench.parseOptions({}))).rejects.toThrow(/^--env-url: the WebShop site is required/);
    await expect(bench.createEnv(bench.parseOptions({ envUrl: 'ftp://x' }))).rejects.toThrow(/^--env-url: expected an http/);
    await expect(bench.createEnv(bench.parseOptions({ envUrl: 'not a url' }))).rejects.toThrow(UserError);
    // Option values are checked once, when the run's options are parsed.
    expect(() => bench.parseOptions({ envUrl: site.url, webshopTimeout: 0 })).toThrow(/^--webshop-timeout/);
    expect(() => bench.parseOptions({ envUrl: site.url, webshopGoals: 'maybe' })).toThrow(/^--webshop-goals "maybe"/);
  });

  it('describe() shows the site without userinfo; fidelity() carries the pre-run goals check', async () => {
    const secret = site.url.replace('http://', 'http://user:s3cr3t@');
    const h = await bench.createEnv(bench.parseOptions({ envUrl: secret + '/', webshopGoals: 'check' }));
    const d = h.describe();
    expect(JSON.stringify(d)).not.toContain('s3cr3t');
    expect(d).toMatchObject({
      backend: 'webshop-site',
      siteUrl: site.url.replace('http://', 'http://***@'),
      goalsMode: 'check',
      goals: null,
    });
    await h.check!();
    expect(h.describe().goals).toMatchObject({ checked: 100, instructionMatched: 100, priceMatched: 100 });
    const f = bench.fidelity!(bench.parseOptions({ envUrl: secret + '/', webshopGoals: 'check' }));
    expect(f.goals).toMatchObject({ mode: 'check', check: { checked: 100, instructionMatched: 100, priceMatched: 100, mismatched: [] } });
    expect(bench.fidelity!(bench.parseOptions({ envUrl: 'http://elsewhere:1' })).goals).toMatchObject({ mode: 'check', check: null });
  });
});

function record(idx: number, score: number, extra: Partial<EpisodeRecord> = {}): EpisodeRecord {
  return {
    idx,
    item: `fixed_${idx}`,
    input: '',
    gold: null,
    answer: null,
    metrics: { score, success: score === 1 ? 1 : 0 },
    reward: score,
    traj: '',
    steps: [],
    n_calls: 1,
    n_badcalls: 0,
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    cost: 0,
    latency_ms: 0,
    cached_calls: 0,
    error: null,
    goal_check: { status: idx === 2 ? 'mismatch' : idx === 1 ? 'price-differs' : 'match' },
    ...extra,
  };
}

function run(method: string, records: EpisodeRecord[], runId = `webshop-${method}-x`): RunView {
  return {
    dir: `/tmp/${runId}`,
    manifest: {
      runId,
      task: 'webshop',
      method,
      split: 'test500',
      model: 'test-model',
      indices: records.map((r) => r.idx),
    } as unknown as RunView['manifest'],
    records,
    summary: {} as RunView['summary'],
  };
}

describe('report', () => {
  it("Table 4: ours beside the paper's rows, score = mean reward × 100, SR in %, errors apart", () => {
    const act = run('act', [record(0, 1), record(1, 0.5), record(2, 0), record(3, 0.75, { error: { source: 'env', message: 'down' } })]);
    const react = run('react', [record(0, 1), record(1, 1), record(2, 0.25)]);
    const other = { ...act, manifest: { ...act.manifest, task: 'alfworld' } };
    const [t] = bench.reportTables([react, act, other]);
    expect(t.id).toBe('table4');
    expect(t.columns.map((c) => c.key)).toEqual(['model', 'score', 'sr', 'n', 'errors']);
    expect(t.rows.map((r) => [r.label, r.source, r.cells.score, r.cells.sr, r.cells.n])).toEqual([
      ['Act (ours)', 'ours', 50, 33.3, '3/4'],
      ['Act', 'paper', 62.3, 30.1, '500'],
      ['ReAct (ours)', 'ours', 75, 66.7, '3/3'],
      ['ReAct', 'paper', 66.6, 40.0, '500'],
      ['IL', 'paper', 59.9, 29.1, '500'],
      ['IL+RL', 'paper', 62.4, 28.7, '500'],
    ]);
    expect(t.rows[0].cells.errors).toBe(1);
    expect(t.notes.join('\n')).toMatch(
      /Act, test-model \(webshop-act-x\): split test500, n = 3 compared of 4 planned; 1 error episode \(left out, never scored 0\)\. WebShop goals: 2 of 3 checked sessions/,
    );
    expect(bench.reportTables([other])).toEqual([]);
  });

  it('summaryNotes: the goals line of a run', () => {
    expect(
      bench.summaryNotes!(
        run('react', [record(0, 1), record(1, 0), record(2, 0), record(150, 0, { goal_check: { status: 'unchecked' } })]),
      ),
    ).toEqual([
      "WebShop goals: 2 of 3 checked sessions show the paper's instruction, 1 of them with the vendored price clause (drawn at server start); differing: fixed_2",
    ]);
  });
});
