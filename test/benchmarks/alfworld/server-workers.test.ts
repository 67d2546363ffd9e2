// envs/alfworld/server.py --workers N against the instrumented stand-in alfworld (envs/alfworld/standin:
// a reset or step fails, and is logged, when another environment's call is under way in the same
// process): 8 concurrent episodes over 4 workers never step two environments in one process at once;
// a worker killed with SIGKILL is an {"error"} answer for its environment and the server keeps serving;
// workers are replaced after --recycle-after episodes.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openings, paperGames } from '../../servers/alfworld-server.js';

const repo = path.resolve(__dirname, '../../..');
const SERVER = path.join(repo, 'envs/alfworld/server.py');
const STANDIN = path.join(repo, 'envs/alfworld/standin');
const hasPython = spawnSync('python3', ['--version']).status === 0;

function makeData(root: string): void {
  for (const name of paperGames) {
    const dir = path.join(root, 'json_2.1.1', 'valid_unseen', ...name.split('/'));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'traj_data.json'), JSON.stringify({ task_type: name.split('-')[0] }));
    fs.writeFileSync(
      path.join(dir, 'game.tw-pddl'),
      JSON.stringify({ solvable: true, standin: { opening: openings.get(name), win: 'win the game' } }),
    );
  }
}

let tmp: string;
let data: string;
let overlapLog: string;
const children: ChildProcess[] = [];

function envVars(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PYTHONPATH: STANDIN,
    ALFWORLD_DATA: data,
    PYTHONDONTWRITEBYTECODE: '1',
    ALFWORLD_STANDIN_STEP_DELAY: '0.03',
    ALFWORLD_STANDIN_OVERLAP_LOG: overlapLog,
  };
}

function startServer(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [SERVER, '--port', '0', ...args], { env: envVars(), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.stderr!.on('data', (d) => (err += d));
    child.on('exit', (code) => reject(new Error(`server.py exited with ${code}:\n${out}\n${err}`)));
  });
}

