// Scores are rounded once, on the exact rational, half away from zero; expectations come from CPython's
// fractions/decimal (test/fixtures/report/stats.json, scripts/gen_report_stats_fixtures.py).
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  differencePercent,
  formatDelta,
  formatInterval,
  formatP,
  formatScore,
  meanPercent,
  metricScore,
  percent,
  roundHalfAway,
} from '../../src/util/numbers.js';

const fixture = JSON.parse(
  fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/report/stats.json'), 'utf8'),
) as {
  rounding_counts: { sum: number; n: number; expected: string }[];
  rounding_means: { values: number[]; expected: string }[];
};

describe('percent', () => {
  it('rounds the exact rational once, half away from zero', () => {
    expect(percent(15, 19)).toBe(78.9); // 78.947…: the value that showed 79.0 when rounded twice
    expect(percent(1, 8)).toBe(12.5);
    expect(percent(2, 3)).toBe(66.7);
    expect(percent(1, 3)).toBe(33.3);
    expect(percent(1, 16)).toBe(6.3); // 6.25 exactly: half goes up
    expect(percent(3, 16)).toBe(18.8); // 18.75
    expect(percent(1, 2000)).toBe(0.1); // 0.05 exactly
    expect(percent(-1, 16)).toBe(-6.3); // away from zero on the negative side too
    expect(percent(0, 7)).toBe(0);
    expect(percent(7, 7)).toBe(100);
  });

  it('gets right what rounding twice got wrong', () => {
    // The old summary: Math.round(x · 10000) / 100, then toFixed(1) in the report (15/19 → 79.0).
    const twice = (s: number, n: number) => (Math.round((s / n) * 10000) / 100).toFixed(1);
    expect(twice(15, 19)).toBe('79.0');
    const found = fixture.rounding_counts.filter((c) => twice(c.sum, c.n) !== c.expected);
    // The fixture contains such cases (so this test can tell the two apart)…
    expect(found.length).toBeGreaterThan(0);
    // …and percent() gets every one right.
    for (const c of found) expect(formatScore(percent(c.sum, c.n))).toBe(c.expected);
  });

  it('matches CPython on every count in the fixture', () => {
    for (const c of fixture.rounding_counts) expect(formatScore(percent(c.sum, c.n)), `${c.sum}/${c.n}`).toBe(c.expected);
  });

  it('has no score for no episodes, never NaN', () => {
    expect(percent(0, 0)).toBeNull();
    expect(formatScore(percent(0, 0))).toBe('—');
    expect(meanPercent([])).toBeNull();
    expect(formatScore(Number.NaN)).toBe('—');
    expect(() => percent(1, -1)).toThrow(RangeError);
    expect(() => percent(1, 2.5)).toThrow(RangeError);
    expect(() => percent(Number.NaN, 3)).toThrow(RangeError);
  });
});

describe('meanPercent', () => {
  it('sums floats exactly (order does not matter) and rounds once', () => {
    for (const c of fixture.rounding_means) {
      expect(formatScore(meanPercent(c.values))).toBe(c.expected);
      expect(formatScore(meanPercent([...c.values].reverse()))).toBe(c.expected);
    }
    // 0.1 is 0.1000000000000000055… in binary: the float sum of ten is 0.9999999999999999, the exact sum a hair over 1.
    expect(meanPercent([...Array(10).fill(0.1), ...Array(10).fill(0)])).toBe(5);
  });

  it('differencePercent is the exact mean difference in points', () => {
    expect(differencePercent([1, 1, 0], [0, 1, 1])).toBe(0);
    expect(differencePercent([1, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0])).toBe(12.5);
    expect(differencePercent([0, 0, 0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0, 0])).toBe(-12.5);
    expect(differencePercent([], [])).toBeNull();
    expect(() => differencePercent([1], [])).toThrow(RangeError);
  });
});

describe('roundHalfAway', () => {
  it('rounds the exact binary value, not the decimal literal', () => {
    expect(roundHalfAway(1.25, 1)).toBe(1.3); // exact in binary: a true half
    expect(roundHalfAway(-1.25, 1)).toBe(-1.3);
    expect(roundHalfAway(2.675, 2)).toBe(2.67); // 2.67499999… in binary
    expect(roundHalfAway(0.0005, 3)).toBe(0.001); // 0.000500000000000000010…
    expect(roundHalfAway(78.94736842105263, 1)).toBe(78.9);
  });
});

describe('formatters', () => {
  it('show one decimal, signs, intervals and p-values', () => {
    expect(formatScore(30)).toBe('30.0');
    expect(formatScore(78.9)).toBe('78.9');
    expect(formatDelta(3.2)).toBe('+3.2');
    expect(formatDelta(-0.4)).toBe('-0.4');
    expect(formatDelta(-0)).toBe('0.0');
    expect(formatDelta(null)).toBe('—');
    expect(formatInterval(57.9, 94.7)).toBe('[57.9, 94.7]');
    expect(formatInterval(null, 3)).toBe('—');
    expect(formatP(0.0004)).toBe('<0.001');
    expect(formatP(0.0385742)).toBe('0.039');
    expect(formatP(1)).toBe('1.000');
    expect(formatP(Number.NaN)).toBe('—');
  });
});

describe('metricScore', () => {
  it('counts scored episodes and leaves error episodes out', () => {
    const recs = [
      ...Array.from({ length: 15 }, () => ({ metrics: { em: 1 }, error: null })),
      ...Array.from({ length: 4 }, () => ({ metrics: { em: 0 }, error: null })),
      { metrics: { em: 0 }, error: { source: 'llm', message: 'timeout' } },
    ];
    expect(metricScore(recs, 'em')).toEqual({ n: 19, errors: 1, sum: 15, value: 78.9 });
    expect(metricScore([{ metrics: { em: 0 }, error: { source: 'env', message: 'down' } }], 'em')).toEqual({
      n: 0,
      errors: 1,
      sum: 0,
      value: null,
    });
    expect(() => metricScore([{ metrics: {}, error: null }], 'em')).toThrow(/metric "em"/);
  });
});
