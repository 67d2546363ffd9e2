// recordingEnv (src/envs/recording.ts): a sink that serialises each event at once (the run recording)
// is given the environment's result itself, and the line it writes is the one a JSON copy gives:
// undefined fields left out, nested values as they were at that step, errors recorded and rethrown.
import { describe, expect, it } from 'vitest';
import { recordingEnv, type EnvEvent } from '../../src/envs/recording.js';
import type { Env, StepResult } from '../../src/envs/types.js';
import type { Item } from '../../src/benchmarks/types.js';

/** An env whose results share one info object, changed by every later step (as a careless env might). */
function sharingEnv(): Env {
  const info: Record<string, unknown> = { steps: 0, answer: null, note: undefined, when: new Date(0) };
  return {
    async reset() {
      return { observation: 'start', info };
    },
    async step(action: string): Promise<StepResult> {
      if (action === 'boom') throw new Error('env broke');
      info.steps = (info.steps as number) + 1;
      const r = { observation: `saw ${action} "quoted" \u2028`, reward: 0, done: false, info, extra: undefined };
      return r;
    },
  };
}

const item = { index: 7 } as Item;

async function lines(serialisingSink: boolean): Promise<string[]> {
  const out: string[] = [];
  const sink = (ev: EnvEvent) => out.push(JSON.stringify({ t: 'env', ...ev }));
  const env = recordingEnv(sharingEnv(), item, 'a.0', sink, { serialisingSink });
  await env.reset();
  await env.step('search[x]');
  await env.step('lookup[y]');
  await expect(env.step('boom')).rejects.toThrow('env broke');
  return out;
}

describe('recordingEnv', () => {
  it('writes the same lines whether the sink serialises at once or is given a JSON copy', async () => {
    const copied = await lines(false);
    const direct = await lines(true);
    expect(direct).toEqual(copied);
    expect(direct).toHaveLength(4);
    expect(JSON.parse(direct[1])).toEqual({
      t: 'env',
      item: 7,
      attempt: 'a.0',
      step: 1,
      call: 'step',
      action: 'search[x]',
      result: { observation: 'saw search[x] "quoted" \u2028', reward: 0, done: false, info: { steps: 1, answer: null, when: '1970-01-01T00:00:00.000Z' } },
    });
    expect(JSON.parse(direct[2]).result.info.steps).toBe(2);
    expect(JSON.parse(direct[3])).toMatchObject({ step: 3, error: { name: 'Error', message: 'env broke' } });
  });
});
