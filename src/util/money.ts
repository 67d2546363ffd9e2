// Money as every output shows it, in one place: amounts the progress line, the budget's messages and
// the dry run show ("$0.1229", "$1,234.56": README "Progress"); the bill in the closing lines, to a
// hundredth of a cent ("$1.7503": it is compared with the provider's); the reports' cost columns (a
// plain number of dollars, four decimals); summary.csv's six decimals (dollars). An amount that is not
// zero never shows as zero: one under half a hundredth of a cent, which four decimals would round to
// 0.0000, shows two significant digits ("$0.000017"), so a cheap run does not look like a free one.
// Every figure is rounded the one way, half away from zero on the decimal the amount is (fixedHalfAway):
// 3,655 tokens at $10 per million are $0.03655, shown $0.0366 everywhere, though the nearest double is a
// hair under it (toFixed would say 0.0365, Intl 0.0366: the progress line and the bill once disagreed).
// The token counts beside these figures are marked by the same standing (tokensText).
import { thousands } from './numbers.js';

/** Below this many decimals a tiny amount is written in exponent notation ("1.2e-25"): no money is that small. */
const MAX_DECIMALS = 20;

/**
 * `x` with two significant digits when `fixed` (its four-decimal form) reads as zero but `x` is not:
 * "0.000017", "0.0000050"; else `fixed` unchanged.
 */
function nonZero(x: number, fixed: string): string {
  if (x === 0 || !Number.isFinite(x) || !/^-?0\.0000$/.test(fixed)) return fixed;
  let decimals = Math.max(5, 1 - Math.floor(Math.log10(Math.abs(x))));
  if (decimals > MAX_DECIMALS) return x.toPrecision(2);
  // rounding may carry into a third digit (0.00000999 to 0.0000100): one decimal less then
  if (significant(fixedHalfAway(x, decimals)) > 2) decimals--;
  return fixedHalfAway(x, decimals);
}

/**
 * `x` to `decimals` places, rounded half away from zero on the decimal `x` stands for (the shortest
 * one that reads back as it, as String(x) prints it), not on its binary value: 0.03655 gives "0.0366"
 * where toFixed gives "0.0365".
 */
export function fixedHalfAway(x: number, decimals: number): string {
  if (!Number.isFinite(x)) return String(x);
  // |x| = digits × 10^scale exactly, in the shortest decimal digits that name it
  const [mantissa, exponent] = Math.abs(x).toExponential().split('e');
  const digits = BigInt(mantissa.replace('.', ''));
  const scale = Number(exponent) - (mantissa.replace('.', '').length - 1);
  const shift = scale + decimals;
  let n: bigint;
  if (shift >= 0) n = digits * 10n ** BigInt(shift);
  else {
    const unit = 10n ** BigInt(-shift);
    n = (digits + unit / 2n) / unit;
  }
  const text = n.toString().padStart(decimals + 1, '0');
  const fixed = decimals > 0 ? `${text.slice(0, -decimals)}.${text.slice(-decimals)}` : text;
  return x < 0 && n !== 0n ? `-${fixed}` : fixed;
}

/** "1234567.50" as "1,234,567.50". */
function withThousands(fixed: string): string {
  const [whole, fraction] = fixed.split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** The significant digits of a fixed-point figure: "0.0000100" has 3. */
function significant(fixed: string): number {
  return fixed.replace(/^-?[0.]*/, '').replace('.', '').length;
}

/**
 * The same calls summed in another order (by episode for a run's total, by session for its spend) differ
 * in the last bits; snapped to twelve decimals they are one number, so they print alike.
 */
const snap = (x: number): number => (Number.isFinite(x) && Math.abs(x) >= 1e-9 ? Number(x.toFixed(12)) : x);

/**
 * Dollars to six decimals, as summary.csv has always shown them, rounded once like every figure here
 * (snapped first: the same calls summed in another order differ in the last bits).
 */
export function dollars(x: number): number {
  return Number(fixedHalfAway(snap(x), 6));
}

/** "$0.1229", "$1,234.56": four decimals below a dollar, two above, with thousands separators ("$0.000017" under $0.00005). */
export function usd(raw: number): string {
  const x = snap(raw);
  // Decided on the amount as rounded: $0.99995 is "$1.00", as $1 is, not "$1.0000".
  const digits = Number(fixedHalfAway(x, 4)) < 1 ? 4 : 2;
  return `$${nonZero(x, withThousands(fixedHalfAway(x, digits)))}`;
}

/** The bill as the closing lines state it: "$1.7503" (four decimals, no separators; "$0.000017" under $0.00005). */
export function usdExact(x: number): string {
  return `$${usdFigure(x)}`;
}

/** Dollars as a report's cost column holds them: "0.1229" (four decimals, no sign, no separators; "0.000017" under 0.00005). */
export function usdFigure(raw: number): string {
  const x = snap(raw);
  return nonZero(x, fixedHalfAway(x, 4));
}

/**
 * What a cost figure is of the bill, and a token figure of the calls it stands for, decided by one rule
 * (src/run/meter.ts tokenStanding, costStanding): all of it ('whole'); a lower bound ('at-least': some
 * calls it stands for were answered without usage, or cut off in flight, and only the others are
 * counted); or 'unknown' (no price is known, or no call it stands for was counted: its 0 is no figure).
 */
export type CostStanding = 'whole' | 'at-least' | 'unknown';

/** The mark of a lower bound in every output (README "Reliability"); LaTeX writes it $\ge$ (src/report/tex/escape.ts). */
export const AT_LEAST = '≥';

/**
 * A figure as its standing says, the one way every output marks it: `text` when whole, after the mark
 * when a lower bound (`gap` between them: the closing lines' "≥ $1.7503", a report cell's "≥0.1229"),
 * null when unknown (the caller says so in its own words).
 */
export function standingText(text: string, standing: CostStanding, gap: '' | ' '): string | null {
  if (standing === 'unknown') return null;
  return standing === 'at-least' ? `${AT_LEAST}${gap}${text}` : text;
}

/** The bill as the closing lines state it: "$1.7503", "≥ $1.7503", or null when unknown (the caller says why). */
export function billText(x: number, standing: CostStanding): string | null {
  return standingText(usdExact(x), standing, ' ');
}

/** An amount as the progress line shows it: "$0.1229", "≥ $0.1229", or null when unknown. */
export function usdText(x: number, standing: CostStanding): string | null {
  return standingText(usd(x), standing, ' ');
}

/** A report's cost cell: "0.1229", "≥0.1229" (a lower bound), or "unknown". */
export function figureText(x: number, standing: CostStanding): string {
  return standingText(usdFigure(x), standing, '') ?? 'unknown';
}

/** A count of tokens as the closing lines and the progress line state it: "1,234", "≥ 1,234", or null when unknown. */
export function tokensText(n: number, standing: CostStanding): string | null {
  return standingText(thousands(n), standing, ' ');
}

/** A report's token cell: "1234", "≥1234" (a lower bound), or "unknown". */
export function tokensFigureText(n: number, standing: CostStanding): string {
  return standingText(String(n), standing, '') ?? 'unknown';
}

/**
 * A cost cell of a sheet (summary.csv): dollars to six decimals, a lower bound as the number counted
 * (the sheet's count of the calls it leaves out says it is one), blank when unknown.
 */
export function dollarsCell(x: number, standing: CostStanding): number | '' {
  return standing === 'unknown' ? '' : dollars(x);
}
