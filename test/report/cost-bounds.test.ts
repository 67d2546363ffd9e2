// A cost that leaves out calls answered without usage is not the bill (README "Reliability"): every
// output says so by one rule (src/run/meter.ts costStanding): a lower bound is marked ≥ ($\ge$ in
// LaTeX), a figure that counts none of its calls is unknown (never $0.0000), and a whole one is as before.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { benchmarkNames, getBenchmark } from '../../src/benchmarks/registry.js';
import { buildReport } from '../../src/report/build.js';
import { loadRuns } from '../../src/report/load.js';
import { CSV_COLUMNS, csvRows, renderCsv } from '../../src/report/render-csv.js';
import { renderMarkdown } from '../../src/report/render-md.js';
import { renderHtml } from '../../src/report/render-html.js';
import { renderTex } from '../../src/report/render-tex.js';
import { flatEpisode } from '../../src/report/export.js';
import { episodeCorrectness } from '../../src/report/correct.js';
import { summarize, summaryCsv } from '../../src/run/summary.js';
import {
  costFree,
  costStanding,
  episodeCostContext,
  episodeCostStandings,
  moneyText,
  runCostStandings,
  runTokenStandings,
  spendStanding,
  spendText,
  spendTokensText,
  tokenStanding,
} from '../../src/run/meter.js';
import { modelPricesOf, pricesOfDescription } from '../../src/llm/pricing.js';
import type { PriceStatus } from '../../src/runlog/schema.js';
import { progressLine } from '../../src/run/progress.js';
import type { RunView } from '../../src/report/model.js';
import { qaRecords, writeRun } from './run-folders.js';

let tmp: string;
let runs: RunView[];
const idx = [0, 1, 2, 3];
const NO_USAGE = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
const meta = { runId: 'r', task: 'hotpotqa', method: 'react', split: 'dev', model: 'm' };
const session = (spent: Record<string, number>) => ({
  startedAt: '2026-01-01T00:00:00.000Z',
  endedAt: '2026-01-01T00:01:00.000Z',
  status: 'complete',
  price: 'known',
  spent: { calls: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cost_usd: 0, paid_unknown_calls: 0, ...spent },
});

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cost-bounds-'));
  // Every call had usage: 4 episodes × 2 calls, $0.001 each episode.
  writeRun(tmp, {
    runId: 'whole',
    method: 'cot',
    indices: idx,
    records: qaRecords(idx, 'rrww'),
    sessions: [session({ calls: 8, prompt_tokens: 400, completion_tokens: 40, total_tokens: 440, cost_usd: 0.004 })],
  });
  // One call of episode 3 was answered without usage: its figures leave it out.
  writeRun(tmp, {
    runId: 'some',
    method: 'react',
    indices: idx,
    records: qaRecords(idx, 'rrww', (i) => (i === 3 ? { usage_unknown_calls: 1 } : {})),
    sessions: [session({ calls: 7, prompt_tokens: 400, completion_tokens: 40, total_tokens: 440, cost_usd: 0.004, paid_unknown_calls: 1 })],
  });
  // A server that never reports usage: nothing counted.
  writeRun(tmp, {
    runId: 'none',
    method: 'act',
    indices: idx,
    records: qaRecords(idx, 'rrww', () => ({ usage: NO_USAGE, cost: 0, usage_unknown_calls: 2, spent_usage: NO_USAGE, spent_cost: 0 })),
    sessions: [session({ paid_unknown_calls: 8 })],
  });
  runs = loadRuns([tmp], { warn: () => {} });
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const run = (id: string) => runs.find((r) => r.manifest.runId === id)!;
const report = () => buildReport(runs, benchmarkNames().map(getBenchmark));

