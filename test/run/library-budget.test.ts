// The library's runExperiment keeps the CLI's rule (README "Reliability"): a budget over a model of
// unknown price is refused before any run starts, nothing written and nothing asked.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runExperiment } from '../../src/index.js';
import { Budget } from '../../src/run/budget.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'library-budget-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('runExperiment with a budget', () => {
  it('refuses a model of unknown price before anything runs', async () => {
    const resultsDir = path.join(tmp, 'results');
    await expect(
      runExperiment(
        { task: 'hotpotqa', method: 'cot', limit: 1, baseUrl: 'http://127.0.0.1:59999/v1', model: 'local-model', cache: 'off', resultsDir },
        { budget: new Budget(1) },
      ),
    ).rejects.toThrow(/^--max-cost: no price is known for the model local-model, so the budget cannot count its calls/);
    expect(fs.existsSync(resultsDir)).toBe(false);
  });
});
