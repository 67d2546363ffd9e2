// Money in reports: a run's cost is known only when every call of it had a price (OpenAI's list price,
// or --price-prompt/--price-completion) or ran in-process (llama.cpp: no bill). A call to a server model
// with no known price was metered at 0, which is not a cost of $0: reports show the run's cost as
// unknown, also when only some of its episodes were (the rule: src/run/meter.ts costKnown). A cost that
// leaves out calls answered without usage is a lower bound, "≥0.0123", or unknown when it counts none of
// its calls (src/run/meter.ts costStanding); the CSV sheet keeps it a number ("0.0123"), its count of
// the calls left out saying it is a bound, so the column reads as numbers. The tokens beside it follow the
// same rule (src/run/meter.ts tokenStanding): "≥1234" when calls are left out, "unknown" when none was
// counted (its 0 is no count).
import { figureText, tokensFigureText, usdFigure, type CostStanding } from '../util/money.js';
import type { FigureCell } from './model.js';

/** A report's cell of a cost in dollars, with what it is of the bill. */
export function costCell(usd: number, standing: CostStanding): FigureCell {
  return { figure: usd, standing, unit: 'usd' };
}

/** A report's cell of a count of tokens, with what it is of the calls it stands for. */
export function tokensCell(tokens: number, standing: CostStanding): FigureCell {
  return { figure: tokens, standing, unit: 'tokens' };
}

/** A figure as md, html and tex print it: dollars with four decimals or tokens, "≥" before a lower bound, or "unknown". */
export function figureCellText(c: FigureCell): string {
  return c.unit === 'usd' ? figureText(c.figure, c.standing) : tokensFigureText(c.figure, c.standing);
}

/** A figure as the CSV sheet holds it: the number counted (a lower bound too), or "unknown". */
export function figureSheetText(c: FigureCell): string {
  if (c.standing === 'unknown') return 'unknown';
  return c.unit === 'usd' ? usdFigure(c.figure) : String(c.figure);
}
