// Every error in the one hierarchy (src/errors.ts): a failure of the environment that the released
// code would crash on is an environment outcome of that episode (an error record of source 'env'),
// never an internal error, and it does not trip the circuit breaker.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EnvironmentFailure, InfraError, RunStop } from '../../src/errors.js';
import { WikiCleanStrError, WikiDisambiguationLoopError } from '../../src/envs/wikipedia/wiki-env.js';
import { WebshopRewardError } from '../../src/benchmarks/webshop/page-text.js';
import { BudgetStop } from '../../src/run/budget.js';
import { CircuitBreaker } from '../../src/run/breaker.js';
import { executeRun } from '../../src/run/execute.js';
import { loadEpisodes } from '../../src/runlog/store.js';
import { fakeDeps, quietIO } from './doubles.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outcomes-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('environment outcomes', () => {
  it('the environment errors and the budget stop sit in the hierarchy', () => {
    for (const E of [WikiCleanStrError, WikiDisambiguationLoopError, WebshopRewardError]) {
      const e = new E('x');
      expect(e).toBeInstanceOf(EnvironmentFailure);
      expect(e).toBeInstanceOf(InfraError);
      expect((e as InfraError).source).toBe('env');
      expect(e.name).toBe('InfraError'); // a recording revives it as an InfraError
    }
    expect(new BudgetStop('x')).toBeInstanceOf(RunStop);
  });

  it('--clean-str-errors throw: the episode is recorded as an environment error, not an internal one', async () => {
    const { io, lines } = quietIO();
    let n = 0;
    const deps = fakeDeps({ fail: () => (n++ === 1 ? new WikiCleanStrError('clean_str raises UnicodeEncodeError on "x"') : undefined) });
    const r = await executeRun({ task: 'hotpotqa', method: 'cot', model: 'm1', resultsDir: dir, concurrency: 1, limit: 4 }, deps, io);
    const recs = [...loadEpisodes(path.join(r.dir, 'episodes.jsonl')).records.values()];
    const bad = recs.filter((x) => x.error);
    expect(bad).toHaveLength(1);
    expect(bad[0].error).toEqual({ source: 'env', message: 'clean_str raises UnicodeEncodeError on "x"' });
    expect(r.errorCauses.map((c) => c.source)).toEqual(['env']);
    expect(lines.join('\n')).not.toMatch(/failed \(recorded as an error\)/); // the internal-error note
  });

  it('environment outcomes do not trip the circuit breaker; outages do', () => {
    const b = new CircuitBreaker(2);
    expect(b.failure(new WikiCleanStrError('a'))).toBeNull();
    expect(b.failure(new WikiCleanStrError('b'))).toBeNull();
    expect(b.failure(new WikiCleanStrError('c'))).toBeNull();
    expect(b.failure(new InfraError('down', 'env'))).toBeNull();
    expect(b.failure(new InfraError('down', 'env'))).not.toBeNull();
  });
});