describe('the rule', () => {
  it('whole when nothing is left out; a lower bound when some calls are; unknown when none is counted or no price is known', () => {
    const f = { priced: true, free: false };
    expect(costStanding({ ...f, tokens: 440, uncountedCalls: 0 })).toBe('whole');
    expect(costStanding({ ...f, tokens: 0, uncountedCalls: 0 })).toBe('whole'); // no call at all: $0 is the bill
    expect(costStanding({ ...f, tokens: 440, uncountedCalls: 1 })).toBe('at-least');
    expect(costStanding({ ...f, tokens: 0, uncountedCalls: 8 })).toBe('unknown');
    expect(costStanding({ ...f, priced: false, tokens: 440, uncountedCalls: 0 })).toBe('unknown');
    // Sessions that billed nothing by their rates: the calls left out cost nothing either, counted or not.
    expect(costStanding({ priced: true, free: true, tokens: 440, uncountedCalls: 1 })).toBe('whole');
    expect(costStanding({ priced: true, free: true, tokens: 0, uncountedCalls: 8 })).toBe('whole');
    expect(costStanding({ priced: false, free: true, tokens: 0, uncountedCalls: 0 })).toBe('unknown');
    expect(runCostStandings(run('whole').summary)).toEqual({ total: 'whole', spent: 'whole' });
    expect(runCostStandings(run('some').summary)).toEqual({ total: 'at-least', spent: 'at-least' });
    expect(runCostStandings(run('none').summary)).toEqual({ total: 'unknown', spent: 'unknown' });
    // A command's spend: its calls of unknown billing (without usage, or cut off in flight) are left out.
    const spend = { calls: 3, prompt_tokens: 30, completion_tokens: 3, total_tokens: 33, cost_usd: 0.01, paid_unknown_calls: 1 };
    expect(spendStanding(spend)).toBe('at-least');
    expect(spendStanding({ ...spend, paid_unknown_calls: 0 })).toBe('whole');
    expect(spendStanding({ ...spend, cost_usd: 0 }, { free: true })).toBe('whole');
    // A combination's episode spent nothing (it makes no calls): that is whole, whatever its base calls lacked.
    const combined = { usage: NO_USAGE, cost: 0, usage_unknown_calls: 2, spent_usage: NO_USAGE, spent_cost: 0 };
    const context = { kind: 'run', free: false };
    expect(episodeCostStandings(combined, true, { ...context, kind: 'combination' })).toEqual({ total: 'unknown', spent: 'whole' });
    expect(episodeCostStandings(combined, true, context)).toEqual({ total: 'unknown', spent: 'unknown' });
  });

  it('a $0 counted at rates of 0 is not whole when another session, at other rates, has calls left out', () => {
    // The first session at rates of 0 with usage; the resume at a price, answered without usage.
    const at = (price: string, spent: Record<string, number>) => ({ ...session(spent), price: price as PriceStatus });
    const mixed = {
      modelDescription: { backend: 'openai', pricesUsdPer1M: { source: 'flags', prompt: 0, completion: 0 } },
      sessions: [at('free', { calls: 2, total_tokens: 128 }), at('known', { paid_unknown_calls: 2 })],
    };
    expect(costFree(mixed)).toBe(false);
    const s = summarize(meta, new Map(qaRecords(idx, 'rrww').map((r) => [r.idx, { ...r, cost: 0 }])), idx, ['em'], mixed);
    expect(s.cost_free).toBeUndefined();
    expect(runCostStandings({ ...s, usage_unknown_calls: 2 })).toEqual({ total: 'at-least', spent: 'at-least' });
    // Every session free: whole, also when nothing was counted.
    const allFree = { ...mixed, sessions: [mixed.sessions[0], { ...mixed.sessions[1], price: 'free' as const }] };
    expect(costFree(allFree)).toBe(true);
    expect(summarize(meta, new Map(), idx, ['em'], allFree).cost_free).toBe(true);
  });

  it('runs written before rates of 0 were free: the first session by the rates its manifest describes, the others by their own', () => {
    const zero = { backend: 'openai', pricesUsdPer1M: { source: 'flags', prompt: 0, completion: 0 } };
    const paid = { backend: 'openai', pricesUsdPer1M: { source: 'flags', prompt: 1, completion: 1 } };
    const known = session({}) as { price: PriceStatus };
    const { price: _p, ...unrecorded } = known;
    expect(costFree({ modelDescription: zero, sessions: [known] })).toBe(true);
    // A combination's session records its bases' price; its description is one base's model, not its first session's.
    expect(costFree({ kind: 'combination', modelDescription: zero, sessions: [known] })).toBe(false);
    expect(costFree({ modelDescription: zero, sessions: [known, known] })).toBe(false); // the resume's rates are not described
    expect(costFree({ modelDescription: zero, sessions: [unrecorded, unrecorded] })).toBe(true); // judged by the model, as costKnown does
    expect(costFree({ modelDescription: paid, sessions: [known] })).toBe(false);
    expect(costFree({ modelDescription: {}, sessions: [known] })).toBe(false); // it states no rates: its 'known' stands
    expect(costFree({ modelDescription: zero, sessions: [{ ...known, price: 'unknown' }] })).toBe(false);
    expect(costFree({ modelDescription: { backend: 'llama.cpp' }, sessions: [unrecorded] })).toBe(true);
    expect(costFree({ sessions: [unrecorded] })).toBe(false); // nothing described
    expect(costFree({})).toBe(false);
  });

  it("an episode's spend: its record's count of calls without usage that went to the model; a record without it predates it", () => {
    const hit = { usage: NO_USAGE, cost: 0, usage_unknown_calls: 1, spent_usage: NO_USAGE, spent_cost: 0, spent_usage_unknown_calls: 0 };
    const fresh = { ...hit, spent_usage_unknown_calls: 1 };
    const context = episodeCostContext({ kind: 'run', sessions: [{ ...session({ paid_unknown_calls: 1 }), price: 'known' as const }] });
    expect(context).toEqual({ kind: 'run', free: false });
    // A cache hit without usage spent $0: whole. A call without usage that went to the model: not known.
    expect(episodeCostStandings(hit, true, context).spent).toBe('whole');
    expect(episodeCostStandings(fresh, true, context).spent).toBe('unknown');
    expect(episodeCostStandings({ ...fresh, spent_usage: { ...NO_USAGE, total_tokens: 9 } }, true, context).spent).toBe('at-least');
    // A record from before the count: every call without usage may have gone to the model, as before.
    const { spent_usage_unknown_calls: _c, ...older } = hit;
    expect(episodeCostStandings(older, true, context).spent).toBe('unknown');
  });

  it('rates of 0 given are free, as a model run in-process is', () => {
    expect(modelPricesOf({ promptPerM: 0, completionPerM: 0, source: 'flags' }).status).toBe('free');
    expect(modelPricesOf({ promptPerM: 0, completionPerM: 1, source: 'flags' }).status).toBe('known');
    expect(modelPricesOf({ promptPerM: 0, completionPerM: 0, source: 'none' }).status).toBe('unknown');
    expect(pricesOfDescription({ pricesUsdPer1M: { source: 'flags', prompt: 0, completion: 0 } }).status).toBe('free');
    expect(pricesOfDescription({ pricesUsdPer1M: { source: 'flags', prompt: 2, completion: 0 } }).status).toBe('known');
    expect(pricesOfDescription({ pricesUsdPer1M: { source: 'none', prompt: 0, completion: 0 } }).status).toBe('unknown');
  });
});

