// Money in reports: a run's cost is known only when every call of it had a price (OpenAI's list price,
// or --price-prompt/--price-completion) or ran in-process (llama.cpp: no bill). A call to a server model
// with no known price was metered at 0, which is not a cost of $0: reports show the run's cost as
// unknown, also when only some of its episodes were (the rule: src/run/meter.ts costKnown). A cost that
// leaves out calls answered without usage is a lower bound, "≥0.0123", or unknown when it counts none of
// its calls (src/run/meter.ts costStanding); the CSV sheet keeps it a number ("0.0123"), its count of
// the calls left out saying it is a bound, so the column reads as numbers.
import { AT_LEAST, figureText, type CostStanding } from '../util/money.js';

/** Dollars with four decimals, "≥" before a lower bound, or "unknown". */
export function costText(usd: number, standing: CostStanding): string {
  return figureText(usd, standing);
}

/** A cost cell as the CSV sheet holds it: a lower bound's figure without its mark; "unknown" as printed. */
export function sheetCostText(text: string): string {
  return text.startsWith(AT_LEAST) ? text.slice(AT_LEAST.length) : text;
}
