// Cell text shared by every report format: one decimal for scores, "—" for nothing (never NaN).
import type { Cell, ReportColumn } from './model.js';

export function fmt(v: number | null | undefined, digits = 1): string {
  return v === null || v === undefined || !Number.isFinite(v) ? '—' : v.toFixed(digits);
}

export function cellText(c: Cell | undefined, col?: ReportColumn): string {
  if (c === null || c === undefined) return '—';
  if (typeof c === 'number') return col?.numeric ? fmt(c) : Number.isFinite(c) ? String(c) : '—';
  return c;
}
