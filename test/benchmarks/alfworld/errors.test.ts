// Failures of the ALFWorld server and of the configuration: each one an error of the right kind (never
// an observation), with a message naming what to fix.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAlfworldBenchmark, createAlfworldEnvHandle } from '../../../src/benchmarks/alfworld/index.js';
import { AlfworldClient } from '../../../src/benchmarks/alfworld/client.js';
import { resolveEnvSettings } from '../../../src/benchmarks/alfworld/options.js';
import { gamesSha256 } from '../../../src/benchmarks/alfworld/games.js';
import { FatalRunError, InfraError, UserError } from '../../../src/errors.js';
import { VirtualClock } from '../../../src/util/clock.js';
import { ScriptedModel } from '../../support/scripted-model.js';
import { paperGames, solution, startAlfworldServer, type AlfworldServer } from '../../servers/alfworld-server.js';

const bench = createAlfworldBenchmark();
/** createEnv as a run reaches it: its options parsed first (a bad value rejects). */
const createEnvOf = async (settings: Record<string, unknown>) => bench.createEnv(bench.parseOptions(settings));
let tmp: string;
let srv: AlfworldServer;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'alfworld-errors-'));
  srv = await startAlfworldServer({ wrongName: [5] });
});
afterAll(async () => {
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A handle whose client retries fast on virtual time. */
function handleFor(url: string, settings: Record<string, unknown> = {}, clock = new VirtualClock()) {
  const s = resolveEnvSettings({ envUrl: url, ...settings });
  const client = new AlfworldClient({
    baseUrl: url,
    timeoutMs: s.timeoutMs,
    retry: { baseDelayMs: 10, maxDelayMs: 100 },
    clock,
    random: () => 0.5,
  });
  return { handle: createAlfworldEnvHandle(s, client), clock };
}

describe('ALFWorld adapter errors', () => {
  it('a reset whose game is not the expected one is a FatalRunError naming both games', async () => {
    const { handle } = handleFor(srv.url);
    const env = handle.makeEnv(bench.item(5));
    const err = await env.reset().catch((e) => e);
    expect(err).toBeInstanceOf(FatalRunError);
    expect(err.message).toContain(`"${paperGames[6]}" on the server`);
    expect(err.message).toContain(`expects "${paperGames[5]}"`);
    expect(err.message).toContain('--games');
    await env.close?.();
  });

  it("the game id is the game's position in --games (the server's order), and a game it lacks is a FatalRunError", async () => {
    const reversed = [...paperGames].reverse();
    const other = await startAlfworldServer({ games: reversed });
    try {
      const file = path.join(tmp, 'reversed.json');
      fs.writeFileSync(file, JSON.stringify(reversed));
      const { handle } = handleFor(other.url, { games: file });
      const env = handle.makeEnv(bench.item(0));
      const r = await env.reset();
      expect(r.info).toMatchObject({ game: paperGames[0], game_id: 133, task_type: 'examine' });
      expect(other.requests.find((q) => q.path === '/reset')!.body).toMatchObject({ game: 133 });
      await env.close?.();

      const partial = path.join(tmp, 'partial.json');
      fs.writeFileSync(partial, JSON.stringify(paperGames.slice(1)));
      const p = handleFor(other.url, { games: partial }).handle;
      const err = await p
        .makeEnv(bench.item(0))
        .reset()
        .catch((e) => e);
      expect(err).toBeInstanceOf(FatalRunError);
      expect(err.message).toContain(`--games ${partial} does not list game "${paperGames[0]}"`);
    } finally {
      await other.close();
    }
  });

  it('an {"error"} body (HTTP 200) is an InfraError carrying the server\'s message, on reset and on step', async () => {
    const { handle } = handleFor(srv.url);
    srv.enqueueFault({ route: 'reset', kind: 'error-body', message: 'list index out of range' });
    const env = handle.makeEnv(bench.item(0));
    const e1 = await env.reset().catch((e) => e);
    expect(e1).toBeInstanceOf(InfraError);
    expect(e1.source).toBe('env');
    expect(e1.message).toContain('list index out of range');
    await env.reset();
    srv.enqueueFault({ route: 'step', kind: 'error-body', message: 'The task with environment 9 has finished.' });
    const e2 = await env.step('look').catch((e) => e);
    expect(e2).toBeInstanceOf(InfraError);
    expect(e2.message).toContain('has finished');
    await env.close?.();
  });

  it('through the method, a step error makes the episode fail with InfraError (the runner records an error, not a score)', async () => {
    const { handle } = handleFor(srv.url);
    srv.enqueueFault({ route: 'step', kind: 'error-body' });
    const err = await bench
      .createMethod('react', bench.parseOptions({}))
      .run(bench.item(0), { model: ScriptedModel.sequence([' look']), makeEnv: handle.makeEnv })
      .catch((e) => e);
    expect(err).toBeInstanceOf(InfraError);
  });

  it('a down server is an InfraError (after a few refused attempts)', async () => {
    const dead = await startAlfworldServer();
    await dead.kill();
    const { handle, clock } = handleFor(dead.url);
    const err = await handle
      .makeEnv(bench.item(0))
      .reset()
      .catch((e) => e);
    expect(err).toBeInstanceOf(InfraError);
    expect(err.message).toMatch(/unreachable|refused/);
    expect(clock.sleeps.length).toBeGreaterThan(0);
    const c = await handle.check!().catch((e) => e);
    expect(c).toBeInstanceOf(InfraError);
    expect(c.message).toContain('--env-url');
  });

  it('reset and create are retried on 503 honouring Retry-After; a step is sent once (it may have been applied)', async () => {
    const { handle, clock } = handleFor(srv.url);
    srv.enqueueFault({ route: 'create', kind: 'status', status: 503, retryAfter: '3' });
    srv.enqueueFault({ route: 'reset', kind: 'status', status: 429, retryAfter: '2' });
    const env = handle.makeEnv(bench.item(0));
    await env.reset();
    expect(clock.sleeps).toEqual([3000, 2000]);
    const before = srv.requests.filter((r) => r.path === '/step').length;
    srv.enqueueFault({ route: 'step', kind: 'status', status: 503 });
    const err = await env.step('look').catch((e) => e);
    expect(err).toBeInstanceOf(InfraError);
    expect(srv.requests.filter((r) => r.path === '/step').length - before).toBe(1);
    await env.close?.();
  });

  it('an abort during a hanging step rejects at once (not at its 600 s timeout), and the episode stops', async () => {
    const { handle } = handleFor(srv.url, { envTimeout: 600 });
    srv.enqueueFault({ route: 'step', kind: 'hang' });
    const ac = new AbortController();
    const steps = () => srv.requests.filter((r) => r.path === '/step').length;
    const before = steps();
    const model = new ScriptedModel(() => {
      // Aborted once the step is hanging at the server: a fixed delay could abort before it was sent.
      void vi
        .waitFor(() => expect(steps()).toBeGreaterThan(before), { timeout: 30_000, interval: 5 })
        .then(
          () => ac.abort(new Error('interrupted')),
          () => undefined, // never at the server: the race below says "still hanging"
        );
      return ' look';
    });
    const run = bench
      .createMethod('react', bench.parseOptions({}))
      .run(bench.item(0), { model, makeEnv: handle.makeEnv, signal: ac.signal });
    const outcome = await Promise.race([
      run.then(
        () => 'resolved',
        (e: Error) => e.message,
      ),
      // far below the step's timeout, and far above what an abort takes even on a loaded machine
      new Promise((r) => setTimeout(() => r('still hanging after 30 s'), 30_000).unref()),
    ]);
    expect(outcome).toBe('interrupted');
  });

  it('check(): /info must match the game list and the text mode; a server without /info must answer GET /', async () => {
    const info = await startAlfworldServer({ info: 'auto' });
    const bad = await startAlfworldServer({
      info: { alfworld_version: '0.3.3', games_sha256: gamesSha256(['a/b']), n_games: 1, observations: 'clean' },
    });
    try {
      const ok = handleFor(info.url).handle;
      await ok.check!();
      expect(ok.describe()).toMatchObject({
        server: { alfworld_version: '0.3.3', games_sha256: gamesSha256(paperGames) },
        games: { n: 134, sha256: gamesSha256(paperGames) },
      });
      const mode = await handleFor(info.url, { alfworldObs: 'raw' }).handle.check!().catch((e) => e);
      expect(mode).toBeInstanceOf(UserError);
      expect(mode.message).toMatch(/--alfworld-obs raw: .* sends clean observations/);
      const games = await handleFor(bad.url).handle.check!().catch((e) => e);
      expect(games).toBeInstanceOf(UserError);
      expect(games.message).toContain("the server's game list");
      const agentgym = handleFor(srv.url).handle;
      await agentgym.check!();
      expect(agentgym.describe().server).toBeNull();
      expect(srv.requests.some((r) => r.path === '/')).toBe(true);
    } finally {
      await info.close();
      await bad.close();
    }
  });

  it('options: --env-url is required, --games must be a game list, other values are checked', async () => {
    await expect(createEnvOf({})).rejects.toThrow(UserError);
    await expect(createEnvOf({})).rejects.toThrow(/^--env-url: /);
    await expect(createEnvOf({ envUrl: 'ftp://x' })).rejects.toThrow(/--env-url ftp:\/\/x: expected an http/);
    await expect(createEnvOf({ envUrl: srv.url, alfworldObs: 'cooked' })).rejects.toThrow(/--alfworld-obs "cooked"/);
    await expect(createEnvOf({ envUrl: srv.url, envTimeout: 0 })).rejects.toThrow(/--env-timeout 0/);
    await expect(createEnvOf({ envUrl: srv.url, games: path.join(tmp, 'missing.json') })).rejects.toThrow(
      /--games .*missing\.json: cannot read it/,
    );
    const notList = path.join(tmp, 'obj.json');
    fs.writeFileSync(notList, '{"a": 1}');
    await expect(createEnvOf({ envUrl: srv.url, games: notList })).rejects.toThrow(/--games .*obj\.json: expected a non-empty JSON list/);
    expect(() => bench.createMethod('react', bench.parseOptions({ promptSet: '1,1' }))).toThrow(/--prompt-set/);
    expect(() => bench.createMethod('cot', bench.parseOptions({}))).toThrow(/--method cot/);
    // A solvable game through createEnv, for completeness.
    const h = await createEnvOf({ envUrl: srv.url });
    const r = await bench
      .createMethod('act', bench.parseOptions({}))
      .run(bench.item(7), { model: ScriptedModel.sequence(solution(paperGames[7])), makeEnv: h.makeEnv });
    expect(bench.score(bench.item(7), r).success).toBe(1);
  });
});
