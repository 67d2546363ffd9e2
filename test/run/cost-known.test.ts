// The one rule of whether a run's cost figures are money (src/run/meter.ts costKnown), and of one
// episode's (episodeCostKnown): a $0 metered without a price is never shown as a cost, nor summed
// into one beside priced episodes.
import { describe, expect, it } from 'vitest';
import { costKnown, episodeCostKnown, type PricedRun } from '../../src/run/meter.js';
import { noSpend } from '../../src/run/meter.js';

const unpricedModel = { backend: 'openai-compatible', pricesUsdPer1M: { source: 'none' } };
const pricedModel = { backend: 'openai-compatible', pricesUsdPer1M: { source: 'flags', prompt: 1, completion: 2 } };
const paid = { ...noSpend(), calls: 3, total_tokens: 300, cost_usd: 0.01 };

describe('costKnown', () => {
  it('a record metered without a price makes the run cost unknown, whatever the other sessions had', () => {
    const run: PricedRun = {
      modelDescription: unpricedModel,
      sessions: [
        { price: 'unknown', spent: paid },
        { price: 'known', spent: paid },
      ],
    };
    expect(costKnown(run, [{ cost_unpriced: true }, {}], 0.02)).toBe(false);
  });

  it('an unpriced session that paid for calls makes it unknown even when its records were re-run with prices', () => {
    const run: PricedRun = {
      modelDescription: unpricedModel,
      sessions: [
        { price: 'unknown', spent: paid },
        { price: 'known', spent: paid },
      ],
    };
    expect(costKnown(run, [{}, {}], 0.02)).toBe(false);
  });

  it('a run whose sessions never had a price is unknown even with no call made (never a false $0)', () => {
    expect(costKnown({ modelDescription: unpricedModel, sessions: [{ price: 'unknown', spent: noSpend() }] }, [], 0)).toBe(false);
  });

  it('an unpriced session that called nothing (stopped at once) leaves a priced run known', () => {
    const run: PricedRun = {
      modelDescription: unpricedModel,
      sessions: [
        { price: 'unknown', spent: noSpend() },
        { price: 'known', spent: paid },
      ],
    };
    expect(costKnown(run, [{}, {}], 0.02)).toBe(true);
  });

  it('every session priced: known, even at $0 (a free server given price 0)', () => {
    expect(costKnown({ modelDescription: pricedModel, sessions: [{ price: 'known', spent: paid }] }, [{}], 0)).toBe(true);
    expect(costKnown({ modelDescription: { backend: 'llama.cpp' }, sessions: [{ price: 'free', spent: paid }] }, [{}], 0)).toBe(true);
  });

  it('runs from before sessions recorded their price: judged by the manifest model, or by money recorded', () => {
    expect(costKnown({ modelDescription: unpricedModel, sessions: [{ spent: paid }] }, [{}], 0)).toBe(false);
    expect(costKnown({ modelDescription: unpricedModel, sessions: [{ spent: paid }] }, [{}], 0.5)).toBe(true);
    expect(costKnown({ modelDescription: pricedModel, sessions: [{ spent: paid }] }, [{}], 0)).toBe(true);
    // a combination or a merge without sessions
    expect(costKnown({ modelDescription: unpricedModel }, [{}], 0)).toBe(false);
    expect(costKnown({ modelDescription: pricedModel }, [{ cost_unpriced: true }], 1)).toBe(false);
  });
});

describe('episodeCostKnown', () => {
  const current: PricedRun = {
    sessions: [
      { price: 'unknown', spent: paid },
      { price: 'known', spent: paid },
    ],
  };
  it("each episode by its own record when every session recorded its price (the run's total is unknown)", () => {
    expect(episodeCostKnown({ cost_unpriced: true }, current, false)).toBe(false);
    expect(episodeCostKnown({}, current, false)).toBe(true);
  });
  it("an older run's episodes follow the run", () => {
    const older: PricedRun = { sessions: [{ spent: paid }] };
    expect(episodeCostKnown({}, older, false)).toBe(false);
    expect(episodeCostKnown({}, older, true)).toBe(true);
  });
});
