// --shard K/N: a deterministic 1/N of a split by position (p % N == K-1), so N machines cover the
// split exactly once and `merge` can check coverage.
import { UserError } from '../errors.js';

export interface Shard {
  k: number;
  n: number;
}

export function parseShard(text: string, flag = '--shard'): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) throw new UserError(`${flag}: expected K/N with 1 <= K <= N (e.g. 2/4), got "${text}"`);
  const k = Number(m[1]);
  const n = Number(m[2]);
  if (n < 1 || k < 1 || k > n) throw new UserError(`${flag}: expected K/N with 1 <= K <= N (e.g. 2/4), got "${text}"`);
  return { k, n };
}

export function formatShard(s: Shard): string {
  return `${s.k}/${s.n}`;
}

/** Positions (0-based, in split order) a shard covers out of `size`. */
export function shardPositions(size: number, s: Shard): number[] {
  const out: number[] = [];
  for (let p = s.k - 1; p < size; p += s.n) out.push(p);
  return out;
}

export function applyShard<T>(items: T[], s: Shard | null | undefined): T[] {
  if (!s) return items;
  return shardPositions(items.length, s).map((p) => items[p]);
}

/** --indices 12,40,77: dataset indices, in the order given, no duplicates. */
export function parseIndices(value: string | number | (string | number)[], flag = '--indices'): number[] {
  const parts = Array.isArray(value) ? value.map(String) : String(value).split(',');
  const out: number[] = [];
  const seen = new Set<number>();
  for (const raw of parts) {
    const t = raw.trim();
    if (t === '') continue;
    if (!/^\d+$/.test(t)) throw new UserError(`${flag}: expected a comma-separated list of dataset indices (e.g. 12,40,77), got "${raw}"`);
    const n = Number(t);
    if (seen.has(n)) throw new UserError(`${flag}: index ${n} is listed twice`);
    seen.add(n);
    out.push(n);
  }
  if (out.length === 0) throw new UserError(`${flag}: expected at least one dataset index (e.g. 12,40,77)`);
  return out;
}
