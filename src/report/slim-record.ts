// A slim record as the report holds it for the whole build (load.ts): every record it keeps has no
// text and no accounting (runlog/episode-source.ts reportSlim, withoutAccounting: input and traj '',
// calls, tokens, cost and latency 0, read from the run's summary instead), so those fields are held
// once, on a shared prototype, and each record holds only its own fields: about half the memory per
// episode. Reads (r.n_calls, r.usage, r.error...) see the same values, `error` null also on a record
// that had none; Object.keys and JSON see only the record's own fields (not the zeros, not
// `error: null`), as no reader of a slim record needs them.
import type { EpisodeRecord } from '../runlog/schema.js';

const ZERO_USAGE = Object.freeze({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });

/** The values every slim record has alike (never written: a record's own field shadows one). */
const SHARED: Readonly<Record<string, unknown>> = {
  input: '',
  traj: '',
  n_calls: 0,
  n_badcalls: 0,
  usage: ZERO_USAGE,
  cost: 0,
  latency_ms: 0,
  cached_calls: 0,
  // Most episodes have no error: each reader tests it for truth (r.error, r.error?.message), none
  // lists a slim record's keys for it.
  error: null,
};

/** The fields most records have, set first and in this order so that records share one layout. */
const COMMON = ['idx', 'item', 'gold', 'answer', 'metrics', 'reward', 'steps', 'error'] as const;

const COMMON_KEYS: ReadonlySet<string> = new Set(COMMON);

class SlimRecord {
  constructor(r: Record<string, unknown>, texts: SharedTexts) {
    const self = this as unknown as Record<string, unknown>;
    for (const k of COMMON) if (Object.prototype.hasOwnProperty.call(r, k) && !isShared(k, r[k])) self[k] = texts.share(r[k]);
  }
}
Object.assign(SlimRecord.prototype, SHARED);

function isShared(key: string, v: unknown): boolean {
  if (!Object.prototype.hasOwnProperty.call(SHARED, key)) return false;
  if (key !== 'usage') return v === SHARED[key];
  if (!v || typeof v !== 'object') return false;
  const u = v as Record<string, unknown>;
  return Object.keys(u).length === 3 && u.prompt_tokens === 0 && u.completion_tokens === 0 && u.total_tokens === 0;
}

/**
 * Texts held once however many records hold them: the same question, gold and answer recur in every
 * method's and model's run of a report, and JSON.parse gives each line its own copy (it shares only
 * strings of up to 10 characters). One table per report's loading pass (nothing outlives it in a
 * long-lived process); at most TEXTS_MAX, so a report of all-distinct texts costs no more than
 * without sharing once the table is full.
 */
const TEXTS_MAX = 1 << 20;
export class SharedTexts {
  private readonly texts = new Map<string, string>();

  share(v: unknown): unknown {
    if (typeof v !== 'string') return v;
    const hit = this.texts.get(v);
    if (hit !== undefined) return hit;
    if (this.texts.size < TEXTS_MAX) this.texts.set(v, v);
    return v;
  }
}

/** `copy`, or the first of `same` holding the same elements in the same order (one array kept, not two alike). */
export function sharedArray<T>(copy: T[], ...same: (readonly T[])[]): T[] {
  const hit = same.find((a) => a.length === copy.length && a.every((x, i) => x === copy[i]));
  return hit ? (hit as T[]) : copy;
}

/**
 * Planned item lists held once: the runs of a sweep plan the same items (every method and model on
 * one split), and each manifest.json parses to its own copy, 8 bytes an episode. At most PLANS_MAX
 * distinct plans are compared against (a list that matches none of them is kept as read).
 */
const PLANS_MAX = 256;
export class SharedPlans {
  private readonly plans: number[][] = [];

  share(indices: number[]): number[] {
    const out = sharedArray(indices, ...this.plans);
    if (out === indices && this.plans.length < PLANS_MAX) this.plans.push(indices);
    return out;
  }
}

export function compactSlim(rec: EpisodeRecord, texts: SharedTexts): EpisodeRecord {
  const r = rec as unknown as Record<string, unknown>;
  const out = new SlimRecord(r, texts) as unknown as Record<string, unknown>;
  for (const k of Object.keys(r)) if (!COMMON_KEYS.has(k) && !isShared(k, r[k])) out[k] = texts.share(r[k]);
  return out as unknown as EpisodeRecord;
}
