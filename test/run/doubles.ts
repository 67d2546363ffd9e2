// Doubles for runner tests: a small benchmark (HotpotQA-shaped, 30 items), a scripted method and a
// model, wired through RunDeps.
import type { CompletionModel, CompletionRequest, CompletionResult } from '../../src/llm/types.js';
import type { EpisodeResult, Method, MethodContext } from '../../src/methods/types.js';
import type { Benchmark, CompleteBenchmark, Item, Split } from '../../src/benchmarks/types.js';
import type { Settings } from '../../src/options.js';
import { InfraError, UserError } from '../../src/errors.js';
import type { RunDeps } from '../../src/run/execute.js';

export interface MethodScript {
  /** What the episode answers (default: correct for even indices). */
  answer?: (ex: Item) => string | null;
  /** Throw this for an item (InfraError, FatalRunError...). */
  fail?: (ex: Item) => Error | undefined;
  /** Milliseconds the episode takes (honours the abort signal). */
  delayMs?: number;
  samples?: (ex: Item) => (string | null)[];
  calls?: number;
}

const emOf = (pred: string | null, gold: string) => (pred != null && pred.trim().toLowerCase() === gold.toLowerCase() ? 1 : 0);

export function fakeMethod(name: string, script: MethodScript = {}): Method {
  return {
    name,
    needsEnv: name === 'react' || name === 'act',
    describe: () => ({ name, maxSteps: 'code' }),
    async run(ex: Item, ctx: MethodContext): Promise<EpisodeResult> {
      if (script.delayMs) {
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(resolve, script.delayMs);
          ctx.signal?.addEventListener('abort', () => {
            clearTimeout(t);
            reject(new Error('aborted'));
          });
        });
      }
      const res = await ctx.model.complete({
        prompt: `Question: ${ex.input}\n`,
        maxTokens: 100,
        temperature: 0,
        topP: 1,
        n: 1,
        frequencyPenalty: 0,
        presencePenalty: 0,
      });
      const failure = script.fail?.(ex);
      if (failure) throw failure;
      const answer = script.answer ? script.answer(ex) : ex.index % 2 === 0 ? ex.gold! : 'wrong';
      return {
        answer,
        traj: `Question: ${ex.input}\n${res.choices[0].text}`,
        steps: [{ step: 1, thought: 't', action: `Finish[${answer}]`, observation: 'Episode finished, reward = 0\n' }],
        n_calls: 1,
        n_badcalls: 0,
        ...(script.samples ? { extra: { samples: script.samples(ex), majority_votes: 1 } } : {}),
      };
    },
  };
}

export type FakeDeps = RunDeps & {
  models: ReturnType<typeof fakeModel>[];
  /** The benchmark's method factory (tests may wrap it). */
  createMethod: (name: string, settings: Settings) => Method;
};

export function fakeBenchmark(name: string, deps: Pick<FakeDeps, 'createMethod'>, size = 30): CompleteBenchmark<Settings> {
  const item = (i: number): Item => {
    if (!Number.isInteger(i) || i < 0 || i >= size) throw new UserError(`${name}: index ${i} is out of range`);
    return { index: i, id: `question ${i}?`, input: `question ${i}?`, gold: `answer${i}` };
  };
  // "offline500"/"react500": a fixed pseudo-shuffle of the items; "dev": all, in order.
  const order = Array.from({ length: size }, (_, i) => (i * 7 + 3) % size);
  const split = (s: string, opts: { limit?: number } = {}): Split => {
    let indices: number[];
    if (s === 'dev') indices = Array.from({ length: size }, (_, i) => i);
    else if (s === 'offline500' || s === 'react500') indices = order.slice(0, 20);
    else throw new UserError(`--split: unknown split "${s}" for ${name}`);
    if (opts.limit !== undefined) {
      if (!Number.isInteger(opts.limit) || opts.limit < 1) throw new UserError(`--limit: expected a positive integer, got ${opts.limit}`);
      indices = indices.slice(0, opts.limit);
    }
    return { benchmark: name, name: s, description: `fake ${s}`, indices };
  };
  return {
    name,
    title: name,
    describe: 'fake benchmark for runner tests',
    metrics: [
      { key: 'em', label: 'EM' },
      { key: 'f1', label: 'F1' },
    ],
    options: {},
    size: () => size,
    item,
    splitNames: () => ['dev', 'offline500', 'react500'],
    defaultSplit: name === 'fever' ? 'react500' : 'offline500',
    split,
    itemRefKey: 'index',
    itemByRef: (ref) => item(Number(ref)),
    methods: ['standard', 'cot', 'cot-sc', 'act', 'react'],
    defaultMethod: 'react',
    finetuneMethods: [],
    createMethod: (m, settings) => deps.createMethod(m, settings),
    createEnv: async () => ({
      makeEnv: () => ({
        reset: async () => ({ observation: 'obs', info: {} }),
        step: async () => {
          throw new InfraError('unused', 'env');
        },
      }),
      describe: () => ({ kind: 'snapshot', sha256: 'abc' }),
    }),
    observe: (_a, s) => s.observation,
    score: (it, r) => {
      const em = emOf(r.answer, it.gold ?? '');
      return { em, f1: em };
    },
    inputFiles: () => ['prompts/prompts_naive.json', 'data/hotpotqa/hotpot_dev_v1_simplified.json'],
    reportTables: () => [],
  };
}

export function fakeModel(name = 'fake-model'): CompletionModel & { calls: number } {
  const m = {
    model: name,
    calls: 0,
    describe: () => ({ backend: 'fake', model: name, baseURL: 'http://127.0.0.1:1/v1', api: 'completions', rpm: 60 }),
    async complete(_req: CompletionRequest): Promise<CompletionResult> {
      m.calls++;
      return {
        choices: [{ index: 0, text: 'ok', finishReason: 'stop' }],
        usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 },
        costUsd: 0.001,
        cachedChoices: 0,
        latencyMs: 1,
      };
    },
  };
  return m;
}

export function fakeDeps(script: MethodScript = {}, opts: { secrets?: string[] } = {}): FakeDeps {
  const models: ReturnType<typeof fakeModel>[] = [];
  const benches = new Map<string, Benchmark>();
  const deps: FakeDeps = {
    models,
    createMethod: (name) => fakeMethod(name, script),
    getBenchmark: (name) => {
      if (name !== 'hotpotqa' && name !== 'fever') throw new UserError(`--task: unknown benchmark ${name}`);
      let b = benches.get(name);
      if (!b) benches.set(name, (b = fakeBenchmark(name, deps)));
      return b;
    },
    createModel: async (run) => {
      const m = fakeModel(String(run.settings.model ?? 'fake-model'));
      models.push(m);
      return { backend: m };
    },
    secrets: () => opts.secrets ?? [],
  };
  return deps;
}

export const quietIO = () => {
  const lines: string[] = [];
  return { lines, io: { progress: { write: (s: string) => void lines.push(s), isTTY: false }, log: (l: string) => void lines.push(l) } };
};