async function post(url: string, route: string, body: unknown): Promise<any> {
  const r = await fetch(url + route, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  expect(r.status).toBe(200);
  return r.json();
}
const workers = async (url: string): Promise<{ index: number; pid: number; episodes: number; envs: number[]; alive: boolean }[]> =>
  (await fetch(url + '/workers')).json();

/** One episode: create, reset game g, three looks, the winning action; every answer. */
async function episode(url: string, g: number): Promise<any[]> {
  const { id } = await post(url, '/create', {});
  const out = [await post(url, '/reset', { id, game: g, world_type: 'Text' })];
  for (const a of ['look', 'inventory', 'look', 'win the game']) out.push(await post(url, '/step', { id, action: a }));
  return out;
}

const overlaps = () => (fs.existsSync(overlapLog) ? fs.readFileSync(overlapLog, 'utf8').trim().split('\n').filter(Boolean) : []);

describe.skipIf(!hasPython)(`server.py --workers${hasPython ? '' : ' (skipped: python3 not found on PATH)'}`, () => {
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'alfworld-workers-'));
    data = path.join(tmp, 'data');
    overlapLog = path.join(tmp, 'overlaps.log');
    makeData(data);
  });
  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('the instrumented stand-in fails when two environments step at once in one process (the check can fail)', () => {
    const script = [
      'import threading, json, os',
      'from alfworld.agents.environment.alfred_tw_env import ToyBatchEnv',
      `files = [os.path.join(os.environ["ALFWORLD_DATA"], "json_2.1.1", "valid_unseen", ${JSON.stringify(paperGames[0])}, "game.tw-pddl")]`,
      'envs = [ToyBatchEnv(files, 50) for _ in range(2)]',
      'errors = []',
      // Both threads call at once, and each call holds the stand-in for 0.5 s: they overlap even on a busy machine.
      'start = threading.Barrier(2)',
      'def run(e):',
      '    start.wait()',
      '    try:',
      '        e.reset(); e.step(["look"])',
      '    except RuntimeError as x:',
      '        errors.append(str(x))',
      'ts = [threading.Thread(target=run, args=(e,)) for e in envs]',
      '[t.start() for t in ts]; [t.join() for t in ts]',
      'print(json.dumps(errors))',
    ].join('\n');
    const r = spawnSync('python3', ['-c', script], {
      env: { ...envVars(), ALFWORLD_STANDIN_OVERLAP_LOG: '', ALFWORLD_STANDIN_STEP_DELAY: '0.5' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    const errors = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatch(/two environments step at once in process \d+/);
  });

  it('8 concurrent episodes over --workers 4 never step two environments in one process at once', async () => {
    const url = await startServer(['--workers', '4']);
    const before = await workers(url);
    expect(before).toHaveLength(4);
    expect(new Set(before.map((w) => w.pid)).size).toBe(4);
    const games = [0, 3, 5, 8, 13, 21, 34, 55];
    const answers = await Promise.all(games.map((g) => episode(url, g)));
    for (const [i, eps] of answers.entries()) {
      for (const a of eps) expect(a.error, `game ${games[i]}`).toBeUndefined();
      expect(eps[0].task_type).toBe(paperGames[games[i]]);
      expect(eps.at(-1)).toMatchObject({ observation: 'You win.', reward: 1, done: true });
    }
    expect(overlaps()).toEqual([]);
    const after = await workers(url);
    // Every worker served episodes (the least busy takes the next one): the work was spread.
    expect(after.map((w) => w.episodes).reduce((a, b) => a + b, 0)).toBe(8);
    expect(after.every((w) => w.episodes >= 1)).toBe(true);
    expect(after.every((w) => w.envs.length === 0)).toBe(true);
  });

  it('without --workers, concurrent episodes are served one call at a time (no overlap either)', async () => {
    const url = await startServer([]);
    const answers = await Promise.all([1, 2, 4, 6].map((g) => episode(url, g)));
    for (const eps of answers) for (const a of eps) expect(a.error).toBeUndefined();
    expect(overlaps()).toEqual([]);
  });

  it('a worker killed with SIGKILL is an error answer for its environment; the server keeps serving', async () => {
    const url = await startServer(['--workers', '2']);
    const { id } = await post(url, '/create', {});
    const reset = await post(url, '/reset', { id, game: 7, world_type: 'Text' });
    expect(reset.task_type).toBe(paperGames[7]);
    const holder = (await workers(url)).find((w) => w.envs.includes(id))!;
    process.kill(holder.pid, 'SIGKILL');
    const broken = await post(url, '/step', { id, action: 'look' });
    expect(broken.error).toMatch(new RegExp(`worker ${holder.index} \\(pid ${holder.pid}\\) died`));
    expect(broken.observation).toBeUndefined();
    // A replacement took its place; the server answers, the lost env can be reset, others play on.
    const now = await workers(url);
    expect(now).toHaveLength(2);
    expect(now.map((w) => w.pid)).not.toContain(holder.pid);
    expect(now.every((w) => w.alive)).toBe(true);
    const again = await post(url, '/reset', { id, game: 7, world_type: 'Text' });
    expect(again.error).toBeUndefined();
    expect((await post(url, '/step', { id, action: 'win the game' })).reward).toBe(1);
    const other = await episode(url, 9);
    for (const a of other) expect(a.error).toBeUndefined();
  });

  it('--recycle-after replaces a worker after that many episodes', async () => {
    const url = await startServer(['--workers', '1', '--recycle-after', '2']);
    const pids: number[] = [];
    for (const g of [0, 1, 2, 3]) {
      pids.push((await workers(url))[0].pid);
      for (const a of await episode(url, g)) expect(a.error).toBeUndefined();
    }
    // Episodes 1-2 on the first worker, 3-4 on its replacement.
    expect(pids[0]).toBe(pids[1]);
    expect(pids[2]).not.toBe(pids[0]);
    expect(pids[3]).toBe(pids[2]);
  });
});
