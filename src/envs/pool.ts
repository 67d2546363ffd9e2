// A pool of interchangeable environment servers (--env-url A,B,...; docs/cluster.md "Env-server pools").
// Used by the benchmarks' env factories; it never names a benchmark.
// - Each episode goes to the least busy healthy member (ties: the first listed), and stays there.
// - Every member is checked at start with the benchmark's own check, which returns a fingerprint (game
//   list, site goals): a member that does not answer is left out with a warning naming it; a member
//   whose fingerprint differs from the others' makes the run refuse, naming it (UserError).
// - A request that got no answer (refused, timed out, dropped, 502/503/504 after the request helper's
//   retries) makes the pool probe its member: a member that still answers keeps serving (the episode
//   fails as on one server); one that does not is left out with a warning naming it, every episode in
//   flight on it is aborted, and those episodes restart from reset on another member (EnvRestart: the
//   runner runs the episode again; an outage is never scored, docs/protocol.md "a run never lies").
// - The run stops (FatalRunError naming every member) only when no member is healthy; when none answers
//   the start check, it does not start (InfraError naming every member and why).
// Membership is operational: it is not part of a run's identity (a resume may use other servers); the
// pool records which member served which item (servedBy) and each member's state (state()), and the run
// writes both into its manifest when a session ends.
// A single URL is not a pool: benchmarks keep their one-server path for it, unchanged.
import { setMaxListeners } from 'node:events';
import type { Env, EnvCallOptions, ResetResult, StepResult } from './types.js';
import { FatalRunError, InfraError, UserError, errorMessage } from '../errors.js';
import type { Item } from '../benchmarks/types.js';
import { redactBadUrl, redactUrl } from '../util/redact.js';
import { poolUrls, refuseUrlQueries } from './http/base-url.js';

/**
 * Thrown into an episode whose server left the pool mid-episode: the runner starts the episode again
 * from reset (a new env from makeEnv, so on another member); it is never recorded.
 */
export class EnvRestart extends InfraError {
  readonly restart = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'env', options);
  }
}

export function isEnvRestart(e: unknown): e is EnvRestart {
  return e instanceof EnvRestart;
}

/**
 * Splits a comma-separated --env-url / --wiki-url value into its URLs (UserError on an entry with a query
 * or fragment, an empty entry or a repeat). The query is refused first: the later messages echo the list.
 */
export function splitUrlList(value: string, flag: string): string[] {
  refuseUrlQueries(value, flag);
  const urls = poolUrls(value);
  if (urls.some((u) => u === '')) throw new UserError(`${flag} ${value.split(',').map(redactBadUrl).join(',')}: an empty entry in the comma-separated list of URLs`);
  const seen = new Set<string>();
  for (const u of urls) {
    const k = u.replace(/\/+$/, '');
    if (seen.has(k)) throw new UserError(`${flag}: ${redactUrl(u)} is listed twice`);
    seen.add(k);
  }
  return urls;
}

export interface PoolMember<C> {
  /** Position in the list given. */
  index: number;
  url: string;
  /** The URL as messages and the manifest show it (no userinfo). */
  shown: string;
  /** The benchmark's per-server state (its client, its env-id pool...). */
  ctx: C;
  busy: number;
  healthy: boolean;
  /** Why it was left out. */
  downReason?: string;
  /** When it was left out (ISO time). */
  downAt?: string;
  /** Aborted when the member is left out: its in-flight requests stop at once. */
  abort: AbortController;
}

export interface EnvPoolOptions<C> {
  /** The flag, for messages ("--env-url"). */
  flag: string;
  /** Who answers, for messages ("ALFWorld server"). */
  service: string;
  urls: string[];
  makeCtx(url: string): C;
  /** Does the member still answer? Throws when it does not (a short request). */
  probe(ctx: C, signal?: AbortSignal): Promise<void>;
  warn(message: string): void;
}

/** The member did not answer: a failure worth probing its member for (an answer is never one). */
export function isNoAnswer(e: unknown): boolean {
  if (!(e instanceof InfraError) || e instanceof EnvRestart) return false;
  return e.status === undefined || e.status === 502 || e.status === 503 || e.status === 504;
}

class MemberDown extends Error {
  override readonly name = 'AbortError';
  constructor(readonly member: string) {
    super(`${member} left the pool`);
  }
}

export class EnvServerPool<C> {
  readonly members: PoolMember<C>[];
  /** item index → the member that served its last attempt (shown URL). */
  private readonly served = new Map<number, string>();
  private readonly probing = new Map<PoolMember<C>, Promise<boolean>>();

