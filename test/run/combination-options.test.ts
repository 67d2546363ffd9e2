// A derived method (a combination) is handed its benchmark's typed options, parsed once where the
// combination runs (src/run/combination-run.ts), as every other hook of a benchmark is: describe()
// and combine() receive what parseOptions returned for the combination's settings, never the raw
// settings, and a bad value is refused before any base run is made (no model call, no folder).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeCombination } from '../../src/run/combination-run.js';
import { derivedMethodOf } from '../../src/run/derived-method.js';
import { UserError } from '../../src/errors.js';
import type { Benchmark, DerivedMethod } from '../../src/benchmarks/types.js';
import type { Settings } from '../../src/options.js';
import { fakeBenchmark, fakeDeps, quietIO, type FakeDeps } from './doubles.js';
import '../../src/benchmarks/builtin.js';
import { getBenchmark } from '../../src/benchmarks/registry.js';

/** The combination's own option, typed: which base run's answer it keeps. */
interface PickOptions {
  keep: 'cot' | 'react';
}

function parsePick(settings: Settings): PickOptions {
  const keep = settings.keep ?? 'react';
  if (keep !== 'cot' && keep !== 'react') throw new UserError(`--keep: expected cot or react, got ${JSON.stringify(keep)}`);
  return { keep };
}

/** Fake deps whose benchmark has a typed option and one derived method that records what it was handed. */
function depsWithCombination(): { deps: FakeDeps; parsed: PickOptions[]; handed: unknown[] } {
  const parsed: PickOptions[] = [];
  const handed: unknown[] = [];
  const pick: DerivedMethod<PickOptions> = {
    name: 'pick',
    bases: ['cot', 'react'],
    describe: (options) => (handed.push(options), { pick: options.keep }),
    combine: (_item, [cot, react], options) => {
      handed.push(options);
      const from = options.keep === 'cot' ? cot : react;
      return { answer: from.answer, traj: from.traj, steps: from.steps, n_calls: 0, n_badcalls: 0, extra: {} };
    },
  };
  const deps = fakeDeps();
  const benches = new Map<string, Benchmark>();
  deps.getBenchmark = (name) => {
    let b = benches.get(name);
    if (!b) {
      b = {
        ...fakeBenchmark(name, deps),
        parseOptions: (settings: Settings) => {
          const o = parsePick(settings);
          parsed.push(o);
          return o;
        },
        createMethod: (m: string) => deps.createMethod(m, {}),
        derivedMethods: { pick },
      };
      benches.set(name, b);
    }
    return b;
  };
  return { deps, parsed, handed };
}

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'combination-options-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const settings = (over: Settings = {}): Settings => ({
  task: 'hotpotqa',
  method: 'pick',
  model: 'm1',
  resultsDir: dir,
  concurrency: 2,
  limit: 4,
  ...over,
});

describe('a derived method receives its typed options', () => {
  it("describe() and combine() are handed what parseOptions returned for the combination's settings", async () => {
    const { deps, parsed, handed } = depsWithCombination();
    const found = derivedMethodOf(settings({ keep: 'cot' }), deps);
    expect(found?.options).toEqual({ keep: 'cot' });
    const r = await executeCombination(settings({ keep: 'cot' }), deps, quietIO().io);
    expect(r.status).toBe('complete');
    // describe() once, combine() once per item: each handed the one object parsed for the combination.
    expect(handed).toHaveLength(1 + 4);
    expect(handed[0]).toEqual({ keep: 'cot' });
    expect(parsed).toContain(handed[0]);
    for (const o of handed) expect(o).toBe(handed[0]);
    const m = JSON.parse(fs.readFileSync(path.join(r.dir, 'manifest.json'), 'utf8'));
    expect(m.identity.combination).toEqual({ pick: 'cot' });
    expect(m.settings.keep).toBe('cot');
  });

  it('a bad value is refused, naming the flag, before any base run is made', async () => {
    const { deps } = depsWithCombination();
    await expect(executeCombination(settings({ keep: 'both' }), deps, quietIO().io)).rejects.toThrow(
      new UserError('--keep: expected cot or react, got "both"'),
    );
    expect(deps.models).toHaveLength(0);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("HotpotQA and FEVER: the combinations' options are read once, a bad one refused before the base runs", () => {
    const of = (over: Settings) => derivedMethodOf({ task: 'fever', method: 'cot-sc-react', ...over }, { getBenchmark });
    const found = of({ majorityRule: 'author', maxSteps: 'paper' })!;
    // The recorded meaning is part of the run id: worded as first released.
    expect(found.derived.describe(found.options)).toEqual({
      combination: 'cot-sc-react',
      majorityRule: 'author',
      majorityRuleMeaning: 'use CoT-SC only when its majority has more than n/2 votes (issue 8)',
      reactStepLimit: 5,
      extraModelCalls: 0,
    });
    expect(found.derived.describe(of({})!.options)).toMatchObject({ majorityRule: 'paper', reactStepLimit: 'as the ReAct run ran' });
    expect(() => of({ majorityRule: 'most' })).toThrow(new UserError('--majority-rule: expected paper or author, got most'));
  });
});