describe('every output says the same', () => {
  it('summary.csv: a number when whole or a lower bound (its count column says which), blank when unknown', () => {
    const cells = (id: string) => {
      const [head, row] = summaryCsv([run(id).summary])
        .trim()
        .split('\n');
      const at = (c: string) => row.split(',')[head.split(',').indexOf(c)];
      return [at('cost_usd'), at('spent_cost_usd'), at('usage_unknown_calls'), at('paid_unknown_calls')];
    };
    expect(cells('whole')).toEqual(['0.004', '0.004', '0', '0']);
    // Numbers in every row, so a sheet or pandas reads the column as numbers; the counts beside say "at least".
    expect(cells('some')).toEqual(['0.004', '0.004', '1', '1']);
    expect(cells('none')).toEqual(['', '', '8', '8']);
  });

  it("the report's Runs table: ≥ before a lower bound in Markdown, HTML and LaTeX, its number in CSV; unknown for none counted, with the note that says why", () => {
    const c = report();
    const cell = (id: string, column: string) =>
      csvRows(c.runsTable)
        .map((cells) => Object.fromEntries(CSV_COLUMNS.map((k, i) => [k, cells[i]])) as Record<(typeof CSV_COLUMNS)[number], string>)
        .find((r) => r.source_ref === id && r.column === column)!.value;
    expect([cell('whole', 'Cost USD (total)'), cell('whole', 'Cost USD (spent)')]).toEqual(['0.0040', '0.0040']);
    // The sheet keeps the column numeric: "Calls without usage" / "of unknown billing" say it is a bound.
    expect([cell('some', 'Cost USD (total)'), cell('some', 'Cost USD (spent)')]).toEqual(['0.0040', '0.0040']);
    expect([cell('none', 'Cost USD (total)'), cell('none', 'Cost USD (spent)')]).toEqual(['unknown', 'unknown']);
    expect(cell('some', 'Calls without usage')).toBe('1');
    expect(renderCsv(c)).toContain(',ours,Cost USD (total),0.0040,,,some');
    expect(renderCsv(c)).not.toContain('≥');
    const md = renderMarkdown(c);
    const mdRow = (id: string) => md.split('\n').find((l) => l.startsWith('|') && l.includes(id))!;
    expect(mdRow('some')).toMatch(/\| ≥0\.0040 \| 1 \| ≥0\.0040 \| 1 \|/);
    expect(mdRow('none')).toMatch(/\| unknown \| 8 \| unknown \| 8 \|/);
    expect(mdRow('whole')).toMatch(/\| 0\.0040 \| 0 \| 0\.0040 \| 0 \|/);
    expect(md).toContain(
      'so that cost is a lower bound, marked ≥ (unknown when no call of the run had usage; whole when every session of the run billed nothing by its rates)',
    );
    const html = renderHtml(c);
    expect(html).toContain('≥0.0040');
    expect(html).toContain('so that cost is a lower bound, marked ≥');
    // pdflatex reads ASCII: the mark in math mode.
    const tex = renderTex(c);
    expect(tex).toContain('$\\ge$0.0040');
    expect(tex).not.toContain('≥');
  });

  it('export: null when unknown, and a lower bound says so beside its figure', () => {
    const isCorrect = episodeCorrectness(benchmarkNames().map(getBenchmark));
    const row = (id: string, i: number) => flatEpisode(run(id), run(id).records[i], isCorrect);
    const pick = (r: Record<string, unknown>) =>
      Object.fromEntries(['cost', 'cost_lower_bound', 'spent_cost', 'spent_cost_lower_bound', 'usage_unknown_calls'].map((k) => [k, r[k]]));
    expect(pick(row('whole', 3))).toEqual({
      cost: 0.001,
      cost_lower_bound: undefined,
      spent_cost: 0.001,
      spent_cost_lower_bound: undefined,
      usage_unknown_calls: 0,
    });
    expect(Object.keys(row('whole', 3))).not.toContain('cost_lower_bound'); // an export of whole figures is as before
    expect(pick(row('some', 3))).toEqual({
      cost: 0.001,
      cost_lower_bound: true,
      spent_cost: 0.001,
      spent_cost_lower_bound: true,
      usage_unknown_calls: 1,
    });
    expect(pick(row('some', 0))).toMatchObject({ cost: 0.001, cost_lower_bound: undefined });
    expect(pick(row('none', 0))).toEqual({
      cost: null,
      cost_lower_bound: undefined,
      spent_cost: null,
      spent_cost_lower_bound: undefined,
      usage_unknown_calls: 2,
    });
  });

  it('the closing lines: "cost ≥ $0.0123" for a lower bound, "cost unknown" when nothing was counted', () => {
    const paid = (c: { tokens: number; uncountedCalls: number }, free = false) => costStanding({ priced: true, free, ...c });
    expect(moneyText(0.0123, 'known', paid({ tokens: 440, uncountedCalls: 0 }))).toBe('cost $0.0123');
    expect(moneyText(0.0123, 'known', paid({ tokens: 440, uncountedCalls: 2 }))).toBe('cost ≥ $0.0123');
    expect(moneyText(0, 'known', paid({ tokens: 440, uncountedCalls: 2 }))).toBe('cost ≥ $0.0000');
    expect(moneyText(0, 'known', paid({ tokens: 0, uncountedCalls: 8 }))).toBe('cost unknown');
    expect(moneyText(0, 'free', paid({ tokens: 0, uncountedCalls: 8 }, true))).toBe('cost $0.0000');
    expect(moneyText(0.0123, 'unknown', paid({ tokens: 440, uncountedCalls: 2 }))).toMatch(/^cost unknown \(no price for this model/);
    const spend = { calls: 3, prompt_tokens: 30, completion_tokens: 3, total_tokens: 33, cost_usd: 0.0123, paid_unknown_calls: 0 };
    expect(spendText(spend)).toBe('$0.0123');
    expect(spendText({ ...spend, paid_unknown_calls: 1 })).toBe('≥ $0.0123');
    expect(spendText({ ...spend, calls: 0, total_tokens: 0, cost_usd: 0, paid_unknown_calls: 1 })).toBe('cost unknown');
    expect(spendText({ ...spend, calls: 0, total_tokens: 0, cost_usd: 0, paid_unknown_calls: 1 }, { free: true })).toBe('$0.0000');
  });

  it('the progress line: ≥ before a lower bound, no figure when none is counted', () => {
    const state = (over: object) => ({
      done: 2,
      total: 4,
      scored: 2,
      metricLabel: 'EM',
      metricValues: [1, 0],
      errors: 0,
      errorsBySource: {},
      retries: 0,
      tokens: 220,
      cost: 0.002,
      ...over,
    });
    expect(progressLine('r', state({}), 2, 10)).toContain('tokens 220 $0.0020 elapsed');
    expect(progressLine('r', state({ usageUnknownCalls: 1 }), 2, 10)).toContain('tokens ≥ 220 ≥ $0.0020 elapsed');
    const none = progressLine('r', state({ tokens: 0, cost: 0, usageUnknownCalls: 4 }), 2, 10);
    expect(none).toContain('tokens unknown elapsed');
    expect(none).not.toContain('tokens 0');
  });
});

describe('a token figure follows the same rule', () => {
  it('whole when no call is left out, a lower bound when some are, unknown when none was counted, whatever the price', () => {
    expect(tokenStanding({ tokens: 440, uncountedCalls: 0 })).toBe('whole');
    expect(tokenStanding({ tokens: 0, uncountedCalls: 0 })).toBe('whole'); // no call at all
    expect(tokenStanding({ tokens: 440, uncountedCalls: 1 })).toBe('at-least');
    expect(tokenStanding({ tokens: 0, uncountedCalls: 8 })).toBe('unknown');
    expect(runTokenStandings(run('whole').summary)).toEqual({ total: 'whole', spent: 'whole' });
    expect(runTokenStandings(run('some').summary)).toEqual({ total: 'at-least', spent: 'at-least' });
    expect(runTokenStandings(run('none').summary)).toEqual({ total: 'unknown', spent: 'unknown' });
    // At rates that bill nothing the cost is whole, but the tokens of calls without usage are still not counted.
    const free = { ...run('none').summary, cost_free: true as const };
    expect(runCostStandings(free)).toEqual({ total: 'whole', spent: 'whole' });
    expect(runTokenStandings(free)).toEqual({ total: 'unknown', spent: 'unknown' });
    const spend = { calls: 3, prompt_tokens: 30, completion_tokens: 3, total_tokens: 1234, cost_usd: 0.0123, paid_unknown_calls: 0 };
    expect(spendTokensText(spend)).toBe('1,234 tokens');
    expect(spendTokensText({ ...spend, paid_unknown_calls: 1 })).toBe('≥ 1,234 tokens');
    expect(spendTokensText({ ...spend, calls: 0, total_tokens: 0, paid_unknown_calls: 2 })).toBe('an unknown number of tokens');
  });

  it("the report's Runs table: ≥ before a lower bound and unknown for none counted in Markdown, HTML and LaTeX; the CSV keeps the number", () => {
    const c = report();
    const cell = (id: string, column: string) =>
      csvRows(c.runsTable)
        .map((cells) => Object.fromEntries(CSV_COLUMNS.map((k, i) => [k, cells[i]])) as Record<(typeof CSV_COLUMNS)[number], string>)
        .find((r) => r.source_ref === id && r.column === column)!.value;
    const both = (id: string) => [cell(id, 'Tokens (total)'), cell(id, 'Tokens (spent)')];
    const some = both('some');
    expect(some.map(Number).every((n) => n > 0)).toBe(true);
    expect(
      both('whole')
        .map(Number)
        .every((n) => n > 0),
    ).toBe(true);
    expect(both('none')).toEqual(['unknown', 'unknown']);
    const md = renderMarkdown(c);
    const mdRow = (id: string) => md.split('\n').find((l) => l.startsWith('|') && l.includes(id))!;
    expect(mdRow('some')).toContain(`| ≥${some[0]} | ≥${some[1]} | ≥0.0040 | 1 |`);
    expect(mdRow('none')).toContain('| unknown | unknown | unknown | 8 |');
    expect(mdRow('whole')).toContain(`| ${both('whole')[0]} | ${both('whole')[1]} | 0.0040 |`);
    expect(md).toContain('and so are those tokens (≥; unknown when no call of the run had usage)');
    expect(renderHtml(c)).toContain(`<td>≥${some[0]}</td>`);
    expect(renderTex(c)).toContain(`$\\ge$${some[0]}`);
  });
});
