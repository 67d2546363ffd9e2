// A plug-in written for an older contract (docs/library.md "Changes for plug-in authors") still
// declaring a member that is no longer read is refused in one line saying what replaces it, not
// silently ignored: its Table 2 sample or its combination's base runs would change without a word.
import { describe, expect, it } from 'vitest';
import { getBenchmark, registerBenchmark } from '../../src/benchmarks/registry.js';
import type { BenchmarkDefinition } from '../../src/benchmarks/types.js';
import { UserError } from '../../src/errors.js';

function plugin(name: string, extra: Record<string, unknown>): BenchmarkDefinition<unknown> {
  return {
    name,
    metrics: [{ key: 'ok', label: 'OK' }],
    size: () => 1,
    item: (index) => ({ index, id: 'x', input: 'x', gold: 'x' }),
    score: () => ({ ok: 1 }),
    methods: ['base'],
    createMethod: () => {
      throw new Error('not run in this test');
    },
    createEnv: async () => {
      throw new Error('not run in this test');
    },
    ...extra,
  } as BenchmarkDefinition<unknown>;
}

/** The error getBenchmark throws for `name` (the factory runs on first use). */
function refusal(name: string): Error {
  try {
    getBenchmark(name);
  } catch (e) {
    return e as Error;
  }
  throw new Error(`benchmark "${name}" was accepted`);
}

const errorAnalysis = { methods: ['base'], categories: [], tags: [], autoTags: () => [] };
const derived = { name: 'combo', bases: ['base'], describe: () => ({}), combine: () => ({}) };

describe('a plug-in declaring a member that was removed', () => {
  it('errorAnalysis.isCorrect: refused, naming Benchmark.isCorrect', () => {
    registerBenchmark('old-error-analysis', () =>
      plugin('old-error-analysis', { errorAnalysis: { ...errorAnalysis, isCorrect: () => true } }),
    );
    const e = refusal('old-error-analysis');
    expect(e).toBeInstanceOf(UserError);
    expect(e.message).toBe(
      'benchmark "old-error-analysis": errorAnalysis.isCorrect is no longer read: declare isCorrect(episode) on the benchmark itself (default: its primary metric equals 1)',
    );
  });

  it("a derived method's baseSettings: refused, saying what a base run runs with", () => {
    registerBenchmark('old-derived', () =>
      plugin('old-derived', { derivedMethods: { combo: { ...derived, baseSettings: (s: unknown) => s } } }),
    );
    const e = refusal('old-derived');
    expect(e).toBeInstanceOf(UserError);
    expect(e.message).toBe(
      'benchmark "old-derived": derivedMethods.combo.baseSettings is no longer read: a base run runs with the combination\'s settings and its own method, and describe(options) and combine(item, bases, options) receive the options parseOptions returned',
    );
  });

  it('the current members are accepted', () => {
    registerBenchmark('current', () => plugin('current', { isCorrect: () => true, errorAnalysis, derivedMethods: { combo: derived } }));
    expect(getBenchmark('current').derivedMethods?.combo.bases).toEqual(['base']);
  });
});
