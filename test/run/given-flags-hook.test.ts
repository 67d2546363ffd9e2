// Contradictions between flags given together are each benchmark's own rule (Benchmark.checkGivenFlags):
// the core asks the benchmark of the runs, and only it, before any run starts.
import { describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { registerBenchmark } from '../../src/benchmarks/registry.js';
import type { BenchmarkDefinition } from '../../src/benchmarks/types.js';
import { UserError } from '../../src/errors.js';
import type { Settings } from '../../src/options.js';
import { resolveRuns } from '../../src/run/resolve-runs.js';

const checked: Settings[] = [];
const strict: BenchmarkDefinition = {
  name: 'strict-test',
  metrics: [{ key: 'ok', label: 'OK' }],
  options: { 'strict-offline': { type: 'boolean', describe: 'Never reach a server' } },
  checkGivenFlags: (given) => {
    checked.push(given);
    if (given.strictOffline === true && given.envUrl !== undefined)
      throw new UserError('--env-url and --strict-offline contradict each other (give one)');
  },
  size: () => 1,
  item: (index) => ({ index, id: 'x', input: 'x' }),
  score: () => ({ ok: 0 }),
  methods: ['look'],
  createMethod: () => {
    throw new UserError('not run here');
  },
  createEnv: async () => {
    throw new UserError('not run here');
  },
};
registerBenchmark('strict-test', () => strict);

describe('flags given together', () => {
  it("are checked by the run's benchmark, with what was given", () => {
    expect(() => resolveRuns({ task: 'strict-test', strictOffline: true, envUrl: 'http://127.0.0.1:1' })).toThrow(
      new UserError('--env-url and --strict-offline contradict each other (give one)'),
    );
    expect(checked.at(-1)).toEqual({ task: 'strict-test', strictOffline: true, envUrl: 'http://127.0.0.1:1' });
    expect(resolveRuns({ task: 'strict-test', strictOffline: true })).toHaveLength(1);
  });

  it("not by another benchmark's rule: HotpotQA's --env-url / --wiki snapshot is its own", () => {
    const before = checked.length;
    expect(() => resolveRuns({ task: 'hotpotqa', method: 'react', envUrl: 'http://127.0.0.1:1', wiki: 'snapshot' })).toThrow(
      new UserError(
        '--env-url and --wiki snapshot contradict each other: --env-url names a live site, --wiki snapshot the offline pages (give one)',
      ),
    );
    expect(checked.length).toBe(before);
    expect(resolveRuns({ task: 'strict-test', envUrl: 'http://127.0.0.1:1' })).toHaveLength(1);
  });
});