  constructor(private readonly o: EnvPoolOptions<C>) {
    this.members = o.urls.map((url, index) => ({ index, url, shown: redactUrl(url), ctx: o.makeCtx(url), busy: 0, healthy: true, abort: new AbortController() }));
    // Every request in flight on a member listens for its loss.
    for (const m of this.members) setMaxListeners(0, m.abort.signal);
  }

  get size(): number {
    return this.members.length;
  }

  healthy(): PoolMember<C>[] {
    return this.members.filter((m) => m.healthy);
  }

  /**
   * The start check: `check` each member (in parallel) for its fingerprint. Members that do not answer
   * (InfraError) are left out with a warning; a fingerprint that differs refuses the run naming the odd
   * member; when none answers, one InfraError names every member and why it failed.
   */
  async check(check: (ctx: C, signal: AbortSignal | undefined, m: PoolMember<C>) => Promise<unknown>, signal?: AbortSignal): Promise<void> {
    const results = await Promise.all(
      this.members.map(async (m) => {
        // One signal per member: its check may have many requests in flight, each listening.
        const own = signal ? AbortSignal.any([signal]) : undefined;
        if (own) setMaxListeners(0, own);
        try {
          return { m, fp: JSON.stringify((await check(m.ctx, own, m)) ?? null) };
        } catch (e) {
          if (e instanceof InfraError) return { m, error: e };
          throw e;
        }
      }),
    );
    const up = results.filter((r) => !('error' in r) || r.error === undefined) as { m: PoolMember<C>; fp: string }[];
    if (up.length === 0) throw this.noneAtStart(results as { m: PoolMember<C>; error: InfraError }[], signal);
    for (const r of results) {
      if ('error' in r && r.error) this.leaveOut(r.m, `does not answer at start (${r.error.message})`);
    }
    // The odd one: the fingerprint most members share wins (the first member's on a tie).
    const counts = new Map<string, number>();
    for (const r of up) counts.set(r.fp, (counts.get(r.fp) ?? 0) + 1);
    let best = up[0].fp;
    for (const [fp, n] of counts) if (n > (counts.get(best) ?? 0)) best = fp;
    const ref = up.find((r) => r.fp === best)!;
    const odd = up.find((r) => r.fp !== best);
    if (odd) {
      throw new UserError(
        `${this.o.flag}: ${odd.m.shown} does not serve what ${ref.m.shown} serves (${odd.fp} vs ${ref.fp}): every member of a pool must serve the same games / site`,
      );
    }
  }

  /** The least busy healthy member (ties: the first listed); FatalRunError when none is left. */
  take(item?: Item): PoolMember<C> {
    let best: PoolMember<C> | undefined;
    for (const m of this.members) if (m.healthy && (!best || m.busy < best.busy)) best = m;
    if (!best) throw this.noneLeft();
    best.busy++;
    if (item) this.served.set(item.index, best.shown);
    return best;
  }

  give(m: PoolMember<C>): void {
    m.busy = Math.max(0, m.busy - 1);
  }

  /**
   * A request to `m` got no answer: probe it. True when it was (or now is) left out: the episode must
   * restart elsewhere; false when it still answers (the failure is the episode's, as on one server).
   * Throws FatalRunError when no member is left.
   */
  async failed(m: PoolMember<C>, e: unknown): Promise<boolean> {
    if (!m.healthy) return this.afterLoss();
    let p = this.probing.get(m);
    if (!p) {
      p = this.o
        .probe(m.ctx)
        .then(() => false)
        .catch((pe: unknown) => {
          if (m.healthy) this.leaveOut(m, `stopped answering (${errorMessage(e)}; probe: ${errorMessage(pe)})`);
          return true;
        })
        .finally(() => this.probing.delete(m));
      this.probing.set(m, p);
    }
    return (await p) ? this.afterLoss() : false;
  }

  /** Each member's state as of now, for the manifest (environment.poolUrls). */
  state(): { url: string; healthy: boolean; leftOut?: string; leftOutAt?: string }[] {
    return this.members.map((m) => ({
      url: m.shown,
      healthy: m.healthy,
      ...(m.downReason ? { leftOut: m.downReason } : {}),
      ...(m.downAt ? { leftOutAt: m.downAt } : {}),
    }));
  }

