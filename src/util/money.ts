// Money as every output shows it, in one place: amounts the progress line, the budget's messages and
// the dry run show ("$0.1229", "$1,234.56": README "Progress"); the bill in the closing lines, to a
// hundredth of a cent ("$1.7503": it is compared with the provider's); the reports' cost columns (a
// plain number of dollars, four decimals); summary.csv's six decimals (dollars). An amount that is not
// zero never shows as zero: one under half a hundredth of a cent, which four decimals would round to
// 0.0000, shows two significant digits ("$0.000017"), so a cheap run does not look like a free one.

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
  if (significant(x.toFixed(decimals)) > 2) decimals--;
  return x.toFixed(decimals);
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
 * Dollars to six decimals, as summary.csv has always shown them. The same calls summed in another order
 * (by episode, by session) differ in the last bits: snapped to nine decimals first, a sum that is exactly
 * half a millionth rounds the same way however it was added up.
 */
export function dollars(x: number): number {
  return Math.round(Number((x * 1e6).toFixed(3))) / 1e6;
}

/** "$0.1229", "$1,234.56": four decimals below a dollar, two above, with thousands separators ("$0.000017" under $0.00005). */
export function usd(raw: number): string {
  const x = snap(raw);
  const digits = x < 1 ? 4 : 2;
  return `$${nonZero(x, x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }))}`;
}

/** The bill as the closing lines state it: "$1.7503" (four decimals, no separators; "$0.000017" under $0.00005). */
export function usdExact(x: number): string {
  return `$${usdFigure(x)}`;
}

/** Dollars as a report's cost column holds them: "0.1229" (four decimals, no sign, no separators; "0.000017" under 0.00005). */
export function usdFigure(raw: number): string {
  const x = snap(raw);
  return nonZero(x, x.toFixed(4));
}
