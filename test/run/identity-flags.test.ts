// Benchmark.methodFlags says which of a benchmark's flags a method reads besides its environment's,
// and the report trusts it: of a run's recorded flags it names only those, and the environment's when
// the run has one (src/report/grouping.ts effectiveSettings). This holds every built-in declaration
// to the run identity, so the two cannot drift: for each method, each declared flag's value changes
// the method's part of the identity, and every other flag of the benchmark (its environment's too)
// does not. A flag in neither class fails the test by name.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { benchmarkNames, getBenchmark } from '../../src/benchmarks/registry.js';
import { paperGameList } from '../../src/benchmarks/alfworld/games.js';
import type { OptionSpec, Settings } from '../../src/options.js';
import { runDefaults } from '../../src/run/deps.js';
import { runBenchmark } from '../../src/run/execute.js';
import { camelCase } from '../../src/run/options.js';
import { canonicalJson } from '../../src/run/run-id.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'identity-flags-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A --games file of the first n paper games. */
function gamesFile(n: number): string {
  const file = path.join(tmp, `games-${n}.json`);
  fs.writeFileSync(file, JSON.stringify(paperGameList().slice(0, n)));
  return file;
}

/**
 * Two valid values of each flag without `choices` (a flag with choices takes its first two). A new
 * flag of a built-in benchmark needs its two values here: the test names it until it has them.
 */
const TWO_VALUES: Record<string, readonly [unknown, unknown]> = {
  // HotpotQA, FEVER: the methods' flags
  'max-steps': ['code', 3],
  samples: [21, 5],
  'sc-temperature': [0.7, 0.3],
  framing: ['suite-v1', 'exemplars-only'],
  exemplars: [1, 2],
  // HotpotQA, FEVER: Wikipedia's
  wiki: ['snapshot', 'live'],
  'wiki-url': ['http://127.0.0.1:9/w', 'http://127.0.0.1:10/w'],
  'wiki-snapshot': [path.join(tmp, 'a.sqlite'), path.join(tmp, 'b.sqlite')],
  'wiki-timeout': [30, 10],
  // ALFWorld
  'prompt-set': ['1,0', '0,2'],
  games: [gamesFile(3), gamesFile(5)],
  'env-timeout': [120, 60],
  // ALFWorld, WebShop
  'env-url': ['http://127.0.0.1:9', 'http://127.0.0.1:10'],
  // WebShop
  'webshop-timeout': [60, 30],
};

/** Two values of a flag; 'one' when it offers a single value (no setting of it can differ); undefined: none known. */
function twoValues(flag: string, spec: OptionSpec): readonly [unknown, unknown] | 'one' | undefined {
  if (spec.choices?.length === 1) return 'one';
  if (spec.choices && spec.choices.length > 1) return [spec.choices[0], spec.choices[1]];
  return TWO_VALUES[flag];
}

/**
 * The method's part of a run's identity for these settings, no model or environment built: as
 * src/run/execute.ts executeRun computes it (methodOptions: the built method's describe(); the
 * run id's tag, Benchmark.runIdTag), or for a derived method as src/run/combination-run.ts does (its
 * describe() of the parsed options beside its base runs', each run with the combination's settings
 * and its own method).
 */
function methodIdentity(task: string, method: string, settings: Settings): string {
  const { benchmark, options } = runBenchmark({ task, settings }, { getBenchmark });
  const derived = benchmark.derivedMethods?.[method];
  if (derived) {
    return canonicalJson({
      combination: derived.describe(options),
      base: derived.bases.map((b) => methodIdentity(task, b, { ...settings, method: b })),
    });
  }
  return canonicalJson({
    methodOptions: benchmark.createMethod(method, options).describe(),
    tag: benchmark.runIdTag?.(method, options) ?? null,
  });
}

describe('Benchmark.methodFlags', () => {
  it('every built-in benchmark declares it, for every method it runs', () => {
    for (const name of benchmarkNames()) {
      const b = getBenchmark(name);
      const methods = [...b.methods, ...Object.keys(b.derivedMethods ?? {})];
      expect({ name, undeclared: methods.filter((m) => b.methodFlags?.(m) === undefined) }).toEqual({ name, undeclared: [] });
      expect(b.methodFlags?.('no-such-method')).toBeUndefined();
    }
  });

  for (const name of benchmarkNames()) {
    it(`${name}: a method's declared flags change its identity, and its benchmark's other flags do not`, () => {
      const b = getBenchmark(name);
      const defaults = { ...runDefaults(name), task: name };
      const problems: string[] = [];
      for (const method of [...b.methods, ...Object.keys(b.derivedMethods ?? {})]) {
        const declared = b.methodFlags?.(method) ?? [];
        for (const flag of declared) if (!(flag in b.options)) problems.push(`${method}: declares --${flag}, which is no flag of ${name}`);
        for (const [flag, spec] of Object.entries(b.options)) {
          const values = twoValues(flag, spec);
          // One value (--empty-action invalid): no two runs can differ in it, whoever declares it.
          if (values === 'one') continue;
          if (values === undefined) {
            problems.push(`--${flag}: no two values to try (add them to TWO_VALUES in this file)`);
            continue;
          }
          const [x, y] = values.map((v) => methodIdentity(name, method, { ...defaults, method, [camelCase(flag)]: v }));
          const changes = x !== y;
          if (declared.includes(flag) && !changes)
            problems.push(
              `${method}: declares --${flag}, but --${flag} ${String(values[0])} and ${String(values[1])} give it one identity`,
            );
          if (!declared.includes(flag) && changes)
            problems.push(`${method}: --${flag} changes its identity, but methodFlags('${method}') does not declare it`);
        }
      }
      expect(problems).toEqual([]);
    });
  }

  it('declares what the QA methods are built from', () => {
    const b = getBenchmark('hotpotqa');
    const flags = (m: string) => [...(b.methodFlags?.(m) ?? [])].sort();
    expect(flags('react')).toEqual(['empty-action', 'exemplars', 'max-steps']);
    expect(flags('act')).toEqual(['empty-action', 'exemplars', 'framing', 'max-steps']);
    expect(flags('cot')).toEqual(['exemplars', 'framing']);
    expect(flags('standard')).toEqual(['exemplars', 'framing']);
    expect(flags('cot-sc')).toEqual(['exemplars', 'framing', 'samples', 'sc-temperature']);
    for (const combination of ['react-cot-sc', 'cot-sc-react'])
      expect(flags(combination)).toEqual([
        'empty-action',
        'exemplars',
        'framing',
        'majority-rule',
        'max-steps',
        'samples',
        'sc-temperature',
      ]);
    expect(getBenchmark('fever').methodFlags?.('cot-sc')).toEqual(b.methodFlags?.('cot-sc'));
  });
});
