// Cell text shared by every report format: scores with one decimal, rounded once on the stored value
// (src/report/numbers.ts), "—" for nothing (never NaN).
import type { Cell, ReportColumn } from './model.js';
import { formatScore, NO_VALUE, roundHalfAway } from '../util/numbers.js';
import { figureCellText } from './cost.js';

/**
 * A score for display. Cells hold either an already-rounded score (percent()) or the exact quotient of
 * counts (one division); rounding to one decimal is idempotent on the first and the only rounding of
 * the second, so every format prints the same digits.
 */
export function fmt(v: number | null | undefined): string {
  return v === null || v === undefined || !Number.isFinite(v) ? NO_VALUE : formatScore(roundHalfAway(v, 1));
}

export function cellText(c: Cell | undefined, col?: ReportColumn): string {
  if (c === null || c === undefined) return NO_VALUE;
  if (typeof c === 'number') return col?.numeric ? fmt(c) : Number.isFinite(c) ? String(c) : NO_VALUE;
  if (typeof c === 'object') return figureCellText(c);
  return c;
}
