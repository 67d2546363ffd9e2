// `run --dry-run` as a new user tries it, with no API key: the Table 1 experiment is priced run by
// run from the built-in list, combinations say they make no calls, the experiment has a total, prompt
// tokens come from the model's own tokenizer (js-tiktoken, offline), interactive methods give a range.
// And the estimate's pieces: exact counts over the split pieces, chars/4 said as such, list prices.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../run/cli-helpers.js';
import {
  CHARS_PER_4,
  dryRunPrices,
  encodingOf,
  runCost,
  splitForCounting,
  tokenCounterFor,
  totalLines,
} from '../../src/run/dry-run-estimate.js';
import { priceInfoOf } from '../../src/llm/pricing.js';

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-dry-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('run table1-hotpotqa --model gpt-3.5-turbo-instruct --dry-run, no API key', () => {
  it('prices every run, says combinations make no calls, and prints a total', async () => {
    const results = path.join(tmp, 'results');
    const r = await runCli(['run', 'table1-hotpotqa', '--model', 'gpt-3.5-turbo-instruct', '--results-dir', results, '--dry-run'], {
      cwd: tmp,
      env: cleanEnv(),
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(fs.existsSync(results)).toBe(false);
    const out = r.stdout;
    expect(out).not.toMatch(/unknown|no price information|needs an endpoint/);
    const runs = out.split(/^(?=dry run: hotpotqa )/m).filter((b) => b.startsWith('dry run: hotpotqa '));
    expect(runs.map((b) => /^dry run: hotpotqa (\S+),/.exec(b)![1])).toEqual([
      'standard',
      'cot',
      'cot-sc',
      'act',
      'react',
      'cot-sc-react',
      'react-cot-sc',
    ]);
    for (const b of runs.slice(0, 5)) {
      expect(b).toMatch(/prompt [\d,]+ tokens \(cl100k_base \(the model's tokenizer, js-tiktoken\), of the real first prompts/);
      expect(b).toMatch(
        /cost at \$1\.5\/\$2 per 1M prompt\/completion tokens \(list price of gpt-3\.5-turbo-instruct\): (about \$[\d.]+|\$[\d.]+\.\.\$[\d.]+ )/,
      );
    }
    for (const b of runs.slice(3, 5))
      expect(b).toMatch(/interactive: 1\.\.7 calls per episode .*, so 500\.\.3,500 calls and [\d,]+\.\.[\d,]+ prompt tokens/);
    for (const b of runs.slice(5)) expect(b).toMatch(/^ {2}cost: none of its own \(a combination makes no model calls\)$/m);
    const total =
      /^total: 7 runs \(2 combinations, no calls of their own\): 2,500\.\.8,500 model calls, ([\d,]+)\.\.([\d,]+) prompt tokens \(cl100k_base[^)]*\)\), completions at most [\d,]+ tokens; cost \$([\d.,]+)\.\.\$([\d.,]+)$/m.exec(
        out,
      );
    expect(total, out).not.toBeNull();
    // The total is the sum of the runs' figures.
    const costs = [...out.matchAll(/: (?:about \$([\d.]+)|\$([\d.]+)\.\.\$([\d.]+) )/g)].map((m) =>
      m[1] ? [Number(m[1]), Number(m[1])] : [Number(m[2]), Number(m[3])],
    );
    expect(costs).toHaveLength(5);
    expect(Number(total![3])).toBeCloseTo(
      costs.reduce((a, c) => a + c[0]!, 0),
      1,
    );
    expect(Number(total![4])).toBeCloseTo(
      costs.reduce((a, c) => a + c[1]!, 0),
      1,
    );
    expect(out.trimEnd().split('\n').at(-1)).toBe('dry run: no model was called and nothing was written');
  }, 60_000);

  it('a model with no known tokenizer is counted as chars/4 and says so', async () => {
    const r = await runCli(
      [
        'run',
        '--task',
        'fever',
        '--method',
        'standard',
        '--limit',
        '2',
        '--base-url',
        'http://127.0.0.1:8000/v1',
        '--model',
        'local-model',
        '--dry-run',
      ],
      { cwd: tmp, env: cleanEnv() },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/prompt [\d,]+ tokens \(chars\/4 \(estimate\), of the real first prompts/);
    // An unknown rate is an unknown cost, never "$0.0000" (README "Reliability").
    expect(r.stdout).toContain(
      '  cost: unknown (no price known for local-model: give --price-prompt and --price-completion, USD per 1M tokens)\n',
    );
    expect(r.stdout).not.toContain('$0');
    expect(r.stdout).not.toMatch(/^total:/m);
  });
});

describe('dry-run estimate pieces', () => {
  it('counts exactly what tiktoken counts for the whole text, piece by piece', async () => {
    const c = await tokenCounterFor('gpt-3.5-turbo-instruct');
    expect(c.exact).toBe(true);
    const { Tiktoken } = await import('js-tiktoken/lite');
    const whole = new Tiktoken((await import('js-tiktoken/ranks/cl100k_base')).default);
    const texts = [
      "Question: Which magazine was started first?\nThought 1: I need to search.\nAction 1: Search[Arthur's Magazine]\nObservation 1: Arthur's Magazine (1844–1846) was an American literary periodical.\n\n\n  indented\n\tTab.\n",
      'Claim: Nikolaj Coster-Waldau worked with the Fox Broadcasting Company.\nAnswer:',
      '12345 \n\n\n!!\n?x',
    ];
    for (const t of texts) {
      expect(splitForCounting(t).join('')).toBe(t);
      expect(c.count(t)).toBe(whole.encode(t).length);
    }
  });

  it("maps the priced models to their encodings as OpenAI's tiktoken does; unknown models fall back to chars/4", async () => {
    expect(await encodingOf('gpt-3.5-turbo-instruct')).toBe('cl100k_base');
    expect(await encodingOf('davinci-002')).toBe('cl100k_base');
    expect(await encodingOf('text-davinci-002')).toBe('p50k_base');
    expect(await encodingOf('meta-llama/Llama-3.1-8B-Instruct')).toBeNull();
    expect(await tokenCounterFor('meta-llama/Llama-3.1-8B-Instruct')).toBe(CHARS_PER_4);
    expect(CHARS_PER_4.count('abcdefghi')).toBe(3);
  });

  it('uses the list price for a known model sent to OpenAI, key or no key; not for another endpoint', () => {
    const noKey = { error: 'api.openai.com needs an API key' };
    expect(dryRunPrices({ model: 'gpt-3.5-turbo-instruct' }, noKey, {})).toMatchObject({
      promptPerM: 1.5,
      completionPerM: 2,
      source: 'list price of gpt-3.5-turbo-instruct',
    });
    expect(dryRunPrices({ model: 'gpt-3.5-turbo-instruct', baseUrl: ['https://api.openai.com/v1'] }, noKey, {})).toMatchObject({
      promptPerM: 1.5,
    });
    expect(dryRunPrices({ model: 'gpt-3.5-turbo-instruct', baseUrl: ['http://127.0.0.1:8000/v1'] }, noKey, {})).toBe(noKey);
    expect(dryRunPrices({ model: 'gpt-3.5-turbo-instruct' }, noKey, { OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1' })).toBe(noKey);
    expect(dryRunPrices({ model: 'some-local-model' }, noKey, {})).toBe(noKey);
    const flags = {
      promptPerM: 3,
      completionPerM: 4,
      status: 'known' as const,
      source: '--price-prompt/--price-completion',
      model: 'gpt-3.5-turbo-instruct',
    };
    expect(dryRunPrices({ model: 'gpt-3.5-turbo-instruct' }, flags, {})).toBe(flags);
  });

  it('ranges from one call per episode to the turn limit, and totals the runs', () => {
    const prices = { promptPerM: 1, completionPerM: 2, status: 'known' as const, source: 'x', model: 'm' };
    const c = runCost({
      derived: false,
      toRun: 10,
      unbuilt: 0,
      firstPromptTokens: 1000,
      firstCompletionTokensMax: 100,
      turnLimit: 3,
      prices,
    });
    expect(c.calls).toEqual({ min: 10, max: 30 });
    // 3 turns: 3 × 1000, plus the completions carried into turns 2 and 3 (10 tokens per call per earlier turn: 10 × (1 + 2) × 10)
    expect(c.promptTokens).toEqual({ min: 1000, max: 3000 + 300 });
    expect(c.usd!.min).toBeCloseTo((1000 + 200) / 1e6, 9);
    expect(c.usd!.max).toBeCloseTo((3300 + 600) / 1e6, 9);
    const combo = runCost({
      derived: true,
      toRun: 0,
      unbuilt: 0,
      firstPromptTokens: 0,
      firstCompletionTokensMax: 0,
      turnLimit: null,
      prices: null,
    });
    const single = runCost({
      derived: false,
      toRun: 5,
      unbuilt: 0,
      firstPromptTokens: 500,
      firstCompletionTokensMax: 50,
      turnLimit: null,
      prices: null,
    });
    const unpriced = runCost({
      derived: false,
      toRun: 5,
      unbuilt: 0,
      firstPromptTokens: 500,
      firstCompletionTokensMax: 50,
      turnLimit: 7,
      prices: priceInfoOf({ promptPerM: 0, completionPerM: 0, source: 'none' }, 'local-model'),
    });
    expect(unpriced.usd).toBeNull();
    expect(totalLines([c, unpriced], 't')[0]).toMatch(/; cost \$[\d.]+\.\.\$[\d.]+ for the 1 priced run \(1 without a price\)$/);
    expect(totalLines([c], 't')).toEqual([]);
    expect(totalLines([c, combo, single], 't')[0]).toBe(
      'total: 3 runs (1 combination, no calls of their own): 15..35 model calls, 1,500..3,800 prompt tokens (t), completions at most 350 tokens; cost $0.0012..$0.0039 for the 2 priced runs (1 without a price)',
    );
  });
});
