// --max-cost admission (src/run/budget.ts): a call that could pass the budget only because of calls in
// flight waits for them to settle; the run stops only when the call could pass it with nothing else in
// flight. The spend can never pass the budget; waiting never deadlocks; an interrupt ends a wait.
import { describe, expect, it } from 'vitest';
import { Budget, BudgetStop, type BudgetRelease } from '../../src/run/budget.js';
import { AbortedUnsentError } from '../../src/llm/types.js';

const NO_TOKENS = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/** A pending admission and whether it has settled (admitted or refused) yet. */
function watch(p: Promise<BudgetRelease>): { settled: () => boolean; result: Promise<BudgetRelease> } {
  let done = false;
  const result = p.finally(() => {
    done = true;
  });
  result.catch(() => {}); // observed below
  return { settled: () => done, result };
}
const tick = () => new Promise<void>((r) => setImmediate(r));

describe('Budget: calls wait for those in flight', () => {
  it('every episode waiting is no deadlock: when the last call in flight settles, the first waiting is decided', async () => {
    const b = new Budget(1);
    const inFlight = await Promise.all([b.begin(0.3), b.begin(0.3), b.begin(0.3)]);
    const waiting = [watch(b.begin(0.3)), watch(b.begin(0.3)), watch(b.begin(0.3))];
    await tick();
    expect(waiting.map((w) => w.settled())).toEqual([false, false, false]);
    // Each call cost a tenth of its estimate: once all three settle, the three waiting fit (0.3 + 0.9).
    for (const release of inFlight) {
      b.meter.paid(NO_TOKENS, 0.03);
      release();
    }
    const admitted = await Promise.all(waiting.map((w) => w.result));
    expect(b.stopped).toBeNull();
    for (const release of admitted) {
      b.meter.paid(NO_TOKENS, 0.3);
      release();
    }
    expect(b.spent).toBeCloseTo(0.99, 12);
    expect(b.spent).toBeLessThanOrEqual(b.maxUsd);
  });

  it('first come, first served: a small call does not pass a waiting large one', async () => {
    const b = new Budget(1);
    const a = await b.begin(0.5);
    const large = watch(b.begin(0.6));
    const small = watch(b.begin(0.1)); // would fit beside a, but waits its turn
    await tick();
    expect([large.settled(), small.settled()]).toEqual([false, false]);
    b.meter.paid(NO_TOKENS, 0.2);
    a();
    await Promise.all([large.result, small.result]);
  });

  it('stops when the call could pass the budget with nothing in flight, refusing the calls waiting behind it', async () => {
    const b = new Budget(1);
    const a = await b.begin(0.5);
    const next = watch(b.begin(0.4));
    const behind = watch(b.begin(0.4));
    await tick();
    b.meter.paid(NO_TOKENS, 0.35);
    a(); // 0.35 + 0.4 fits: admitted; 0.35 + 0.4 in flight + 0.4 does not: waits
    const admitted = await next.result;
    await tick();
    expect(behind.settled()).toBe(false);
    b.meter.paid(NO_TOKENS, 0.4);
    admitted(); // 0.75 + 0.4 could pass 1 even alone: the run stops
    await expect(behind.result).rejects.toBeInstanceOf(BudgetStop);
    expect(b.stopped?.message).toBe(
      'stopped at the --max-cost budget of $1.00: $0.7500 spent by this command when it stopped, and the next call (up to $0.4000) could pass it',
    );
    expect(b.spent).toBeLessThanOrEqual(b.maxUsd);
  });

  it('an interrupt ends a wait: the call is refused as never sent, and the calls behind it are decided again', async () => {
    const b = new Budget(1);
    const a = await b.begin(0.5);
    const ctrl = new AbortController();
    const large = watch(b.begin(0.6, { signal: ctrl.signal }));
    const small = watch(b.begin(0.1));
    await tick();
    ctrl.abort(new Error('SIGINT'));
    await expect(large.result).rejects.toBeInstanceOf(AbortedUnsentError);
    (await small.result)(); // fits beside a, no longer behind the large one
    a();
    expect(b.stopped).toBeNull();
    await expect(b.begin(0.1, { signal: ctrl.signal })).rejects.toBeInstanceOf(AbortedUnsentError);
  });

  it('a call answered without usage keeps its estimate for good: the waiting call is decided against it', async () => {
    const b = new Budget(1);
    const a = await b.begin(0.7);
    const next = watch(b.begin(0.4));
    await tick();
    b.meter.paidUnknown(); // as the metering layer counts it (src/run/meter.ts)
    a(true);
    await expect(next.result).rejects.toBeInstanceOf(BudgetStop);
    // Nothing counted, so no figure: never "$0.0000 spent" (src/run/meter.ts costStanding).
    expect(b.stopped?.message).toBe(
      'stopped at the --max-cost budget of $1.00: an unknown amount spent by this command when it stopped (up to $0.7000 for calls answered without usage), and the next call (up to $0.4000) could pass it',
    );
  });
});
