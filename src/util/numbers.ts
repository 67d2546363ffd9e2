// Scores as every view shows them (progress line, summary, md, csv, tex, html): computed once from a
// sum and a count, and rounded once, to one decimal, half away from zero on the exact value (rounded
// twice, 15/19 once showed 78.9 in the progress line and 79.0 in the report).
// Nothing here returns NaN: an empty set of episodes has no score (null, shown as "—").

/** Shown wherever a score does not exist (no scored episodes). */
export const NO_VALUE = '—';

/** A double's exact value as num / 2^shift (every finite double is a dyadic rational). */
function exactDyadic(x: number): { num: bigint; shift: bigint } {
  if (!Number.isFinite(x)) throw new RangeError(`not a finite number: ${x}`);
  if (Number.isInteger(x)) return { num: BigInt(x), shift: 0n };
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const sign = hi >>> 31 ? -1n : 1n;
  const exp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e: number;
  if (exp === 0)
    e = -1074; // subnormal
  else {
    mant |= 1n << 52n;
    e = exp - 1075;
  }
  // Not an integer, so e < 0 here.
  return { num: sign * mant, shift: BigInt(-e) };
}

/** Exact sum of doubles as num / 2^shift: the order of the values never changes the result. */
function exactSum(values: readonly number[]): { num: bigint; shift: bigint } {
  let num = 0n;
  let shift = 0n;
  for (const v of values) {
    const d = exactDyadic(v);
    if (d.shift > shift) {
      num <<= d.shift - shift;
      shift = d.shift;
    }
    num += d.num << (shift - d.shift);
  }
  return { num, shift };
}

function dyadicToNumber(d: { num: bigint; shift: bigint }): number {
  const k = Number(d.shift);
  return k > 1000 ? Number(d.num) / 2 ** 1000 / 2 ** (k - 1000) : Number(d.num) / 2 ** k;
}

/** round(num / den) half away from zero, den > 0. */
function divRoundHalfAway(num: bigint, den: bigint): bigint {
  const neg = num < 0n;
  const a = neg ? -num : num;
  let q = a / den;
  if (2n * (a - q * den) >= den) q += 1n;
  return neg ? -q : q;
}

/** num / (den · 2^shift) × 100 to one decimal, rounded once on the exact rational. */
function percentOfExact(num: bigint, shift: bigint, n: number): number {
  const tenths = divRoundHalfAway(num * 1000n, BigInt(n) << shift);
  return Number(tenths) / 10;
}

function checkCount(n: number): void {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`count must be a non-negative integer, got ${n}`);
}

/**
 * 100 · sum / n with one decimal, rounded half away from zero on the exact rational (15/19 → 78.9,
 * 1/8 → 12.5, 2/3 → 66.7, -1/8 → -12.5). `sum` is taken at its exact binary value (an integer count of
 * correct episodes is exact). n = 0 → null.
 */
export function percent(sum: number, n: number): number | null {
  checkCount(n);
  if (n === 0) return null;
  const d = exactDyadic(sum);
  return percentOfExact(d.num, d.shift, n);
}

/** The mean of per-episode values in [0, 1] as a percentage with one decimal (exact sum, one rounding). */
export function meanPercent(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = exactSum(values);
  return percentOfExact(s.num, s.shift, values.length);
}

/**
 * 100 · (Σa − Σb) / n with one decimal, exact and rounded once (a paired difference in points, on the
 * same n items). Empty → null.
 */
export function differencePercent(a: readonly number[], b: readonly number[]): number | null {
  if (a.length !== b.length) throw new RangeError(`paired values differ in length: ${a.length} vs ${b.length}`);
  if (a.length === 0) return null;
  const s = exactSum([...a, ...b.map((x) => -x)]);
  return percentOfExact(s.num, s.shift, a.length);
}

/** x rounded to `decimals` decimals, half away from zero on x's exact binary value (1.25 → 1.3, 2.675 → 2.7 at 1). */
export function roundHalfAway(x: number, decimals = 1): number {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 15) throw new RangeError(`decimals must be 0..15, got ${decimals}`);
  const d = exactDyadic(x);
  const scale = 10n ** BigInt(decimals);
  const q = divRoundHalfAway(d.num * scale, 1n << d.shift);
  return Number(q) / 10 ** decimals;
}

