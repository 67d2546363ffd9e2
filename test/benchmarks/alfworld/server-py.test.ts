// envs/alfworld/server.py against the stand-in alfworld package (envs/alfworld/standin, on PYTHONPATH):
// it refuses to start without exactly the paper's 134 games or with another alfworld version, speaks
// the agentenv-alfworld protocol with the notebook's clean-ups, and serves the adapter end to end.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlfworldBenchmark, createAlfworldEnvHandle } from '../../../src/benchmarks/alfworld/index.js';
import { resolveEnvSettings } from '../../../src/benchmarks/alfworld/options.js';
import { gamesSha256 } from '../../../src/benchmarks/alfworld/games.js';
import { UserError } from '../../../src/errors.js';
import { ScriptedModel } from '../../support/scripted-model.js';
import { openings, paperGames } from '../../servers/alfworld-server.js';

const repo = path.resolve(__dirname, '../../..');
const SERVER = path.join(repo, 'envs/alfworld/server.py');
const STANDIN = path.join(repo, 'envs/alfworld/standin');
const hasPython = spawnSync('python3', ['--version']).status === 0;

/** A stand-in ALFWORLD_DATA tree: one folder per game, as alfworld-download lays them out. */
function makeData(root: string, opts: { dropSolvable?: string } = {}): void {
  for (const name of paperGames) {
    const dir = path.join(root, 'json_2.1.1', 'valid_unseen', ...name.split('/'));
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'traj_data.json'), JSON.stringify({ task_type: name.split('-')[0] }));
    const game: Record<string, unknown> = { standin: { opening: openings.get(name), win: 'win the game' } };
    if (name !== opts.dropSolvable) game.solvable = true;
    fs.writeFileSync(path.join(dir, 'game.tw-pddl'), JSON.stringify(game));
  }
}

interface Started {
  child: ChildProcess;
  url: string;
  stdout: string;
}

function env(data: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, PYTHONPATH: STANDIN, ALFWORLD_DATA: data, PYTHONDONTWRITEBYTECODE: '1', ...extra };
}

/** Starts server.py on a free port; resolves when it prints its address. */
function startServer(data: string, args: string[] = []): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [SERVER, '--port', '0', ...args], { env: env(data), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => {
      stdout += d;
      const m = /listening on (http:\/\/\S+)/.exec(stdout);
      if (m) resolve({ child, url: m[1], stdout });
    });
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('exit', (code) => reject(new Error(`server.py exited with ${code} before listening:\n${stdout}\n${stderr}`)));
  });
}

