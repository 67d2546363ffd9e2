// Which stored settings a re-run from a bundle keeps is declared with each flag (OptionSpec.path,
// OptionSpec.inBundle), by the core for its flags and by a benchmark for its own: a plug-in's path flag
// is never taken from a bundle, with no list in the core to add it to.
import { describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { mergeBenchmarkFlags, registerBenchmark } from '../../src/benchmarks/registry.js';
import type { BenchmarkDefinition } from '../../src/benchmarks/types.js';
import { UserError } from '../../src/errors.js';
import type { OptionTable, SettingValue } from '../../src/options.js';
import { bundleSettings } from '../../src/run/bundle-settings.js';
import { allRunOptions } from '../../src/run/deps.js';

/** A test-only plug-in with a flag naming a file and a flag only some of whose values name one. */
const corpus: BenchmarkDefinition = {
  name: 'corpus-test',
  metrics: [{ key: 'found', label: 'Found' }],
  options: {
    'corpus-file': { type: 'string', path: true, describe: 'Corpus file on this machine' },
    'corpus-source': {
      type: 'string',
      describe: 'builtin, or file:PATH',
      inBundle: (v: SettingValue) => (typeof v === 'string' && v.startsWith('file:') ? 'builtin' : v),
    },
    'corpus-size': { type: 'number', describe: 'Items' },
  },
  size: () => 1,
  item: (index) => ({ index, id: 'x', input: 'x' }),
  score: () => ({ found: 0 }),
  methods: ['look'],
  createMethod: () => {
    throw new UserError('not run here');
  },
  createEnv: async () => ({
    makeEnv: () => ({
      reset: async () => ({ observation: '', info: {} }),
      step: async () => ({ observation: '', reward: 0, done: true, info: {} }),
    }),
    describe: () => ({}),
  }),
};
registerBenchmark('corpus-test', () => corpus);

describe('bundle settings follow the flag declarations', () => {
  it("drops a plug-in's path flag and keeps what its inBundle hook says", () => {
    const stored = {
      task: 'corpus-test',
      method: 'look',
      corpusFile: '/home/someone/corpus.jsonl',
      corpusSource: 'file:/home/someone/c',
      corpusSize: 3,
    };
    expect(bundleSettings(stored, allRunOptions(), 'b')).toEqual({
      task: 'corpus-test',
      method: 'look',
      corpusSource: 'builtin',
      corpusSize: 3,
    });
    expect(bundleSettings({ corpusSource: 'builtin' }, allRunOptions(), 'b')).toEqual({ corpusSource: 'builtin' });
  });

  it("drops the built-in path flags (the core's, the Wikipedia benchmarks', ALFWorld's) and keeps --wiki record as live", () => {
    const stored = {
      task: 'hotpotqa',
      method: 'react',
      cachePath: '/x/c.sqlite',
      resultsDir: '/x/results',
      fromRuns: '/x/a,/x/b',
      llm: 'llama:/x/model.gguf',
      wikiSnapshot: '/x/wiki.sqlite',
      games: '/x/games.json',
      wiki: 'record:/x/rec.jsonl',
      baseUrl: ['http://a/v1', 'http://b/v1'],
    };
    expect(bundleSettings(stored, allRunOptions(), 'b')).toEqual({
      task: 'hotpotqa',
      method: 'react',
      wiki: 'live',
      baseUrl: ['http://a/v1', 'http://b/v1'],
    });
    expect(bundleSettings({ wiki: 'replay:/x/rec.jsonl' }, allRunOptions(), 'b')).toEqual({});
    expect(bundleSettings({ wiki: 'api' }, allRunOptions(), 'b')).toEqual({ wiki: 'api' });
  });

  it('a flag shared by benchmarks is a path when both declare it so, and refused when only one does', () => {
    const shared = (path: boolean): OptionTable => ({ data: { type: 'string', describe: 'd', ...(path ? { path: true as const } : {}) } });
    const merged = mergeBenchmarkFlags([
      { name: 'a', title: 'A', options: shared(true) },
      { name: 'b', title: 'B', options: shared(true) },
    ]);
    expect(merged.data.path).toBe(true);
    expect(bundleSettings({ data: '/x' }, merged, 'b')).toEqual({});
    const mixed = [
      { name: 'a', title: 'A', options: shared(false) },
      { name: 'b', title: 'B', options: shared(true) },
    ];
    expect(() => mergeBenchmarkFlags(mixed)).toThrow(/^--data: benchmarks "a" and "b" both declare it, one naming a file/);
  });
});
