// The toy benchmark of docs/adding-a-benchmark.md as a real test: a tiny benchmark defined and
// registered in this file only (nine required members), run end to end through the CLI's own
// main() in this process: `run`, `report`, `env play`, `--resume`. Nothing outside this file knows it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { registerBenchmark } from '../../src/benchmarks/registry.js';
import type { BenchmarkDefinition, Item } from '../../src/benchmarks/types.js';
import type { Env, StepResult } from '../../src/envs/types.js';
import { InteractiveMethod, type LoopDefinition } from '../../src/methods/interactive.js';
import { main } from '../../src/cli/main.js';
import { UserError } from '../../src/errors.js';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';

// ---- the benchmark: count the letters of a word, by asking a letter-counting environment ----

const WORDS = ['react', 'act', 'reason', 'tool', 'agent'];

/** The environment: "count[w]" answers the count; "answer[n]" ends the episode, reward 1 when right. */
class LetterEnv implements Env {
  constructor(private readonly word: string) {}
  async reset() {
    return { observation: `Word: ${this.word}`, info: {} };
  }
  async step(action: string): Promise<StepResult> {
    const count = /^count\[(.*)\]$/.exec(action);
    if (count) return { observation: `${count[1]} has ${count[1].length} letters`, reward: 0, done: false, info: {} };
    const answer = /^answer\[(.*)\]$/.exec(action);
    if (answer) {
      const right = answer[1] === String(this.word.length);
      return { observation: right ? 'Right.' : 'Wrong.', reward: right ? 1 : 0, done: true, info: { answer: answer[1] } };
    }
    return { observation: 'Invalid action!', reward: 0, done: false, info: {} };
  }
}

const toyLoop =
  (maxTurns: number) =>
  (item: Item): LoopDefinition => ({
    name: 'act',
    loop: 'toy act loop',
    stop: { action: ['\n'] },
    head: 'Count the letters of the word, then answer.\n',
    maxTurns,
    opening: (reset) => `${reset.observation}\n>`,
    turn: async ({ prompt, ledger }) => ({ action: (await ledger.llm(prompt, ['\n'])).trim() }),
    observe: (_action, step) => step.observation,
    stepText: (_i, turn, obs) => ` ${turn.action}\n${obs}\n>`,
    recordReset: () => ({ word: item.input }),
  });

/** The toy's own options, parsed once per run from its flags (--toy-turns). */
interface ToyOptions {
  maxTurns: number;
}

const toy: BenchmarkDefinition<ToyOptions> = {
  name: 'toy',
  metrics: [{ key: 'correct', label: 'Correct' }],
  options: { 'toy-turns': { type: 'number', default: 4, describe: 'Model turns per episode at most' } },
  parseOptions: (settings) => {
    const n = settings.toyTurns ?? 4;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1)
      throw new UserError(`--toy-turns: expected a positive integer, got ${JSON.stringify(n)}`);
    return { maxTurns: n };
  },
  size: () => WORDS.length,
  item: (index) => ({ index, id: WORDS[index], input: WORDS[index], gold: String(WORDS[index].length) }),
  score: (_item, result) => ({ correct: result.done && result.reward === 1 ? 1 : 0 }),
  methods: ['act'],
  createMethod: (name, options) =>
    new InteractiveMethod(toyLoop(options.maxTurns), name, { loop: 'toy act loop', maxTurns: options.maxTurns }),
  createEnv: async () => ({ makeEnv: (item) => new LetterEnv(item.input), describe: () => ({ backend: 'in-process letter counter' }) }),
};
registerBenchmark('toy', () => toy);

// ---- running the CLI in this process ----

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((s: string | Uint8Array) => ((stdout += String(s)), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string | Uint8Array) => ((stderr += String(s)), true)) as typeof process.stderr.write;
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    process.exitCode = undefined;
  }
}

let tmp: string;
let srv: OpenAIServer;
const savedCache = process.env.REACT_REPRO_CACHE_DIR;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toy-'));
  process.env.REACT_REPRO_CACHE_DIR = path.join(tmp, 'cache');
  // A model that counts first, then answers with the count the environment gave (wrong for "tool").
  srv = await startOpenAIServer({
    respond: (req) => {
      const word = /Word: (\w+)\n>$/.exec(req.prompt)?.[1];
      if (word) return `count[${word}]`;
      const n = /has (\d+) letters\n>$/.exec(req.prompt)?.[1];
      return n ? `answer[${req.prompt.includes('Word: tool') ? 5 : n}]` : 'answer[0]';
    },
  });
});
afterAll(async () => {
  await srv.close();
  if (savedCache === undefined) delete process.env.REACT_REPRO_CACHE_DIR;
  else process.env.REACT_REPRO_CACHE_DIR = savedCache;
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('a toy benchmark registered in a test', () => {
  const results = () => path.join(tmp, 'results');
  const model = () => ['--base-url', srv.baseURL, '--model', 'test-model'];

  it('runs through the CLI: scored, recorded, summarised', async () => {
    const r = await cli(['run', '--task', 'toy', '--concurrency', '1', ...model(), '--results-dir', results()]);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^toy-act-all-test-model-\S+: 5\/5 episodes, Correct 80\.0, errors 0, /m);
    const [dir] = fs.readdirSync(results());
    const lines = fs
      .readFileSync(path.join(results(), dir, 'episodes.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.item, l.metrics.correct, l.word])).toEqual([
      ['react', 1, 'react'],
      ['act', 1, 'act'],
      ['reason', 1, 'reason'],
      ['tool', 0, 'tool'],
      ['agent', 1, 'agent'],
    ]);
    expect(lines[0].traj).toBe(
      'Count the letters of the word, then answer.\nWord: react\n> count[react]\nreact has 5 letters\n> answer[5]\nRight.\n>',
    );
    const manifest = JSON.parse(fs.readFileSync(path.join(results(), dir, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ task: 'toy', method: 'act', split: 'all', environment: { backend: 'in-process letter counter' } });
  });

  it('refuses a bad value of its own flag once, naming it, before anything is written', async () => {
    const r = await cli(['run', '--task', 'toy', '--toy-turns', '0', ...model(), '--results-dir', path.join(tmp, 'refused')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--toy-turns: expected a positive integer, got 0/);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(fs.existsSync(path.join(tmp, 'refused'))).toBe(false);
  });

  it('resumes: a second run of the same settings finds everything recorded and calls nothing', async () => {
    const before = srv.completionRequests().length;
    const r = await cli(['run', '--task', 'toy', ...model(), '--results-dir', results()]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/resuming toy-act-all-test-model-\S+: 5 of 5 episodes already recorded/);
    expect(srv.completionRequests().length).toBe(before);
  });

  it('reports: the Runs table shows the toy run with its metric', async () => {
    const r = await cli(['report', results()]);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('toy');
    expect(r.stdout).toMatch(/80\.0/);
  });

  it("env play steps its environment with the benchmark's observe()", async () => {
    const scripts = path.join(tmp, 'play.json');
    fs.writeFileSync(scripts, JSON.stringify([{ id: 'a', index: 3, actions: ['reset', 'count[tool]', 'answer[4]'] }]));
    const r = await cli(['env', 'play', '--task', 'toy', '--scripts', scripts]);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      id: 'a',
      steps: [
        { action: 'reset', observation: 'Word: tool', reward: 0, done: false },
        { action: 'count[tool]', observation: 'tool has 4 letters', reward: 0, done: false },
        { action: 'answer[4]', observation: 'Right.', reward: 1, done: true },
      ],
    });
  });
});
