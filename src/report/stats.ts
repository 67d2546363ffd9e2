// Uncertainty for the report (README "Reports"): a 95% bootstrap interval for every score, and a paired
// comparison of two methods on the same items. Seeded, so a report is the same every time it is built.
//
// The procedure, written out so that another implementation can repeat it number for number
// (scripts/gen_report_stats_fixtures.py does, in CPython):
//   rng = mulberry32(seed); for each of B resamples: s = 0; n times: s += values[floor(rng() · n)];
//   sort the B sums ascending; the interval ends are the sums of rank ceil(B · (1 − level)/2) and
//   ceil(B · (1 + level)/2) (1-based; the "inverted CDF" percentile: an attainable resample, no
//   interpolation), shown as percent(sum, n) — one exact rounding, like every other score.
import { createHash } from 'node:crypto';
import { differencePercent, meanPercent, percent } from '../util/numbers.js';
import { mulberry32 } from '../util/mulberry32.js';

export const BOOTSTRAP_RESAMPLES = 10_000;
export const CONFIDENCE_LEVEL = 0.95;
/** Default seed: any fixed number does; 233 is the paper's sampling seed (docs/protocol.md §2), easy to recognise. */
export const DEFAULT_SEED = 233;

export interface BootstrapOptions {
  seed?: number;
  resamples?: number;
  level?: number;
}

/**
 * Results of the seeded bootstraps of one report build: the same cell (run or comparable set, metric,
 * seed, values) is asked for by several tables and by the runs table, and a bootstrap is a pure
 * function of those, so each is resampled once. Made by buildReport and active only while it runs
 * (withStatsCache), never shared between reports.
 */
export class StatsCache {
  readonly means = new Map<string, MeanInterval>();
  readonly pairs = new Map<string, PairedComparison>();
  hits = 0;
  misses = 0;
}

let activeCache: StatsCache | undefined;

/** Runs fn with `cache` answering repeated bootstraps (restores the previous one after). */
export function withStatsCache<T>(cache: StatsCache, fn: () => T): T {
  const prev = activeCache;
  activeCache = cache;
  try {
    return fn();
  } finally {
    activeCache = prev;
  }
}

/**
 * Key of a bootstrap's inputs: seed, B, level and a SHA-256 of the value lists (each its length, then
 * its values as float64 bytes). A report holds one key per distinct cell, so the key is a fixed 44
 * characters, not the values in full (a cell of a million-episode sweep holds thousands of them);
 * two different inputs sharing a key would take a 2^-128 chance.
 */
function cacheKey(o: Required<BootstrapOptions>, ...lists: (readonly number[])[]): string {
  const h = createHash('sha256');
  for (const l of lists) {
    h.update(Float64Array.of(l.length));
    h.update(Float64Array.from(l));
  }
  return `${o.seed}|${o.resamples}|${o.level}|${h.digest('base64')}`;
}

function cached<T>(map: Map<string, T> | undefined, key: () => string, compute: () => T): T {
  if (!map || !activeCache) return compute();
  const k = key();
  const hit = map.get(k);
  if (hit !== undefined) {
    activeCache.hits++;
    return hit;
  }
  activeCache.misses++;
  const v = compute();
  map.set(k, v);
  return v;
}

/** A 32-bit seed from text (FNV-1a), for a per-cell seed such as `${runId}:${metric}`. */
export function seedFromText(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function resolve(opts: BootstrapOptions): Required<BootstrapOptions> {
  const seed = opts.seed ?? DEFAULT_SEED;
  const resamples = opts.resamples ?? BOOTSTRAP_RESAMPLES;
  const level = opts.level ?? CONFIDENCE_LEVEL;
  if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`resamples must be a positive integer, got ${resamples}`);
  if (!(level > 0 && level < 1)) throw new RangeError(`level must be in (0, 1), got ${level}`);
  return { seed, resamples, level };
}

/** 1-based ranks of the interval ends among B sorted resamples (inverted-CDF percentiles). */
export function percentileRanks(resamples: number, level: number): { low: number; high: number } {
  // The 1e-9 keeps B · 0.025 = 250.00000000000003 (0.025 is not exact in binary) at rank 250.
  const tail = (1 - level) / 2;
  const low = Math.min(resamples, Math.max(1, Math.ceil(resamples * tail - 1e-9)));
  const high = Math.min(resamples, Math.max(1, Math.ceil(resamples * (1 - tail) - 1e-9)));
  return { low, high };
}

