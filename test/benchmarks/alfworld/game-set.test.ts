// --games FILE with other games than the paper's 134: the file's games are the run's items (a split
// named after the file, recorded with its sha256); without it, or with a file of the paper's 134 in a
// server's order, the benchmark is the paper's, unchanged.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer, type ServerCompletionRequest } from '../../servers/openai-server.js';
import { openings, paperGames, solution, startAlfworldServer, type AlfworldServer } from '../../servers/alfworld-server.js';
import { readLines, runCli, runDirs } from '../../run/cli-helpers.js';
import { createAlfworldBenchmark } from '../../../src/benchmarks/alfworld/index.js';

const TASK_HEADER = '\nHere is the task.\n';
function householdModel(req: ServerCompletionRequest): string {
  const task = req.prompt.slice(req.prompt.lastIndexOf(TASK_HEADER) + TASK_HEADER.length);
  const [room, goal] = task.split('\n');
  const name = [...openings].find(([, o]) => o === `${room}\n\n${goal}`)?.[0];
  if (!name) return ' look\n';
  return ` ${solution(name)[task.split('\n>').length - 2] ?? 'look'}\n`;
}

// A game of another set (AgentGym's valid_train names look the same), in the world of paper game 21.
const EXTRA = 'pick_and_place_simple-Pencil-None-Shelf-999/trial_T20990101_000000_000001';
const FILE_GAMES = [paperGames[7], EXTRA, paperGames[2]];

let tmp: string;
let llm: OpenAIServer;
let house: AlfworldServer;
let file: string;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'alfworld-games-'));
  llm = await startOpenAIServer({ respond: householdModel });
  house = await startAlfworldServer({ games: FILE_GAMES, info: 'auto', extraOpenings: new Map([[EXTRA, openings.get(paperGames[21])!]]) });
  file = path.join(tmp, 'valid_train_mini.json');
  fs.writeFileSync(file, JSON.stringify(FILE_GAMES));
});
afterAll(async () => {
  await llm.close();
  await house.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('--games FILE as the item set', () => {
  it("runs the file's games, in its order, as a split named after it with its sha256", async () => {
    const results = path.join(tmp, 'results');
    const r = await runCli(
      [
        'run',
        '--task',
        'alfworld',
        '--method',
        'react',
        '--env-url',
        house.url,
        '--games',
        file,
        '--base-url',
        llm.baseURL,
        '--model',
        'test-model',
        '--cache',
        'off',
        '--results-dir',
        results,
      ],
      { cwd: tmp },
    );
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    const [dir] = runDirs(results);
    expect(dir).toMatch(/^alfworld-react-valid_train_mini-test-model-/);
    const m = JSON.parse(fs.readFileSync(path.join(results, dir, 'manifest.json'), 'utf8'));
    const sha = createHash('sha256').update(FILE_GAMES.join('\n')).digest('hex');
    expect(m.split).toBe('valid_train_mini');
    expect(m.indices).toEqual([7, 134, 2]);
    expect(m.split_description).toContain(`sha256 ${sha}`);
    expect(m.environment.games).toEqual({ vendored: false, n: 3, sha256: sha });
    const eps = readLines(path.join(results, dir, 'episodes.jsonl')).sort((a, b) => a.idx - b.idx);
    expect(eps.map((e) => [e.idx, e.item, e.game_id, e.task_type, e.metrics.success])).toEqual([
      [2, paperGames[2], 2, 'examine', 1],
      [7, paperGames[7], 0, 'examine', 1],
      [134, EXTRA, 1, 'put', 1],
    ]);
  });

  it('without --games, or with the paper games in a server order, the benchmark is the paper one', () => {
    const b = createAlfworldBenchmark();
    expect(b.forSettings!(b.parseOptions({}))).toBe(b);
    const reordered = path.join(tmp, 'served.json');
    fs.writeFileSync(reordered, JSON.stringify([...paperGames].reverse()));
    expect(b.forSettings!(b.parseOptions({ games: reordered }))).toBe(b);
    const v = b.forSettings!(b.parseOptions({ games: file }));
    expect(v.size()).toBe(135);
    expect(v.item(134).id).toBe(EXTRA);
    expect(v.splitNames()).toEqual(['valid_train_mini', 'valid_unseen']);
    expect(v.split('valid_unseen').indices).toHaveLength(134);
    expect(v.split('valid_train_mini', { limit: 2 }).indices).toEqual([7, 134]);
  });

  it('a game without a known task-type prefix: one line naming the file and the game', () => {
    const bad = path.join(tmp, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify(['make_coffee-Mug-1/trial_1']));
    const b = createAlfworldBenchmark();
    expect(() => b.forSettings!(b.parseOptions({ games: bad }))).toThrow(
      /--games .*bad\.json: game "make_coffee-Mug-1\/trial_1" has no known task-type prefix/,
    );
  });
});
