// WebShop over a pool of sites (--env-url A,B,...; src/envs/pool.ts, docs/cluster.md). Each member is a
// one-site handle of its own (createWebshopEnvHandle: its start check, goals check and episodes), so a
// member behaves exactly as a single site does. The pool's fingerprint is what must not differ between
// members: the start page of fixed_0 without its price clause (the clause is redrawn at every site start,
// docs/protocol.md §9 "Known drifts", so it may differ) and, with the goals check on, which of
// fixed_0..fixed_99 differ from the paper's goals.
import { EnvServerPool, PooledEnv } from '../../envs/pool.js';
import type { EnvHandle } from '../types.js';
import { fetchPage, SERVICE, type EnvHandleDeps, type SiteGoalsCheck } from './env.js';
import { splitPriceClause } from './goals.js';
import type { WebshopSettings } from './options.js';
import { pageInstruction } from './page-text.js';
import { initialState } from './session.js';

interface Member {
  handle: EnvHandle;
  settings: WebshopSettings;
  goals: SiteGoalsCheck | null;
}

const stderrWarn = (m: string) => process.stderr.write(`warning: ${m}\n`);

export function createWebshopPoolHandle(
  s: WebshopSettings,
  deps: EnvHandleDeps = {},
  /** The goals check of the first member that answers (fidelity() reads it). */
  onPoolGoals: ((c: SiteGoalsCheck) => void) | undefined,
  /** index.ts's one-site handle (passed in: no import cycle). */
  createWebshopEnvHandle: (s: WebshopSettings, deps: EnvHandleDeps) => EnvHandle,
): EnvHandle & { servedBy(): Record<string, string> } {
  const urls = s.baseUrls ?? [s.baseUrl];
  const warn = deps.warn ?? stderrWarn;
  const pool = new EnvServerPool<Member>({
    flag: '--env-url',
    service: SERVICE,
    urls,
    makeCtx: (url) => {
      const settings: WebshopSettings = { ...s, baseUrl: url, baseUrls: undefined };
      delete settings.baseUrls;
      const member: Member = { settings, goals: null, handle: undefined as unknown as EnvHandle };
      member.handle = createWebshopEnvHandle(settings, { ...deps, warn, onGoalsChecked: (c) => (member.goals = c) });
      return member;
    },
    // The start page of fixed_0, once: a site that answers it is up.
    probe: async (m, signal) => {
      await fetchPage(
        {
          baseUrl: m.settings.baseUrl,
          timeoutMs: m.settings.timeoutMs,
          serverErrors: m.settings.serverErrors,
          retry: { ...deps.retry, maxAttempts: 2 },
        },
        initialState('fixed_0'),
        signal,
      );
    },
    warn,
  });
  // The member that describes the pool: the first that answered the start check, fixed then, so that a
  // member lost mid-run changes the pool's state in the description, not whose goals check it shows.
  let describer: (typeof pool.members)[number] | undefined;
  const first = () => describer ?? pool.members.find((m) => m.healthy) ?? pool.members[0];
  return {
    makeEnv: (item) => new PooledEnv(pool, item, (m, it) => m.handle.makeEnv(it)),
    describe: () => ({
      ...first().ctx.handle.describe(),
      siteUrl: pool.members.map((m) => m.shown).join(', '),
      // Each member's state as of now (the run describes its environment again when a session ends).
      poolUrls: pool.state(),
    }),
    identity: () => {
      const m = first();
      return m.ctx.handle.identity?.() ?? m.ctx.handle.describe();
    },
    check: async (runSignal) => {
      await pool.check(async (m, signal) => {
        await m.handle.check?.(signal);
        const page = await fetchPage(m.settings, initialState('fixed_0'), signal);
        const instruction = pageInstruction(page.html);
        return {
          fixed_0: instruction === null ? null : splitPriceClause(instruction).instruction,
          goalsDiffer: m.goals ? m.goals.mismatched : null,
        };
      }, runSignal);
      describer = pool.members.find((m) => m.healthy);
      const withGoals = pool.members.find((m) => m.healthy && m.ctx.goals);
      if (withGoals?.ctx.goals) onPoolGoals?.(withGoals.ctx.goals);
    },
    servedBy: () => pool.servedBy(),
  };
}
