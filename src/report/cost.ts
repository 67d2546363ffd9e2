// Money in reports: a run's cost is known only when its model had a price (OpenAI's list price, or
// --price-prompt/--price-completion) or runs in-process (llama.cpp: no bill). A server model with no
// known price was metered at 0, which is not a cost of $0: reports show it as unknown (the rule:
// src/run/meter.ts costKnown).
import { usdFigure } from '../util/money.js';

export const UNKNOWN_COST = 'unknown';

/** Dollars with four decimals, or "unknown". */
export function costText(usd: number, known: boolean): string {
  return known ? usdFigure(usd) : UNKNOWN_COST;
}