/** A score for display: one decimal ("78.9", "30.0"); null (no episodes) → "—". Never "NaN". */
export function formatScore(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return NO_VALUE;
  // v is already rounded to one decimal, so toFixed only pads ("30" → "30.0"); the nearest double to
  // a one-decimal number is within 0.05 of it, so toFixed(1) never moves it.
  return v.toFixed(1);
}

/** A signed difference in points ("+3.2", "-0.4", "0.0"); null → "—". */
export function formatDelta(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return NO_VALUE;
  const s = v.toFixed(1);
  return v > 0 ? `+${s}` : s === '-0.0' ? '0.0' : s;
}

/** A 95% interval "[71.2, 84.0]"; either end missing → "—". */
export function formatInterval(lo: number | null | undefined, hi: number | null | undefined): string {
  if (lo === null || lo === undefined || hi === null || hi === undefined || !Number.isFinite(lo) || !Number.isFinite(hi)) return NO_VALUE;
  return `[${formatScore(lo)}, ${formatScore(hi)}]`;
}

/** A p-value: "<0.001", otherwise three decimals ("0.042", "1.000"); null → "—". */
export function formatP(p: number | null | undefined): string {
  if (p === null || p === undefined || !Number.isFinite(p)) return NO_VALUE;
  if (p < 0.001) return '<0.001';
  return roundHalfAway(p, 3).toFixed(3);
}

/** One metric over a set of episodes: the count behind the score, and the score. */
export interface MetricScore {
  /** Episodes scored (records without an infrastructure error). */
  n: number;
  /** Episodes left out because of an infrastructure error. */
  errors: number;
  /** Sum of the metric over the scored episodes (an integer for 0/1 metrics). */
  sum: number;
  /** percent(sum, n): one decimal, null when n = 0. */
  value: number | null;
}

/** The part of an episode record a score needs (EpisodeRecord has it). */
export interface ScoredRecord {
  metrics: Record<string, number>;
  error: unknown;
}

/** Whether an episode was scored: an error episode (an outage) never is, whatever its record's metrics say. */
export function isScored(r: Pick<ScoredRecord, 'error'>): boolean {
  return !r.error;
}

/**
 * A metric's score over records: error records are left out (they are outages, never wrong answers).
 * A scored record without the metric is a bug upstream (the runner scores every declared metric): throws.
 */
export function metricScore(records: readonly ScoredRecord[], metric: string): MetricScore {
  const values: number[] = [];
  let errors = 0;
  for (const r of records) {
    if (!isScored(r)) {
      errors++;
      continue;
    }
    const v = r.metrics[metric];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new RangeError(`record has no finite metric "${metric}"`);
    values.push(v);
  }
  const s = exactSum(values);
  return {
    n: values.length,
    errors,
    sum: dyadicToNumber(s),
    value: values.length ? percentOfExact(s.num, s.shift, values.length) : null,
  };
}

/** 81638 → "81,638", as Intl.NumberFormat('en-US') writes a rounded number. Digits are grouped by hand:
 * the first Intl formatter a process builds loads ICU's number data (~20 ms measured here), in front of
 * a run's first request when the progress line loads it; Intl serves only what grouping cannot. */
export function thousands(n: number): string {
  const r = Math.round(n);
  if (!Number.isSafeInteger(r) || Object.is(r, -0)) return r.toLocaleString('en-US');
  const digits = String(Math.abs(r));
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += ',' + digits.slice(i, i + 3);
  return r < 0 ? '-' + out : out;
}

/** "1 run", "2,002 runs": a count with its word, in the plural unless it is one. */
export function countOf(n: number, word: string): string {
  return `${thousands(n)} ${word}${n === 1 ? '' : 's'}`;
}

/** A file's size as messages give it: "812 B", "3.4 kB", "119.5 MB" (powers of 1,024). */
export function bytesText(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} kB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
