// Money in reports: a run's cost is known only when every call of it had a price (OpenAI's list price,
// or --price-prompt/--price-completion) or ran in-process (llama.cpp: no bill). A call to a server model
// with no known price was metered at 0, which is not a cost of $0: reports show the run's cost as
// unknown, also when only some of its episodes were (the rule: src/run/meter.ts costKnown).
import { usdFigure } from '../util/money.js';

export const UNKNOWN_COST = 'unknown';

/** Dollars with four decimals, or "unknown". */
export function costText(usd: number, known: boolean): string {
  return known ? usdFigure(usd) : UNKNOWN_COST;
}
