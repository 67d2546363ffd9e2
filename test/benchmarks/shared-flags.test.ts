// Two toy benchmarks declaring a flag of the same name: one flag of `run`, listed under both with
// each one's description; declared with different types, or one as a path (or kept its own way by a
// bundle) and the other not, refused in one line naming both.
import { describe, expect, it } from 'vitest';
import { registerBenchmark, getBenchmark } from '../../src/benchmarks/registry.js';
import type { BenchmarkDefinition } from '../../src/benchmarks/types.js';
import type { OptionSpec, OptionTable, SettingValue } from '../../src/options.js';
import { allRunOptions, runDefaults } from '../../src/run/deps.js';
import { main } from '../../src/cli/main.js';
import { UserError } from '../../src/errors.js';

function toy(name: string, title: string, options: OptionTable): BenchmarkDefinition<unknown> {
  return {
    name,
    title,
    options,
    metrics: [{ key: 'ok', label: 'OK' }],
    size: () => 1,
    item: (index) => ({ index, id: 'x', input: 'x', gold: 'x' }),
    score: () => ({ ok: 1 }),
    methods: ['none'],
    createMethod: () => {
      throw new Error('not run in this test');
    },
    createEnv: async () => {
      throw new Error('not run in this test');
    },
  };
}

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((s: string | Uint8Array) => ((stdout += String(s)), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string | Uint8Array) => ((stderr += String(s)), true)) as typeof process.stderr.write;
  // yargs prints --help with console.log.
  const log = console.log;
  console.log = (...a: unknown[]) => void (stdout += `${a.join(' ')}\n`);
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    console.log = log;
    process.exitCode = undefined;
  }
}

registerBenchmark('toy-a', () =>
  toy('toy-a', 'Toy A', { level: { type: 'number', default: 2, describe: 'How deep toy A digs [default: 2]' } }),
);
registerBenchmark('toy-b', () =>
  toy('toy-b', 'Toy B', {
    level: { type: 'number', default: 5, describe: 'How many toy B rounds [default: 5]' },
    'b-only': { type: 'string', describe: 'Only toy B has it' },
  }),
);

describe('a flag two benchmarks declare', () => {
  it('of one type: one flag, listed under both benchmarks with both descriptions, each run with its own default', async () => {
    const table = allRunOptions();
    expect(table.level).toMatchObject({ type: 'number', group: 'Toy A / Toy B options:' });
    expect(table.level.describe).toBe('Toy A: How deep toy A digs [default: 2]; Toy B: How many toy B rounds [default: 5]');
    expect(table.level.default).toBeUndefined();
    expect([runDefaults('toy-a').level, runDefaults('toy-b').level]).toEqual([2, 5]);
    expect(table['b-only']).toMatchObject({ group: 'Toy B options:', describe: 'Only toy B has it' });
    const help = await cli(['run', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(
      /Toy A \/ Toy B options:\s+--level\s+Toy A: How deep toy A digs \[default: 2\]; Toy B: How many toy B rounds/,
    );
  });

  it('of two types: refused when the second is created, in one line naming both benchmarks', async () => {
    registerBenchmark('toy-c', () => toy('toy-c', 'Toy C', { level: { type: 'string', describe: 'A level name' } }));
    getBenchmark('toy-a');
    let err: unknown;
    try {
      getBenchmark('toy-c');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toBe(
      '--level: benchmarks "toy-a" and "toy-c" both declare it, as number and string: a flag shared by benchmarks must have one type (rename one of them)',
    );
    expect(() => allRunOptions()).toThrow(UserError);
    // Through the CLI: a one-line error, a non-zero exit, no stack trace.
    const r = await cli(['run', '--task', 'toy-a', '--level', '3', '--dry-run']);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/--level: benchmarks "toy-a" and "toy-c" both declare it/)]);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('choices are part of the type', () => {
    const a = { name: 'p', title: 'P', options: { mode: { type: 'string', choices: ['x', 'y'], describe: '' } } } as const;
    const b = { name: 'q', title: 'Q', options: { mode: { type: 'string', choices: ['y', 'x'], describe: '' } } } as const;
    const c = { name: 'r', title: 'R', options: { mode: { type: 'string', choices: ['x', 'z'], describe: '' } } } as const;
    return import('../../src/benchmarks/registry.js').then(({ checkSharedFlags }) => {
      expect(() => checkSharedFlags(a, b)).not.toThrow();
      expect(() => checkSharedFlags(a, c)).toThrow('--mode: benchmarks "p" and "r" both declare it, as string (x|y) and string (x|z)');
    });
  });

  it('a path flag and a flag a bundle keeps its own way must be declared alike by both', async () => {
    const { checkSharedFlags, mergeBenchmarkFlags } = await import('../../src/benchmarks/registry.js');
    const keepLive = (v: SettingValue) => (v === 'record' ? 'live' : v);
    const declarer = (name: string, spec: Partial<OptionSpec>) => ({
      name,
      title: name.toUpperCase(),
      options: { data: { type: 'string', describe: 'd', ...spec } as OptionSpec },
    });
    const plain = declarer('p', {});
    const path = declarer('q', { path: true });
    const kept = declarer('r', { inBundle: keepLive });
    expect(() => checkSharedFlags(plain, path)).toThrow(
      '--data: benchmarks "p" and "q" both declare it, one naming a file (path: true) and one not: a flag shared by benchmarks must be declared alike (share one OptionSpec)',
    );
    expect(() => checkSharedFlags(path, plain)).toThrow(/one naming a file \(path: true\) and one not/);
    expect(() => checkSharedFlags(plain, kept)).toThrow(
      '--data: benchmarks "p" and "r" both declare it, with different inBundle hooks: a flag shared by benchmarks must be declared alike (share one OptionSpec)',
    );
    expect(() => checkSharedFlags(kept, declarer('s', { inBundle: (v: SettingValue) => v }))).toThrow(/different inBundle hooks/);
    expect(() => mergeBenchmarkFlags([plain, path])).toThrow(UserError);
    // Declared alike (one hook, both paths): one flag, as declared.
    expect(() => checkSharedFlags(kept, declarer('t', { inBundle: keepLive }))).not.toThrow();
    const merged = mergeBenchmarkFlags([path, declarer('u', { path: true })]);
    expect(merged.data.path).toBe(true);
  });
});
