// The budget layer of an episode's model chain (--max-cost, src/run/budget.ts): each call is admitted
// first, at its estimated cost, or refused with a BudgetStop (the runner then stops the run). What an
// admitted call cost is counted by the metering layer below it, into the meter the budget reads.
import { around, type ModelLayer } from '../../llm/layer.js';
import { BudgetStop, estimateCallUsd, type Budget, type UsdPrices } from '../budget.js';

export function budgetLayer(budget: Budget, prices: UsdPrices | null, onStop: (stop: BudgetStop) => void): ModelLayer {
  return (inner) =>
    around(inner, async (req, opts) => {
      let release: () => void;
      try {
        release = budget.begin(estimateCallUsd(req, prices));
      } catch (e) {
        if (e instanceof BudgetStop) onStop(e);
        throw e;
      }
      try {
        return await inner.complete(req, opts);
      } finally {
        release();
      }
    });
}
