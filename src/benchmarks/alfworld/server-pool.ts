// ALFWorld over a pool of servers (--env-url A,B,...; src/envs/pool.ts, docs/cluster.md): one client and
// one env-id pool per member (env ids are a server's own), each member checked as a single server is
// (checkAlfworldServer), and the pool's fingerprint is its whole /info (null for agentenv-alfworld).
import { EnvServerPool, PooledEnv } from '../../envs/pool.js';
import type { EnvHandle, EnvHooks } from '../types.js';
import { AlfworldClient, SERVICE } from './client.js';
import { AlfworldEnv, gameRef } from './env.js';
import { EnvIdPool } from './env-pool.js';
import { JsonFields } from '../../util/json-fields.js';
import { InfraError, UserError } from '../../errors.js';
import type { AlfworldEnvSettings } from './options.js';

interface Member {
  client: AlfworldClient;
  ids: EnvIdPool;
  info: Record<string, unknown> | null;
}

const stderrWarn = (m: string) => process.stderr.write(`warning: ${m}\n`);

/** What a run's ALFWorld environment is: the games, the text mode, the server's own description; not where it runs. */
export function alfworldIdentity(
  s: Pick<AlfworldEnvSettings, 'gameList' | 'obs'>,
  server: Record<string, unknown> | null,
): Record<string, unknown> {
  return {
    kind: 'agentenv-alfworld HTTP',
    games: { vendored: s.gameList.vendored, n: s.gameList.games.length, sha256: s.gameList.sha256 },
    observations: observationsOf(s.obs),
    server,
  };
}

export const observationsOf = (obs: AlfworldEnvSettings['obs']): string =>
  obs === 'clean'
    ? 'clean (the server drops the banner and "You arrive at loc N. ")'
    : 'raw (the adapter cleans them as the notebook does)';

export function createAlfworldPoolHandle(
  s: AlfworldEnvSettings & { onRetry?: EnvHooks['onRetry'] },
  deps: { warn?: (m: string) => void; makeClient?: (url: string) => AlfworldClient } = {},
): EnvHandle & { servedBy(): Record<string, string> } {
  const urls = s.envUrls ?? [s.envUrl];
  const makeClient =
    deps.makeClient ??
    ((url: string) => new AlfworldClient({ baseUrl: url, timeoutMs: s.timeoutMs, ...(s.onRetry ? { onRetry: s.onRetry } : {}) }));
  const pool = new EnvServerPool<Member>({
    flag: '--env-url',
    service: SERVICE,
    urls,
    makeCtx: (url) => {
      const client = makeClient(url);
      return { client, ids: new EnvIdPool(client), info: null };
    },
    // A short, plain request: GET / answers on agentenv-alfworld and our server.py alike.
    probe: (m, signal) => m.client.ping(signal),
    warn: deps.warn ?? stderrWarn,
  });
  // Every member that passed the start check has the same /info; the first one's, whether or not it is
  // still up: a member lost mid-run changes where episodes go, not what the run's server is.
  const serverInfo = () => pool.members.find((m) => m.ctx.info)?.ctx.info ?? null;
  return {
    makeEnv: (item) =>
      new PooledEnv(
        pool,
        item,
        (m, it) => new AlfworldEnv(m.client, gameRef(it, s.gameList.ids, s.gameList.listName), { obs: s.obs, pool: m.ids }),
      ),
    describe: () => ({
      kind: 'agentenv-alfworld HTTP',
      url: pool.members.map((m) => m.shown).join(', '),
      games: { vendored: s.gameList.vendored, n: s.gameList.games.length, sha256: s.gameList.sha256 },
      gamesPath: s.gameList.source,
      observations: observationsOf(s.obs),
      server: serverInfo(),
      timeoutMs: s.timeoutMs,
      // Each member's state as of now (the run describes its environment again when a session ends).
      poolUrls: pool.state(),
    }),
    identity: () => alfworldIdentity(s, serverInfo()),
    check: (runSignal) =>
      pool.check(async (m, signal) => {
        // The whole /info (games, text mode, alfworld and TextWorld versions, step limit): it is part of
        // the run's identity, so members must agree on all of it, whichever one describes the run.
        m.info = await checkAlfworldServer(m.client, s, signal);
        return m.info;
      }, runSignal),
    servedBy: () => pool.servedBy(),
    close: async () => {
      await Promise.all(pool.members.map((m) => m.ctx.ids.close()));
    },
  };
}

/** The start check of one server: it answers, and where it describes itself its games and text mode are ours. */
export async function checkAlfworldServer(
  client: AlfworldClient,
  s: AlfworldEnvSettings,
  signal?: AbortSignal,
): Promise<Record<string, unknown> | null> {
  let info: Record<string, unknown> | null;
  try {
    info = await client.info(signal);
    if (info === null) await client.ping(signal);
  } catch (e) {
    if (e instanceof InfraError)
      throw new InfraError(`--env-url ${client.shownUrl}: the ALFWorld server does not answer (${e.message})`, 'env', { cause: e });
    throw e;
  }
  if (!info) return null;
  const fields = JsonFields.orEmpty(info);
  const gamesSha = fields.str('games_sha256');
  if (gamesSha !== undefined && gamesSha !== s.gameList.sha256) {
    throw new UserError(
      `--env-url ${client.shownUrl}: the server's game list (sha256 ${gamesSha}, ${String(fields.get('n_games'))} games) is not ${s.gameList.listName} (sha256 ${s.gameList.sha256}): give --games the server's list`,
    );
  }
  const observations = fields.str('observations');
  if (observations !== undefined && observations !== s.obs) {
    throw new UserError(
      `--alfworld-obs ${s.obs}: the server at ${client.shownUrl} sends ${observations} observations (use --alfworld-obs ${observations})`,
    );
  }
  return info;
}
