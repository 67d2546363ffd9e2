// Tokens, calls and cost count every call, cache hits included, with "spent" (calls that went to the
// model) apart from "total" (README "Reports": a `--cache replay` run is not "0 tokens"). From the cache
// through the episode's model chain and its meter (src/run/meter.ts) to the record and summary.csv.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompletionModel, resolveModelConfig, VirtualClock } from '../../src/llm/index.js';
import type { CompletionModel } from '../../src/llm/types.js';
import { CallLedger } from '../../src/methods/episode.js';
import { recordFromResult } from '../../src/run/record.js';
import { EpisodeMeter } from '../../src/run/meter.js';
import { episodeModel } from '../../src/run/model-chain.js';
import { summarize, summaryCsv } from '../../src/run/summary.js';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { spentOf, type EpisodeRecord, upgradeRecord } from '../../src/runlog/schema.js';
import { dollars, usdExact } from '../../src/util/money.js';
import { qa } from './run-folders.js';

let srv: OpenAIServer;
let dir: string;
beforeAll(async () => {
  srv = await startOpenAIServer({ respond: (r) => ` answer to ${r.prompt.length}` });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'report-accounting-'));
});
afterAll(async () => {
  await srv.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function model(cache: 'rw' | 'replay') {
  const cfg = resolveModelConfig(
    { model: 'test-model', baseUrl: srv.baseURL, cache, cachePath: path.join(dir, 'cache.sqlite'), pricePrompt: 2, priceCompletion: 4 },
    {},
  );
  return createCompletionModel(cfg, { clock: new VirtualClock(), random: () => 0.5 });
}

const item = { index: 7, id: 'q7', input: 'q7', gold: 'a' };

/** One two-call episode through the notebook's llm() over the episode's chain, recorded as the runner records it. */
async function episode(m: CompletionModel): Promise<EpisodeRecord> {
  const meter = new EpisodeMeter();
  const ledger = new CallLedger(episodeModel({ model: m, meter }));
  await ledger.llm('Question: q7\nThought 1:', ['\nObservation 1:']);
  await ledger.complete({
    prompt: 'Question: q7\nThought:',
    stop: ['\n'],
    maxTokens: 100,
    temperature: 0.7,
    topP: 1,
    n: 3,
    frequencyPenalty: 0,
    presencePenalty: 0,
  });
  const result = { answer: 'a', traj: 't', steps: [], n_calls: ledger.calls, n_badcalls: 0 };
  return recordFromResult(item, result, { em: 1, f1: 1 }, 1, meter);
}

describe('cache hits in the accounting', () => {
  it('a replayed episode counts the same total tokens and cost as the first, and spends nothing', async () => {
    const first = await model('rw');
    const fresh = await episode(first);
    await first.close();
    expect(fresh.usage.total_tokens).toBeGreaterThan(0);
    expect(fresh.cost).toBeGreaterThan(0);
    expect(fresh.spent_usage).toEqual(fresh.usage);
    expect(fresh.spent_cost).toBeCloseTo(fresh.cost, 12);
    expect(fresh.cached_calls).toBe(0);

    const replay = await model('replay');
    srv.reset();
    const again = await episode(replay);
    await replay.close();
    expect(srv.completionRequests()).toHaveLength(0);
    expect(again.usage).toEqual(fresh.usage);
    expect(again.cost).toBeCloseTo(fresh.cost, 12);
    expect(again.spent_usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
    expect(again.spent_cost).toBe(0);
    expect(again.cached_calls).toBe(2);

    // summary.csv shows both: total (every call) and spent (the calls that went to the model).
    const s = summarize(
      { runId: 'r', task: 'hotpotqa', method: 'react', split: 's', model: 'test-model' },
      new Map([[7, again]]),
      [7],
      ['em', 'f1'],
    );
    expect(s).toMatchObject({ total_tokens: fresh.usage.total_tokens, spent_tokens: 0, spent_cost_usd: 0, cached_calls: 2, n_calls: 2 });
    expect(s.cost_usd).toBeCloseTo(fresh.cost, 6);
    const [head, row] = summaryCsv([s]).trim().split('\n');
    expect(head).toBe(
      'run_id,task,method,split,model,shard,n_planned,n_done,n_scored,n_errors,em,f1,n_calls,prompt_tokens,completion_tokens,total_tokens,cost_usd,cached_calls,spent_tokens,spent_cost_usd,n_context_exceeded,paid_unknown_calls,usage_unknown_calls',
    );
    expect(row).toBe(
      `r,hotpotqa,react,s,test-model,,1,1,1,0,100,100,2,${fresh.usage.prompt_tokens},${fresh.usage.completion_tokens},${fresh.usage.total_tokens},${s.cost_usd},2,0,0,0,0,0`,
    );
  });

  it('records without spent_* (schema 1, or written before) count spent = total', () => {
    const v1 = upgradeRecord({
      question_idx: 3,
      question: 'q',
      gold: 'a',
      answer: 'a',
      em: 1,
      f1: 1,
      traj: '',
      steps: [],
      n_calls: 2,
      n_badcalls: 0,
      usage: { prompt_tokens: 90, completion_tokens: 10, total_tokens: 100 },
      cost: 0.5,
      latency_ms: 1,
      cached_calls: 0,
      error: null,
    });
    expect(spentOf(v1)).toEqual({ usage: { prompt_tokens: 90, completion_tokens: 10, total_tokens: 100 }, cost: 0.5 });
    const s = summarize({ runId: 'r', task: 'hotpotqa', method: 'react', split: 's', model: 'm' }, new Map([[3, v1]]), [3], ['em', 'f1']);
    expect(s).toMatchObject({ total_tokens: 100, spent_tokens: 100, cost_usd: 0.5, spent_cost_usd: 0.5 });
    // A record without a meter, or whose meter saw no answered call, writes no spent_* (rather than a wrong 0).
    const result = { answer: 'a', traj: '', steps: [], n_calls: 1, n_badcalls: 0 };
    expect('spent_usage' in recordFromResult(item, result, { em: 1, f1: 1 }, 0, null)).toBe(false);
    expect('spent_usage' in recordFromResult(item, result, { em: 1, f1: 1 }, 0, new EpisodeMeter())).toBe(false);
  });
});

describe('dollars in summary.csv', () => {
  it('a sum of exactly half a millionth rounds the same however its calls were added up', () => {
    // The same six calls summed in one pass (by session) and by episode differ in the last bit.
    const calls = [0.0012175, 0.0016035, 0.000966, 0.000732, 0.0010075, 0.000178];
    const bySession = calls.reduce((a, b) => a + b, 0);
    const byEpisode = calls[0] + calls[1] + calls[2] + (calls[3] + calls[4] + calls[5]);
    expect(bySession).not.toBe(byEpisode);
    expect(dollars(bySession)).toBe(0.005705);
    expect(dollars(byEpisode)).toBe(0.005705);
    expect([0.1234564, 0.1234565, 0.1234566, 2e-7, 0].map(dollars)).toEqual([0.123456, 0.123457, 0.123457, 0, 0]);
  });
});

describe('tiny costs', () => {
  it('the summary keeps the sum: the closing line shows its digits, summary.csv six decimals', () => {
    const rec = { ...qa(0, 'right'), cost: 4.5e-6, usage: { prompt_tokens: 9, completion_tokens: 0, total_tokens: 9 } };
    const s = summarize({ runId: 'r', task: 'hotpotqa', method: 'react', split: 's', model: 'm' }, new Map([[0, rec]]), [0], ['em', 'f1']);
    expect(s.cost_usd).toBe(4.5e-6);
    expect(usdExact(s.cost_usd)).toBe('$0.0000045');
    const [head, row] = summaryCsv([s]).trim().split('\n');
    expect(row.split(',')[head.split(',').indexOf('cost_usd')]).toBe('0.000005');
  });
});