function runToExit(data: string, extra: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('python3', [SERVER, '--port', '0'], { env: env(data, extra), encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function post(url: string, route: string, body: unknown): Promise<any> {
  const r = await fetch(url + route, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  expect(r.status).toBe(200);
  return r.json();
}

describe.skipIf(!hasPython)(
  `envs/alfworld/server.py with the stand-in alfworld${hasPython ? '' : ' (skipped: python3 not found on PATH)'}`,
  () => {
    let tmp: string;
    let data: string;
    let clean: Started;
    let raw: Started;
    beforeAll(async () => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'alfworld-py-'));
      data = path.join(tmp, 'data');
      makeData(data);
      [clean, raw] = await Promise.all([startServer(data), startServer(data, ['--observations', 'raw', '--max-steps', '3'])]);
    });
    afterAll(() => {
      clean?.child.kill();
      raw?.child.kill();
      fs.rmSync(tmp, { recursive: true, force: true });
    });

    it('starts with the 134 games and prints the count per task type; GET /info describes it', async () => {
      expect(clean.stdout).toContain(
        'alfworld 0.3.3: 134 games of valid_unseen (put 24, clean 31, heat 23, cool 21, examine 18, puttwo 17)',
      );
      const info = await (await fetch(clean.url + '/info')).json();
      expect(info).toMatchObject({
        alfworld_version: '0.3.3',
        n_games: 134,
        games_sha256: gamesSha256(paperGames),
        task_type_counts: { put: 24, clean: 31, heat: 23, cool: 21, examine: 18, puttwo: 17 },
        observations: 'clean',
        max_steps: 50,
      });
      expect(await (await fetch(clean.url + '/')).json()).toBe('This is environment AlfWorld.');
      const nf = await fetch(clean.url + '/nowhere');
      expect(nf.status).toBe(404);
    });

    it('create / reset / step / detail / close, with the notebook\'s clean-ups and {"error"} bodies', async () => {
      const { id } = await post(clean.url, '/create', {});
      expect(Number.isInteger(id)).toBe(true);
      const r = await post(clean.url, '/reset', { id, game: 30, world_type: 'Text' });
      expect(r.task_type).toBe(paperGames[30]);
      expect(r.observation).toBe(openings.get(paperGames[30])!.split('\n\n').join('\n'));
      expect(r.available_actions).toContain('look');
      const s1 = await post(clean.url, '/step', { id, action: 'go to desk 1' });
      expect(s1).toMatchObject({ observation: 'On the desk 1, you see nothing.', reward: 0, done: false });
      const s2 = await post(clean.url, '/step', { id, action: 'win the game' });
      expect(s2).toMatchObject({ observation: 'You win.', reward: 1, done: true });
      expect((await post(clean.url, '/step', { id, action: 'look' })).error).toMatch(/has finished/);
      const detail = await (await fetch(`${clean.url}/detail?id=${id}`)).json();
      expect(detail).toMatchObject({ game: 30, done: true, reward: 1, deleted: false });
      expect(await post(clean.url, '/close', { id })).toEqual({ id, closed: true });
      expect((await post(clean.url, '/reset', { id, game: 0, world_type: 'Text' })).error).toMatch(/deleted/);
      expect((await post(clean.url, '/reset', { id: 999, game: 0, world_type: 'Text' })).error).toMatch(/not valid/);
      const { id: id2 } = await post(clean.url, '/create', {});
      expect((await post(clean.url, '/reset', { id: id2, game: 134, world_type: 'Text' })).error).toMatch(/0\.\.133/);
      expect((await post(clean.url, '/reset', { id: id2, game: 0, world_type: 'Embody' })).error).toMatch(/Text/);
      const bad = await fetch(clean.url + '/step', { method: 'POST', body: '{"id": "x"}' });
      expect(bad.status).toBe(422);
    });

    it('raw text and the step limit: done without won', async () => {
      const { id } = await post(raw.url, '/create', {});
      const r = await post(raw.url, '/reset', { id, game: 0, world_type: 'Text' });
      expect(r.observation).toBe('-= Welcome to TextWorld, ALFRED! =-\n\n' + openings.get(paperGames[0]));
      expect((await post(raw.url, '/step', { id, action: 'go to desk 1' })).observation).toBe(
        'You arrive at loc 1. On the desk 1, you see nothing.',
      );
      await post(raw.url, '/step', { id, action: 'look' });
      expect(await post(raw.url, '/step', { id, action: 'look' })).toMatchObject({ reward: 0, done: true });
    });

    it('serves the adapter end to end: check() against /info, one episode won, env closed', async () => {
      const bench = createAlfworldBenchmark();
      const handle = createAlfworldEnvHandle(resolveEnvSettings({ envUrl: clean.url }));
      await handle.check!();
      expect(handle.describe().server).toMatchObject({ alfworld_version: '0.3.3', games_sha256: gamesSha256(paperGames) });
      const item = bench.item(12);
      const result = await bench
        .createMethod('react', bench.parseOptions({}))
        .run(item, { model: ScriptedModel.sequence([' go to desk 1', ' think: now win', ' win the game']), makeEnv: handle.makeEnv });
      expect(bench.score(item, result)).toEqual({ success: 1 });
      expect(
        result.traj.endsWith(
          openings.get(paperGames[12])!.split('\n\n').join('\n') +
            '\n> go to desk 1\nOn the desk 1, you see nothing.\n> think: now win\nOK.\n> win the game\nYou win.\n>',
        ),
      ).toBe(true);
      // The raw server is refused in clean mode, and plays in raw mode.
      const mismatch = await createAlfworldEnvHandle(resolveEnvSettings({ envUrl: raw.url })).check!().catch((e) => e);
      expect(mismatch).toBeInstanceOf(UserError);
      const rawHandle = createAlfworldEnvHandle(resolveEnvSettings({ envUrl: raw.url, alfworldObs: 'raw' }));
      await rawHandle.check!();
      const r2 = await bench
        .createMethod('act', bench.parseOptions({}))
        .run(item, { model: ScriptedModel.sequence([' go to desk 1', ' win the game']), makeEnv: rawHandle.makeEnv });
      expect(r2.steps.map((s) => s.observation)).toEqual(['On the desk 1, you see nothing.', 'You win.']);
      expect(bench.score(item, r2)).toEqual({ success: 1 });
    });

    it('refuses to start when a game file lacks "solvable" (133 games: alfworld issue 98)', () => {
      const d2 = path.join(tmp, 'data133');
      makeData(d2, { dropSolvable: paperGames[40] });
      const r = runToExit(d2);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain('refusing to start: found 133 games');
      expect(r.stderr).toContain(`missing (1): ${paperGames[40]}`);
      expect(r.stderr).toContain('issue 98');
      expect(r.stdout).not.toContain('listening on');
    });

    it('refuses to start with an extra game, and with another alfworld version', () => {
      const d3 = path.join(tmp, 'data135');
      makeData(d3);
      const extra = path.join(d3, 'json_2.1.1', 'valid_unseen', 'pick_and_place_simple-Pen-None-Desk-999', 'trial_T0');
      fs.mkdirSync(extra, { recursive: true });
      fs.writeFileSync(path.join(extra, 'traj_data.json'), JSON.stringify({ task_type: 'pick_and_place_simple' }));
      fs.writeFileSync(path.join(extra, 'game.tw-pddl'), JSON.stringify({ solvable: true, standin: { opening: 'x\n\ny', win: 'w' } }));
      const r = runToExit(d3);
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain('found 135 games');
      expect(r.stderr).toContain('unexpected (1): pick_and_place_simple-Pen-None-Desk-999/trial_T0');

      const v = runToExit(data, { ALFWORLD_STANDIN_VERSION: '0.4.0' });
      expect(v.status).not.toBe(0);
      expect(v.stderr).toContain("alfworld 0.4.0 is installed, the paper's prompts need 0.3.3");
    });
  },
);
