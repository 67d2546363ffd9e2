// An ALFWorld run over a pool of two test households (--env-url A,B; src/envs/pool.ts): both serve
// episodes and the final prompts equal a one-server run's; a member dead from the start is left out
// (named) and the run completes on the other; a member killed mid-run loses no episode and none is
// scored on a broken observation (its episodes restart from reset on the other member) and the manifest
// says it was left out; with no member up at start, one line names each.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer, type ServerCompletionRequest } from '../servers/openai-server.js';
import { openings, paperGames, solution, startAlfworldServer, type AlfworldServer } from '../servers/alfworld-server.js';
import { readLines, runCli, runDirs } from '../run/cli-helpers.js';

const TASK_HEADER = '\nHere is the task.\n';
const INDICES = [0, 3, 5, 8, 13, 21, 34, 55];

const taskOf = (req: ServerCompletionRequest) => req.prompt.slice(req.prompt.lastIndexOf(TASK_HEADER) + TASK_HEADER.length);
/** The game whose opening the prompt shows (games with one opening: the first of them). */
function gameOf(req: ServerCompletionRequest): string | undefined {
  const [room, goal] = taskOf(req).split('\n');
  return [...openings].find(([, o]) => o === `${room}\n\n${goal}`)?.[0];
}
const turnOf = (req: ServerCompletionRequest) => taskOf(req).split('\n>').length - 2;

/** Plays the winning actions of the game in the prompt, one per turn. */
function householdModel(req: ServerCompletionRequest): string {
  const name = gameOf(req);
  if (!name) return ' look\n';
  return ` ${solution(name)[turnOf(req)] ?? 'look'}\n`;
}

