// Which runs `export --format finetune` takes without --method is each benchmark's choice
// (Benchmark.finetuneMethods), not the core's: the built-ins name ReAct (FireAct's data), a plug-in
// that names none has its default method's, one that names a method it does not run is refused, and
// a run is taken when its own benchmark names its method.
import { describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { benchmarkNames, getBenchmark, registerBenchmark } from '../../src/benchmarks/registry.js';
import type { BenchmarkDefinition } from '../../src/benchmarks/types.js';
import { UserError } from '../../src/errors.js';
import { filterRuns, finetuneMethodsOf, finetuneMethodsText } from '../../src/report/export.js';
import type { RunView } from '../../src/report/model.js';
import { sampleManifest } from './sample-runs.js';

function plugin(name: string, extra: Partial<BenchmarkDefinition<unknown>> = {}): BenchmarkDefinition<unknown> {
  return {
    name,
    metrics: [{ key: 'ok', label: 'OK' }],
    size: () => 1,
    item: (index) => ({ index, id: 'x', input: 'x', gold: 'x' }),
    score: () => ({ ok: 1 }),
    methods: ['plan', 'act'],
    createMethod: () => {
      throw new Error('not run in this test');
    },
    createEnv: async () => {
      throw new Error('not run in this test');
    },
    ...extra,
  };
}

const run = (task: string, method: string): RunView =>
  ({ dir: `/runs/${task}-${method}`, manifest: sampleManifest(`${task}-${method}`, task, method, [0]), records: [] }) as unknown as RunView;

describe('fine-tuning methods by benchmark', () => {
  it('the built-ins name ReAct, and the help says so as one list', () => {
    const builtins = ['hotpotqa', 'fever', 'alfworld', 'webshop'].map(getBenchmark);
    expect(builtins.map((b) => b.finetuneMethods)).toEqual([['react'], ['react'], ['react'], ['react']]);
    expect(finetuneMethodsText(builtins)).toBe('react');
  });

  it('a plug-in naming none has its default method; one naming a method it does not run is refused', () => {
    registerBenchmark('ft-default', () => plugin('ft-default'));
    expect(finetuneMethodsOf([getBenchmark('ft-default')])('ft-default')).toEqual(['plan']);
    registerBenchmark('ft-act', () => plugin('ft-act', { defaultMethod: 'act' }));
    expect(finetuneMethodsOf([getBenchmark('ft-act')])('ft-act')).toEqual(['act']);
    registerBenchmark('ft-none', () => plugin('ft-none', { finetuneMethods: [] }));
    expect(finetuneMethodsOf([getBenchmark('ft-none')])('ft-none')).toEqual([]);
    registerBenchmark('ft-stray', () => plugin('ft-stray', { finetuneMethods: ['react'] }));
    expect(() => getBenchmark('ft-stray')).toThrow(UserError);
    expect(() => getBenchmark('ft-stray')).toThrow(
      'benchmark "ft-stray": finetuneMethods names "react", not one of its methods (plan, act)',
    );
  });

  it("takes a run when its own benchmark names its method; the help names each benchmark's where they differ", () => {
    registerBenchmark('ft-plan', () => plugin('ft-plan', { finetuneMethods: ['plan'] }));
    const benches = ['hotpotqa', 'ft-plan'].map(getBenchmark);
    expect(benchmarkNames()).toContain('ft-plan');
    const runs = [run('hotpotqa', 'react'), run('hotpotqa', 'act'), run('ft-plan', 'act'), run('ft-plan', 'plan'), run('unknown', 'react')];
    const kept = filterRuns(runs, { methodsOf: finetuneMethodsOf(benches) });
    expect(kept.map((r) => r.manifest.runId)).toEqual(['hotpotqa-react', 'ft-plan-plan']);
    expect(finetuneMethodsText(benches)).toBe('hotpotqa react; ft-plan plan');
    expect(finetuneMethodsText([...benches, getBenchmark('ft-none')])).toBe('hotpotqa react; ft-plan plan; ft-none none');
    // An explicit list is one list for every benchmark.
    expect(filterRuns(runs, { methods: ['act'], methodsOf: finetuneMethodsOf(benches) }).map((r) => r.manifest.runId)).toEqual([
      'hotpotqa-act',
      'ft-plan-act',
    ]);
  });

  it('none taken: a one-line error naming the flag and what the runs hold', () => {
    const benches = ['hotpotqa', 'ft-none'].map(getBenchmark);
    const flags = { method: '--method (default with --format finetune: react)', task: '--task' };
    expect(() => filterRuns([run('hotpotqa', 'act')], { methodsOf: finetuneMethodsOf(benches) }, flags)).toThrow(
      '--method (default with --format finetune: react) react: none of the 1 run(s) is of that method (they have: act)',
    );
    expect(() => filterRuns([run('ft-none', 'act'), run('unknown', 'react')], { methodsOf: finetuneMethodsOf(benches) }, flags)).toThrow(
      '--method (default with --format finetune: react): none of the 2 run(s) is of a method its benchmark names (they have: act, react)',
    );
  });
});
