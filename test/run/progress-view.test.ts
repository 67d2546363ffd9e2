// The progress display's text (pure): separators, the bar row fitted to the width, the counters packed
// on at most two rows, "run k of n", extra counts, and the plain line for logs.
import { describe, expect, it } from 'vitest';
import { bar, fitWidth, packSegments, plainLine, startLine, ttyLines, type ProgressView } from '../../src/run/progress-view.js';
import { thousands } from '../../src/util/numbers.js';
import type { ProgressState } from '../../src/run/progress.js';
import { usd as money } from '../../src/util/money.js';

const state = (over: Partial<ProgressState> = {}): ProgressState => ({
  done: 8,
  total: 40,
  scored: 7,
  metricLabel: 'EM',
  metricValues: [1, 1, 1, 1, 1, 1, 0],
  errors: 1,
  errorsBySource: { env: 1 },
  retries: 3,
  tokens: 81638,
  cost: 0.1229,
  ...over,
});
const view = (over: Partial<ProgressView> = {}, s: Partial<ProgressState> = {}): ProgressView => ({
  label: { id: 'hotpotqa-react-offline500-meta-llama_Llama-3.1-8B-Instruct-cc760ea4', short: 'hotpotqa react', position: { k: 2, n: 7 } },
  state: state(s),
  elapsedSec: 62,
  etaSec: 248,
  ...over,
});

describe('progress text', () => {
  it('groups digits exactly as Intl.NumberFormat en-US writes the rounded number', () => {
    const intl = new Intl.NumberFormat('en-US');
    const edges = [0, -0, -0.4, 0.5, 999, 1000, -1234.5, 999_999, 2 ** 53 - 1, 2 ** 53, -(2 ** 53), 1e21, NaN, Infinity, -Infinity];
    const spread = Array.from({ length: 2000 }, (_, i) => (i % 2 ? -1 : 1) * Math.floor(1.7 ** (i % 70)) + i / 7);
    for (const n of [...edges, ...spread]) expect(thousands(n), String(n)).toBe(intl.format(Math.round(n)));
  });
  it('writes numbers with thousands separators and money with cents', () => {
    expect(thousands(81638)).toBe('81,638');
    expect(thousands(1234567)).toBe('1,234,567');
    expect(money(0.1229)).toBe('$0.1229');
    expect(money(1234.5)).toBe('$1,234.50');
  });

  it('fits every terminal row in the width, with a bar, done/total, percentage and ETA', () => {
    for (const cols of [40, 80, 120, 200]) {
      const rows = ttyLines(view(), cols);
      expect(rows.length).toBeGreaterThanOrEqual(2);
      expect(rows.length).toBeLessThanOrEqual(3);
      for (const r of rows) expect([...r].length).toBeLessThan(cols);
      expect(rows[0]).toMatch(/[█░]{10,40} 8\/40 +20% · ETA 4m08s$/);
    }
    const rows80 = ttyLines(view(), 80);
    expect(rows80[0]).toMatch(/^run 2 of 7 · hotpotqa react █{2,}░+ 8\/40 {2}20% · ETA 4m08s$/);
    expect(rows80.slice(1).join(' · ')).toBe('EM 85.7 · errors 1 (env 1) · retries 3 · tokens 81,638 · $0.1229 · elapsed 1m02s');
  });

  it('in a narrow terminal the bar row leaves the label out and shrinks the bar, never cutting done/total or the ETA', () => {
    for (const cols of [20, 25, 30, 36]) {
      const [first] = ttyLines(view({ etaSec: 0 }, { done: 30, total: 30 }), cols);
      expect([...first].length, first).toBeLessThan(cols);
      expect(first, `${cols}`).toMatch(/^[█░]*\s?30\/30 100% · ETA 0s$/);
    }
    expect(ttyLines(view({ etaSec: 0 }, { done: 30, total: 30 }), 30)[0]).toBe(`${'█'.repeat(9)} 30/30 100% · ETA 0s`);
    // With room for a few letters of it, the label stays, cut.
    expect(ttyLines(view(), 40)[0]).toMatch(/^run 2… [█░]{10} 8\/40 {2}20% · ETA 4m08s$/);
  });

  it('shows further counts once non-zero, cut with "…" rather than a third row of counters', () => {
    const s = {
      counts: { 'context exceeded': 4, 'other outcome': 0 },
      errorsBySource: { llm: 1000, env: 2000, internal: 3000 },
      errors: 6000,
    };
    expect(plainLine(view({}, s))).toMatch(/retries 3 context exceeded 4 tokens 81,638/);
    expect(plainLine(view({}, s))).not.toMatch(/other outcome/);
    const rows = ttyLines(view({}, s), 60);
    expect(rows).toHaveLength(3);
    for (const r of rows) expect([...r].length).toBeLessThan(60);
  });

  it('names the run in full once, and by a short label with "run k of n" in each line', () => {
    expect(startLine(view().label)).toBe('run 2 of 7: hotpotqa-react-offline500-meta-llama_Llama-3.1-8B-Instruct-cc760ea4');
    expect(startLine({ id: 'x-1', short: 'x' })).toBe('run: x-1');
    // The id is never cut: the prefix goes when both do not fit.
    expect(startLine(view().label, 70)).toBe('hotpotqa-react-offline500-meta-llama_Llama-3.1-8B-Instruct-cc760ea4');
    expect(plainLine(view())).toBe(
      '[run 2 of 7] hotpotqa react 8/40 (20%) EM 85.7 errors 1 (env 1) retries 3 tokens 81,638 $0.1229 elapsed 1m02s ETA 4m08s',
    );
    expect(plainLine(view({ etaSec: null }, { done: 0 }))).toMatch(/ETA \?$/);
  });

  it("names the combination a base run is run for, beside the run's place in an experiment", () => {
    const label = { id: 'hotpotqa-cot-sc-x-1', short: 'hotpotqa cot-sc', baseOf: 'hotpotqa cot-sc-react' };
    expect(startLine(label)).toBe('base of hotpotqa cot-sc-react: hotpotqa-cot-sc-x-1');
    expect(startLine({ ...label, position: { k: 6, n: 7 } })).toBe('run 6 of 7, base of hotpotqa cot-sc-react: hotpotqa-cot-sc-x-1');
    expect(plainLine({ ...view(), label: { ...label, position: { k: 6, n: 7 } } })).toMatch(
      /^\[run 6 of 7, base of hotpotqa cot-sc-react\] hotpotqa cot-sc 8\/40 /,
    );
  });

  it('bar, fit and packing', () => {
    expect(bar(0.5, 10)).toBe('█████░░░░░');
    expect(bar(2, 4)).toBe('████');
    expect(fitWidth('abcdef', 4)).toBe('abc…');
    expect(packSegments(['aaa', 'bbb', 'ccc'], 9)).toEqual(['aaa · bbb', 'ccc']);
  });
});