/** B resampled sums of `values` (indices drawn with replacement), sorted ascending. */
export function bootstrapSums(values: readonly number[], seed: number, resamples: number): Float64Array {
  const n = values.length;
  // mulberry32 (src/util/mulberry32.ts) written out in the loop, draw for draw the same numbers: the
  // resampling is most of a report's time, and a closure call per draw doubles it.
  const v = Float64Array.from(values);
  let a = seed >>> 0;
  const sums = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let s = 0;
    for (let j = 0; j < n; j++) {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      s += v[Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n)];
    }
    sums[b] = s;
  }
  return sums.sort();
}

/** A score with its bootstrap interval, all in percent with one decimal. */
export interface MeanInterval {
  n: number;
  /** percent(Σ values, n); null when n = 0. */
  estimate: number | null;
  lo: number | null;
  hi: number | null;
  level: number;
  resamples: number;
  seed: number;
}

/** The mean of per-item values (each in [0, 1]) with its percentile bootstrap interval. */
export function bootstrapMeanCI(values: readonly number[], opts: BootstrapOptions = {}): MeanInterval {
  const o = resolve(opts);
  return cached(
    activeCache?.means,
    () => cacheKey(o, values),
    () => meanCI(values, o),
  );
}

function meanCI(values: readonly number[], { seed, resamples, level }: Required<BootstrapOptions>): MeanInterval {
  const n = values.length;
  for (const v of values) if (!Number.isFinite(v)) throw new RangeError(`bootstrap: a value is not finite (${v})`);
  if (n === 0) return { n, estimate: null, lo: null, hi: null, level, resamples, seed };
  const sums = bootstrapSums(values, seed, resamples);
  const { low, high } = percentileRanks(resamples, level);
  return { n, estimate: meanPercent(values), lo: percent(sums[low - 1], n), hi: percent(sums[high - 1], n), level, resamples, seed };
}

/**
 * Exact McNemar test (two-sided): under H0 the discordant pairs split as Binomial(b + c, 1/2);
 * p = min(1, 2 · P(X ≤ min(b, c))). No discordant pair → 1.
 */
export function mcnemarExactP(b: number, c: number): number {
  if (!Number.isInteger(b) || !Number.isInteger(c) || b < 0 || c < 0)
    throw new RangeError(`McNemar counts must be non-negative integers, got ${b}, ${c}`);
  const m = b + c;
  if (m === 0) return 1;
  const k = Math.min(b, c);
  // Exact in integers: Σ_{i ≤ k} C(m, i), then one division carried to 64 fractional bits.
  let term = 1n;
  let tail = 1n;
  for (let i = 1; i <= k; i++) {
    term = (term * BigInt(m - i + 1)) / BigInt(i);
    tail += term;
  }
  const scaled = ((2n * tail) << 64n) / (1n << BigInt(m));
  return Math.min(1, Number(scaled) / 2 ** 64);
}

/** Two methods on the same items: a − b in points, its bootstrap interval, and p-values. */
export interface PairedComparison {
  n: number;
  /** Each method's score on these n items (percent, one decimal). */
  a: number | null;
  b: number | null;
  /** 100 · mean(a − b), one decimal. */
  diff: number | null;
  lo: number | null;
  hi: number | null;
  /**
   * Paired-bootstrap p-value (two-sided, by inverting the percentile interval):
   * min(1, 2 · min(#{d* ≤ 0}, #{d* ≥ 0}) / B).
   */
  p: number | null;
  /** For 0/1 metrics: the discordant counts (a right, b wrong = onlyA; the reverse = onlyB) and the exact McNemar p. */
  mcnemar: { onlyA: number; onlyB: number; p: number } | null;
  level: number;
  resamples: number;
  seed: number;
}

/** Paired bootstrap of the mean difference (the same resampled items for both) and, for 0/1 values, exact McNemar. */
export function pairedComparison(a: readonly number[], b: readonly number[], opts: BootstrapOptions = {}): PairedComparison {
  const o = resolve(opts);
  return cached(
    activeCache?.pairs,
    () => cacheKey(o, a, b),
    () => paired(a, b, o),
  );
}

