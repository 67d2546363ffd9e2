// Money as every output shows it, in one place: amounts the progress line, the budget's messages and
// the dry run show ("$0.1229", "$1,234.56": README "Progress"); the bill in the closing lines, to a
// hundredth of a cent ("$1.7503": it is compared with the provider's); the reports' cost columns (a
// plain number of dollars, four decimals).

/** "$0.1229", "$1,234.56": four decimals below a dollar, two above, with thousands separators. */
export function usd(x: number): string {
  const digits = x < 1 ? 4 : 2;
  return `$${x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;
}

/** The bill as the closing lines state it: "$1.7503" (four decimals, no separators). */
export function usdExact(x: number): string {
  return `$${usdFigure(x)}`;
}

/** Dollars as a report's cost column holds them: "0.1229" (four decimals, no sign, no separators). */
export function usdFigure(x: number): string {
  return x.toFixed(4);
}
