// A library backend that states no prices bills what it reports (docs/library.md: costUsd per call),
// so it is not free: when some of its answers came without usage, its cost figure is a lower bound,
// never the whole bill (src/run/meter.ts costStanding, src/llm/pricing.ts pricesOfDescription).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { executeRun } from '../../src/run/execute.js';
import { resultLine } from '../../src/cli/commands/run.js';
import { fakeDeps, quietIO } from './doubles.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'library-backend-cost-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

it('a backend that bills per call but states no prices, some answers without usage: the cost is a lower bound', async () => {
  const deps = fakeDeps();
  let k = 0;
  deps.createModel = async () => ({
    backend: {
      model: 'm1',
      describe: () => ({ backend: 'mine', model: 'm1' }),
      async complete() {
        const unknown = k++ % 2 === 1;
        return {
          choices: [{ index: 0, text: 'ok', finishReason: 'stop' as const }],
          usage: unknown
            ? { promptTokens: 0, completionTokens: 0, totalTokens: 0 }
            : { promptTokens: 10, completionTokens: 2, totalTokens: 12 },
          costUsd: unknown ? 0 : 0.5,
          cachedChoices: 0,
          latencyMs: 1,
          ...(unknown ? { usageUnknown: true as const } : {}),
        };
      },
    },
  });
  const { io } = quietIO();
  const r = await executeRun(
    { task: 'hotpotqa', method: 'cot', model: 'm1', resultsDir: dir, concurrency: 1, limit: 4, cache: 'off' },
    deps,
    io,
  );
  const manifest = JSON.parse(fs.readFileSync(path.join(r.dir, 'manifest.json'), 'utf8'));
  expect(manifest.sessions.map((s: { price?: string }) => s.price)).toEqual(['known']);
  expect(r.summary.cost_free).toBeUndefined();
  expect(r.summary.usage_unknown_calls).toBe(2);
  const line = resultLine(r);
  // The tokens leave out the same calls: a lower bound too.
  expect(line).toContain('tokens ≥ 24, cost ≥ $1.0000');
  expect(line).toContain('this command spent ≥ 24 tokens, ≥ $1.0000');
});
