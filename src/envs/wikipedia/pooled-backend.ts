// --wiki-url A,B,... for --wiki live or api: a pool of Wikipedia mirrors (src/envs/pool.ts). A search
// is one stateless GET, so a search whose mirror stopped answering is simply sent again to another
// mirror (no episode restart): each search goes to the least busy healthy mirror; a mirror that does
// not answer is probed, left out with a warning naming it, and the run stops only when none answers.
import { InfraError } from '../../errors.js';
import { EnvServerPool, isNoAnswer } from '../pool.js';
import type { SearchOutcome, WikiBackend } from './backend.js';
import { httpGet, WIKI_SERVICE } from './http-get.js';

const stderrWarn = (m: string) => process.stderr.write(`warning: ${m}\n`);

export class PooledWikiBackend implements WikiBackend {
  readonly kind: string;
  private readonly pool: EnvServerPool<WikiBackend>;

  constructor(urls: string[], make: (url: string) => WikiBackend, opts: { timeoutMs?: number; warn?: (m: string) => void } = {}) {
    this.pool = new EnvServerPool<WikiBackend>({
      flag: '--wiki-url',
      service: `${WIKI_SERVICE} mirror`,
      urls,
      makeCtx: make,
      // Any answer (even a 404 for a mirror's root) says the mirror is up; silence or a gateway's
      // 502/503/504 (a proxy before a dead backend) is no answer, by the rule that made the pool probe
      // (isNoAnswer), so such a mirror is left out rather than fail every search sent to it.
      probe: async (_b, signal) => {
        const i = this.pool.members.findIndex((m) => m.ctx === _b);
        try {
          await httpGet(new URL(urls[i]).origin, '/', { attempts: 2, timeoutMs: Math.min(opts.timeoutMs ?? 10_000, 10_000), ...(signal ? { signal } : {}) });
        } catch (e) {
          if (e instanceof InfraError && !isNoAnswer(e)) return;
          throw e;
        }
      },
      warn: opts.warn ?? stderrWarn,
    });
    this.kind = this.pool.members[0].ctx.kind;
  }

  async search(entity: string, o?: { signal?: AbortSignal }): Promise<SearchOutcome> {
    for (;;) {
      const m = this.pool.take();
      try {
        return await m.ctx.search(entity, { signal: this.pool.signalFor(m, o?.signal) });
      } catch (e) {
        if (o?.signal?.aborted) throw e;
        const gone = m.abort.signal.aborted || isNoAnswer(e);
        if (!gone || !(await this.pool.failed(m, e))) throw e;
        // the search goes to the next mirror
      } finally {
        this.pool.give(m);
      }
    }
  }

  describe(): Record<string, unknown> {
    return { ...this.pool.members[0].ctx.describe(), baseUrl: this.pool.members.map((m) => m.shown).join(', ') };
  }

  identity(): Record<string, unknown> {
    const first = this.pool.members[0].ctx;
    return first.identity?.() ?? first.describe();
  }

  async close(): Promise<void> {
    await Promise.all(this.pool.members.map(async (m) => m.ctx.close?.()));
  }
}