  /** item index → the member URL that served it (its last attempt), for the manifest. */
  servedBy(): Record<string, string> {
    return Object.fromEntries([...this.served.entries()].sort((a, b) => a[0] - b[0]).map(([i, u]) => [String(i), u]));
  }

  /** The member's abort signal combined with the episode's. */
  signalFor(m: PoolMember<C>, signal?: AbortSignal): AbortSignal {
    return signal ? AbortSignal.any([signal, m.abort.signal]) : m.abort.signal;
  }

  private afterLoss(): true {
    if (this.healthy().length === 0) throw this.noneLeft();
    return true;
  }

  private noneLeft(): FatalRunError {
    const why = this.members.map((m) => `${m.shown} ${m.downReason ?? 'left out'}`).join('; ');
    return new FatalRunError(`${this.o.flag}: no ${this.o.service} of the pool answers (${why})`);
  }

  /** No member answered the start check: each one named with its own error, on one line. */
  private noneAtStart(down: { m: PoolMember<C>; error: InfraError }[], signal?: AbortSignal): InfraError {
    if (down.length === 1 || signal?.aborted) return down[0].error;
    const why = down.map(({ m, error }) => {
      // A member's error usually names it already ("--env-url URL: ..."): not twice.
      const msg = error.message.startsWith(`${this.o.flag} `) ? error.message.slice(this.o.flag.length + 1) : error.message;
      return msg.includes(m.shown) ? msg : `${m.shown}: ${msg}`;
    });
    return new InfraError(`${this.o.flag}: no ${this.o.service} of the pool answers at start (${why.join('; ')})`, 'env', {
      cause: new AggregateError(
        down.map((d) => d.error),
        'every member failed its start check',
      ),
    });
  }

  private leaveOut(m: PoolMember<C>, why: string): void {
    if (!m.healthy) return;
    m.healthy = false;
    m.downReason = why;
    m.downAt = new Date().toISOString();
    const left = this.healthy().map((x) => x.shown);
    this.o.warn(`${this.o.flag}: ${m.shown} ${why}; left out of the pool${left.length ? `, its episodes go to ${left.join(', ')}` : ''}`);
    m.abort.abort(new MemberDown(m.shown));
  }
}

/**
 * One episode's env on a pool: the member is chosen at reset (least busy), the benchmark's own env for
 * that member does the work. A reset that finds its member gone tries the next member at once; a step
 * that finds it gone throws EnvRestart (the runner restarts the episode from reset, on another member).
 */
export class PooledEnv<C> implements Env {
  private member: PoolMember<C> | undefined;
  private inner: Env | undefined;

  constructor(
    private readonly pool: EnvServerPool<C>,
    private readonly item: Item,
    private readonly make: (ctx: C, item: Item) => Env,
  ) {}

  async reset(o: EnvCallOptions = {}): Promise<ResetResult> {
    for (;;) {
      await this.release();
      const m = this.pool.take(this.item);
      this.member = m;
      this.inner = this.make(m.ctx, this.item);
      try {
        return await this.inner.reset({ ...o, signal: this.pool.signalFor(m, o.signal) });
      } catch (e) {
        if (o.signal?.aborted) throw e;
        if (!(await this.lost(m, e))) throw e;
        // nothing was observed yet: the reset goes to the next member
      }
    }
  }

  async step(action: string, o: EnvCallOptions = {}): Promise<StepResult> {
    const m = this.member;
    if (!m || !this.inner) throw new Error('PooledEnv.step before reset');
    try {
      return await this.inner.step(action, { ...o, signal: this.pool.signalFor(m, o.signal) });
    } catch (e) {
      if (o.signal?.aborted) throw e;
      if (await this.lost(m, e)) {
        await this.release();
        throw new EnvRestart(`${m.shown} left the pool mid-episode: item ${this.item.index} restarts from reset on another member`, { cause: e });
      }
      throw e;
    }
  }

  async close(): Promise<void> {
    await this.release();
  }

  /** Left out (now or by another episode) while this request was in flight. */
  private async lost(m: PoolMember<C>, e: unknown): Promise<boolean> {
    if (e instanceof MemberDown || (m.abort.signal.aborted && !(e instanceof FatalRunError))) return this.pool.failed(m, e);
    if (isNoAnswer(e)) return this.pool.failed(m, e);
    return false;
  }

  private async release(): Promise<void> {
    const inner = this.inner;
    const m = this.member;
    this.inner = undefined;
    this.member = undefined;
    if (m) this.pool.give(m);
    await inner?.close?.();
  }
}
