// Env ids are pooled per run (src/benchmarks/alfworld/env-pool.ts): agentenv-alfworld never frees an
// env, so a run must create one per concurrent episode, not one per episode. Checked on the test
// household's request log: how many /create, which id each /reset and /step went to, and that every
// id's requests form whole episodes one after another (two episodes never share an id at once).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlfworldBenchmark, createAlfworldEnvHandle } from '../../../src/benchmarks/alfworld/index.js';
import { resolveEnvSettings } from '../../../src/benchmarks/alfworld/options.js';
import type { EnvHandle } from '../../../src/benchmarks/types.js';
import { InfraError } from '../../../src/errors.js';
import { ScriptedModel } from '../../support/scripted-model.js';
import { paperGames, solution, startAlfworldServer, type AlfworldServer } from '../../servers/alfworld-server.js';

const bench = createAlfworldBenchmark();
const method = bench.createMethod('react', bench.parseOptions({}));

let servers: AlfworldServer[] = [];
beforeAll(() => {
  servers = [];
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function server(opts: Parameters<typeof startAlfworldServer>[0] = {}): Promise<AlfworldServer> {
  const s = await startAlfworldServer(opts);
  servers.push(s);
  return s;
}

/** Plays the winning script of each game, `concurrency` episodes at a time; returns the successes. */
async function playAll(handle: EnvHandle, games: number[], concurrency: number): Promise<number[]> {
  const wins: number[] = new Array(games.length);
  let next = 0;
  const worker = async () => {
    while (next < games.length) {
      const k = next++;
      const item = bench.item(games[k]);
      const r = await method.run(item, { model: ScriptedModel.sequence(solution(item.id)), makeEnv: handle.makeEnv });
      wins[k] = bench.score(item, r).success;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return wins;
}

interface Segment {
  id: number;
  game: number;
  actions: string[];
}

/** Each env id's requests cut at its resets: one segment per episode played on that id. */
function segments(srv: AlfworldServer): Segment[] {
  const current = new Map<number, Segment>();
  const out: Segment[] = [];
  for (const r of srv.requests) {
    const id = r.body?.id as number;
    if (r.path === '/reset') {
      const seg = { id, game: r.body!.game as number, actions: [] };
      current.set(id, seg);
      out.push(seg);
    } else if (r.path === '/step') {
      current.get(id)!.actions.push(r.body!.action as string);
    }
  }
  return out;
}

const creates = (srv: AlfworldServer) => srv.requests.filter((r) => r.path === '/create').length;
const closes = (srv: AlfworldServer) => srv.requests.filter((r) => r.path === '/close').map((r) => r.body!.id);

describe('ALFWorld env ids are reused across episodes', () => {
  it('six episodes one at a time: one /create, six resets of that id, closed with the handle', async () => {
    const srv = await server();
    const handle = createAlfworldEnvHandle(resolveEnvSettings({ envUrl: srv.url }));
    const games = [0, 1, 2, 3, 4, 5];
    expect(await playAll(handle, games, 1)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(creates(srv)).toBe(1);
    const segs = segments(srv);
    expect(segs.map((s) => [s.id, s.game])).toEqual(games.map((g) => [0, g]));
    // Each reset started the game afresh on the reused id: every script won from the start state.
    for (const s of segs) expect(s.actions).toEqual(solution(paperGames[s.game]));
    expect(closes(srv)).toEqual([]);
    expect(srv.liveEnvs()).toEqual([0]);
    await handle.close!();
    expect(closes(srv)).toEqual([0]);
    expect(srv.liveEnvs()).toEqual([]);
  });

  it('nine episodes three at a time: three ids, never two episodes on one id at once', async () => {
    const srv = await server();
    const handle = createAlfworldEnvHandle(resolveEnvSettings({ envUrl: srv.url }));
    const games = [10, 11, 12, 13, 14, 15, 16, 17, 18];
    expect(await playAll(handle, games, 3)).toEqual(games.map(() => 1));
    expect(creates(srv)).toBe(3);
    const segs = segments(srv);
    expect(new Set(segs.map((s) => s.id))).toEqual(new Set([0, 1, 2]));
    // Had two episodes shared an id, its requests would interleave: a segment would hold another
    // game's actions, or an episode's actions would be split by another's reset.
    expect(segs.map((s) => s.game).sort((a, b) => a - b)).toEqual(games);
    for (const s of segs) expect(s.actions, `game ${s.game} on id ${s.id}`).toEqual(solution(paperGames[s.game]));
    // And the episodes really overlapped: the three ids were all reset before any episode ended.
    expect(
      segs
        .slice(0, 3)
        .map((s) => s.id)
        .sort(),
    ).toEqual([0, 1, 2]);
    await handle.close!();
    expect(closes(srv).sort()).toEqual([0, 1, 2]);
    expect(srv.liveEnvs()).toEqual([]);
  });

  it('an episode whose step got no answer (aborted while hanging) gives up its id: the next one creates another', async () => {
    const srv = await server();
    const handle = createAlfworldEnvHandle(resolveEnvSettings({ envUrl: srv.url, envTimeout: 600 }));
    srv.enqueueFault({ route: 'step', kind: 'hang' });
    const ac = new AbortController();
    const model = new ScriptedModel(() => {
      setTimeout(() => ac.abort(new Error('interrupted')), 50);
      return ' look';
    });
    await expect(method.run(bench.item(0), { model, makeEnv: handle.makeEnv, signal: ac.signal })).rejects.toThrow('interrupted');
    expect(await playAll(handle, [1], 1)).toEqual([1]);
    expect(creates(srv)).toBe(2);
    expect(segments(srv).map((s) => [s.id, s.game])).toEqual([
      [0, 0],
      [1, 1],
    ]);
    // The handle's close waits for the dropped id's close and closes the free one.
    await handle.close!();
    expect(closes(srv).sort()).toEqual([0, 1]);
    expect(srv.liveEnvs()).toEqual([]);
  });

  it('an episode that failed on an answer ({"error"} body) gives its id back: it is reused', async () => {
    const srv = await server();
    const handle = createAlfworldEnvHandle(resolveEnvSettings({ envUrl: srv.url }));
    srv.enqueueFault({ route: 'step', kind: 'error-body', message: 'boom' });
    const err = await method.run(bench.item(0), { model: ScriptedModel.sequence([' look']), makeEnv: handle.makeEnv }).catch((e) => e);
    expect(err).toBeInstanceOf(InfraError);
    expect(err.status).toBe(200);
    expect(await playAll(handle, [0, 1], 1)).toEqual([1, 1]);
    expect(creates(srv)).toBe(1);
    await handle.close!();
    expect(srv.liveEnvs()).toEqual([]);
  });
});
