// Which flags change a run's identity (and so its run id and whether --resume accepts it). The cache,
// the endpoints, retries, rate limits and prices say how a run is served, not what it computes: a
// run resumed with another --cache or --cache-path is the same run. The model, the API mode and
// the method's options are what it computes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { realDeps } from '../../src/run/deps.js';
import { identityOf, runModelView } from '../../src/run/execute.js';
import { parseRunConfig } from '../../src/run/config.js';
import type { Settings } from '../../src/options.js';

let tmp: string;
const saved = process.env.REACT_REPRO_CACHE_DIR;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'identity-'));
  process.env.REACT_REPRO_CACHE_DIR = tmp;
});
afterAll(() => {
  if (saved === undefined) delete process.env.REACT_REPRO_CACHE_DIR;
  else process.env.REACT_REPRO_CACHE_DIR = saved;
  fs.rmSync(tmp, { recursive: true, force: true });
});

const base: Settings = { task: 'hotpotqa', method: 'react', baseUrl: 'http://127.0.0.1:1234/v1', model: 'test-model' };

/** The model part of a run's identity for these settings (no request is made). */
async function modelIdentity(extra: Settings): Promise<Record<string, unknown>> {
  const m = await realDeps.createModel(parseRunConfig({ ...base, ...extra }));
  try {
    return identityOf(runModelView(m));
  } finally {
    m.cache?.close();
    await m.backend.close?.();
  }
}

describe('run identity', () => {
  it('--cache and --cache-path (and how the model is served) do not change it', async () => {
    const ref = await modelIdentity({});
    const same: Settings[] = [
      { cache: 'off' },
      { cache: 'replay' },
      { cachePath: path.join(tmp, 'other.sqlite') },
      { cache: 'off', cachePath: path.join(tmp, 'x.sqlite') },
      { baseUrl: 'http://127.0.0.1:4321/v1' },
      { maxRetries: 1 },
      { requestTimeout: 5 },
      { maxInFlight: 2 },
      { rpm: 10, tpm: 1000 },
      { balance: 'round-robin' },
      { pricePrompt: 1, priceCompletion: 2 },
    ];
    for (const extra of same) expect({ extra, identity: await modelIdentity(extra) }).toEqual({ extra, identity: ref });
    // The cache is in the description (the manifest records it), just not in the identity.
    const m = await realDeps.createModel(parseRunConfig({ ...base, cache: 'off' }));
    expect(runModelView(m).describe()).toMatchObject({ cache: { mode: 'off' } });
    m.cache?.close();
    await m.backend.close?.();
  });

  it('the model and the API mode do', async () => {
    const ref = await modelIdentity({});
    expect(ref).toEqual({ backend: 'openai-compatible', model: 'test-model', api: 'completions', deviations: [] });
    expect(await modelIdentity({ model: 'other-model' })).not.toEqual(ref);
    expect(await modelIdentity({ api: 'chat' })).not.toEqual(ref);
  });
});