function paired(a: readonly number[], b: readonly number[], { seed, resamples, level }: Required<BootstrapOptions>): PairedComparison {
  if (a.length !== b.length) throw new RangeError(`paired comparison needs the same items: ${a.length} vs ${b.length} values`);
  const n = a.length;
  const none = { n, a: null, b: null, diff: null, lo: null, hi: null, p: null, mcnemar: null, level, resamples, seed };
  if (n === 0) return none;
  const d = a.map((x, i) => x - b[i]);
  for (const x of d) if (!Number.isFinite(x)) throw new RangeError('paired comparison: a value is not finite');
  const sums = bootstrapSums(d, seed, resamples);
  const { low, high } = percentileRanks(resamples, level);
  let atMost = 0;
  let atLeast = 0;
  for (const s of sums) {
    if (s <= 0) atMost++;
    if (s >= 0) atLeast++;
  }
  const binary = [...a, ...b].every((x) => x === 0 || x === 1);
  let mcnemar: PairedComparison['mcnemar'] = null;
  if (binary) {
    let onlyA = 0;
    let onlyB = 0;
    a.forEach((x, i) => {
      if (x === 1 && b[i] === 0) onlyA++;
      else if (x === 0 && b[i] === 1) onlyB++;
    });
    mcnemar = { onlyA, onlyB, p: mcnemarExactP(onlyA, onlyB) };
  }
  return {
    n,
    a: meanPercent(a),
    b: meanPercent(b),
    diff: differencePercent(a, b),
    lo: percent(sums[low - 1], n),
    hi: percent(sums[high - 1], n),
    p: Math.min(1, (2 * Math.min(atMost, atLeast)) / resamples),
    mcnemar,
    level,
    resamples,
    seed,
  };
}

/** The part of an episode record a pairing needs (EpisodeRecord has it). */
export interface PairableRecord {
  idx: number;
  metrics: Record<string, number>;
  error: unknown;
}

export interface PairedValues {
  /** Item indices scored in both (no error in either), in the first set's order. */
  indices: number[];
  a: number[];
  b: number[];
  /** Items of the first / second set left out (error there, or missing from the other). */
  droppedA: number;
  droppedB: number;
}

/** The items scored in both sets (the intersection tables compare on, and say so: README "Reports"). */
export function pairByItem(a: readonly PairableRecord[], b: readonly PairableRecord[], metric: string): PairedValues {
  const ok = (r: PairableRecord) => !r.error && typeof r.metrics[metric] === 'number' && Number.isFinite(r.metrics[metric]);
  const bByIdx = new Map<number, number>();
  for (const r of b) if (ok(r)) bByIdx.set(r.idx, r.metrics[metric]);
  const out: PairedValues = { indices: [], a: [], b: [], droppedA: 0, droppedB: 0 };
  const used = new Set<number>();
  for (const r of a) {
    const other = bByIdx.get(r.idx);
    if (!ok(r) || other === undefined || used.has(r.idx)) {
      out.droppedA++;
      continue;
    }
    used.add(r.idx);
    out.indices.push(r.idx);
    out.a.push(r.metrics[metric]);
    out.b.push(other);
  }
  out.droppedB = b.length - out.indices.length;
  return out;
}

/**
 * A percentile bootstrap interval of any statistic of n items (e.g. the best of several prompt sets'
 * success rates over the same games): each resample draws n item positions with replacement (the same
 * mulberry32 stream as bootstrapSums) and the statistic is computed on them. Resamples where it is
 * null are dropped; none left → null ends.
 */
export function bootstrapStatisticCI(
  n: number,
  statistic: (positions: Int32Array) => number | null,
  opts: BootstrapOptions = {},
): { lo: number | null; hi: number | null } {
  const { seed, resamples, level } = resolve(opts);
  if (!Number.isInteger(n) || n <= 0) return { lo: null, hi: null };
  const rng = mulberry32(seed);
  const values: number[] = [];
  const pos = new Int32Array(n);
  for (let b = 0; b < resamples; b++) {
    for (let j = 0; j < n; j++) pos[j] = Math.floor(rng() * n);
    const v = statistic(pos);
    if (v !== null && Number.isFinite(v)) values.push(v);
  }
  if (values.length === 0) return { lo: null, hi: null };
  values.sort((a, b) => a - b);
  const { low, high } = percentileRanks(values.length, level);
  return { lo: values[low - 1], hi: values[high - 1] };
}