let tmp: string;
let llm: OpenAIServer;
let onCall: ((req: ServerCompletionRequest) => void) | undefined;
const baseline = new Map<number, string>();

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pool-alfworld-'));
  llm = await startOpenAIServer({
    respond: (req) => {
      onCall?.(req);
      return householdModel(req);
    },
  });
  // The one-server run every pool run is compared with.
  const one = await startAlfworldServer({ info: 'auto' });
  try {
    const r = await run(one.url, 'one');
    expect(r.code).toBe(0);
    for (const e of episodes('one')) baseline.set(e.idx, e.traj);
  } finally {
    await one.close();
  }
  expect([...baseline.keys()].sort((a, b) => a - b)).toEqual(INDICES);
});
afterAll(async () => {
  await llm.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function run(envUrl: string, name: string) {
  return runCli(
    ['run', '--task', 'alfworld', '--method', 'react', '--env-url', envUrl, '--indices', INDICES.join(','), '--concurrency', '4',
      '--base-url', llm.baseURL, '--model', 'test-model', '--cache', 'off', '--results-dir', path.join(tmp, name)],
    { cwd: tmp },
  );
}

function episodes(name: string): any[] {
  const [dir] = runDirs(path.join(tmp, name));
  return readLines(path.join(tmp, name, dir, 'episodes.jsonl')).sort((a, b) => a.idx - b.idx);
}

function manifest(name: string): any {
  const [dir] = runDirs(path.join(tmp, name));
  return JSON.parse(fs.readFileSync(path.join(tmp, name, dir, 'manifest.json'), 'utf8'));
}

const resets = (s: AlfworldServer) => s.requests.filter((r) => r.path === '/reset').length;

describe('--env-url A,B for ALFWorld', () => {
  it('two households both serve episodes; the final prompts equal a one-server run; the manifest says who served what', async () => {
    const a = await startAlfworldServer({ info: 'auto' });
    const b = await startAlfworldServer({ info: 'auto' });
    try {
      const r = await run(`${a.url},${b.url}`, 'both');
      expect(r.stderr).not.toMatch(/internal error|warning/);
      expect(r.code).toBe(0);
      const eps = episodes('both');
      expect(eps.map((e) => e.idx)).toEqual(INDICES);
      for (const e of eps) {
        expect(e.error).toBeNull();
        expect(e.traj).toBe(baseline.get(e.idx));
      }
      expect(resets(a)).toBeGreaterThan(0);
      expect(resets(b)).toBeGreaterThan(0);
      expect(resets(a) + resets(b)).toBe(INDICES.length);
      const m = manifest('both');
      const served = m.sessions[0].envServers;
      expect(Object.keys(served).map(Number).sort((x, y) => x - y)).toEqual(INDICES);
      expect(new Set(Object.values(served))).toEqual(new Set([a.url, b.url]));
      // Membership is not identity: the pool run has the one-server run's id.
      expect(runDirs(path.join(tmp, 'both'))).toEqual(runDirs(path.join(tmp, 'one')));
      expect(a.liveEnvs()).toEqual([]);
      expect(b.liveEnvs()).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('with B dead from the start the run completes on A, exit 0, naming B', async () => {
    const a = await startAlfworldServer({ info: 'auto' });
    const b = await startAlfworldServer({ info: 'auto' });
    await b.kill();
    try {
      const r = await run(`${a.url},${b.url}`, 'dead');
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(`warning: --env-url: ${b.url} does not answer at start`);
      const eps = episodes('dead');
      expect(eps.map((e) => [e.idx, e.error])).toEqual(INDICES.map((i) => [i, null]));
      for (const e of eps) expect(e.traj).toBe(baseline.get(e.idx));
      expect(resets(a)).toBe(INDICES.length);
      const m = manifest('dead');
      expect(new Set(Object.values(m.sessions[0].envServers))).toEqual(new Set([a.url]));
      expect(m.environment.poolUrls).toEqual([
        { url: a.url, healthy: true },
        { url: b.url, healthy: false, leftOut: expect.stringMatching(/^does not answer at start /), leftOutAt: expect.any(String) },
      ]);
    } finally {
      await a.close();
    }
  });

  it('with B killed mid-run no episode is lost or scored on a broken observation', async () => {
    const a = await startAlfworldServer({ info: 'auto' });
    const b = await startAlfworldServer({ info: 'auto' });
    let killed = false;
    onCall = (req) => {
      // The model is asked for the second action of a game B reset: B goes down in the middle of it.
      const name = gameOf(req);
      const game = paperGames.indexOf(name ?? '');
      // (a game whose opening another run game shares cannot be told apart from the prompt)
      const unique = INDICES.filter((i) => openings.get(paperGames[i]) === openings.get(name ?? '')).length === 1;
      const onB = unique && b.requests.some((q) => q.path === '/reset' && q.body?.game === game);
      if (!killed && onB && turnOf(req) >= 1) {
        killed = true;
        void b.kill();
      }
    };
    try {
      const r = await run(`${a.url},${b.url}`, 'killed');
      expect(killed).toBe(true);
      expect(r.stderr).toContain(`warning: --env-url: ${b.url} stopped answering`);
      expect(r.code).toBe(0);
      const eps = episodes('killed');
      expect(eps.map((e) => [e.idx, e.error])).toEqual(INDICES.map((i) => [i, null]));
      for (const e of eps) expect(e.traj).toBe(baseline.get(e.idx));
      // The episode under way on B re-ran on A: more resets than episodes.
      const stepsOnB = b.requests.filter((q) => q.path === '/step').length;
      expect(stepsOnB).toBeGreaterThan(0);
      const m = manifest('killed');
      const served = m.sessions[0].envServers;
      expect(Object.values(served).every((u) => u === a.url || u === b.url)).toBe(true);
      expect(resets(a) + resets(b)).toBeGreaterThan(INDICES.length);
      // The session's record says B was lost, why and when; the server it describes is still the one checked at start.
      const pool = [
        { url: a.url, healthy: true },
        { url: b.url, healthy: false, leftOut: expect.stringMatching(/^stopped answering /), leftOutAt: expect.any(String) },
      ];
      expect(m.sessions[0].envPool).toEqual(pool);
      // What the run's environment was at its start stays as it was.
      expect(m.environment.poolUrls.map((p: any) => p.healthy)).toEqual([true, true]);
      expect(Date.parse(m.sessions[0].envPool[1].leftOutAt)).toBeGreaterThanOrEqual(Date.parse(m.sessions[0].startedAt));
      expect(Date.parse(m.sessions[0].envPool[1].leftOutAt)).toBeLessThanOrEqual(Date.parse(m.sessions[0].endedAt));
      expect(m.environment.server).toEqual(manifest('one').environment.server);
      // The pool's state is not the run's identity: the one-server run's id.
      expect(runDirs(path.join(tmp, 'killed'))).toEqual(runDirs(path.join(tmp, 'one')));
    } finally {
      onCall = undefined;
      await a.close();
      await b.close();
    }
  });
  it('with every member down at start the run does not start, exit 1, naming each and why', async () => {
    const a = await startAlfworldServer({ info: 'auto' });
    const b = await startAlfworldServer({ info: 'auto' });
    await a.kill();
    await b.kill();
    const r = await run(`${a.url},${b.url}`, 'nonestart');
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^react-repro: environment unavailable: --env-url: no ALFWorld server of the pool answers at start \(/);
    for (const u of [a.url, b.url]) expect(lines[0]).toContain(`${u}: the ALFWorld server does not answer (`);
    expect(runDirs(path.join(tmp, 'nonestart'))).toEqual([]);
  });
  it('run --help says a comma-separated --env-url makes a pool with failover', async () => {
    const r = await runCli(['run', '--help'], { cwd: tmp });
    expect(r.code).toBe(0);
    const text = r.stdout.replace(/\s+/g, ' ');
    expect(text).toMatch(/--env-url The benchmark's environment server [^[]*; several, comma-separated, make a pool with failover \(docs\/cluster\.md\)/);
  });
  it('refuses a pool whose members serve different games, naming the odd one', async () => {
    const a = await startAlfworldServer({ info: 'auto' });
    const b = await startAlfworldServer({ info: 'auto' });
    const sha = createHash('sha256').update(paperGames.join('\n')).digest('hex');
    // Same game list, another alfworld (0.4.0 changed the action grammar): not the same games.
    const c = await startAlfworldServer({ info: { alfworld_version: '0.4.0', n_games: 134, games_sha256: sha, observations: 'clean' } });
    try {
      const r = await run(`${a.url},${b.url},${c.url}`, 'odd');
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--env-url: ${c.url} does not serve what ${a.url} serves`);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(runDirs(path.join(tmp, 'odd'))).toEqual([]);
    } finally {
      await a.close();
      await b.close();
      await c.close();
    }
  });
  it('with every member gone mid-run the run stops, exit 1, naming them; what it wrote is sound', async () => {
    const a = await startAlfworldServer({ info: 'auto' });
    const b = await startAlfworldServer({ info: 'auto' });
    let calls = 0;
    onCall = () => {
      if (++calls === 12) {
        void a.kill();
        void b.kill();
      }
    };
    try {
      const r = await run(`${a.url},${b.url}`, 'alldead');
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`--env-url: no ALFWorld server of the pool answers \\(${a.url} .*; ${b.url} `));
      const [dir] = runDirs(path.join(tmp, 'alldead'));
      const written = fs.existsSync(path.join(tmp, 'alldead', dir, 'episodes.jsonl')) ? episodes('alldead') : [];
      expect(written.length).toBeLessThan(INDICES.length);
      for (const e of written) expect(e.traj).toBe(baseline.get(e.idx));
      const m = manifest('alldead');
      expect(m.sessions[0].status).toBe('failed');
      expect(m.sessions[0].envPool.map((p: any) => [p.url, p.healthy])).toEqual([
        [a.url, false],
        [b.url, false],
      ]);
      expect(m.environment.server).not.toBeNull();
    } finally {
      onCall = undefined;
      await a.close();
      await b.close();
    }
  });
});
