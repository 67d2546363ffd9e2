// Doubles for runner tests: a small task, a scripted method and a model, wired through RunDeps.
import type { CompletionModel, CompletionRequest, CompletionResult } from '../../src/llm/types.js';
import type { EpisodeOutcome, Method, MethodContext, MethodName } from '../../src/methods/types.js';
import type { Example, Split, Task, TaskName } from '../../src/tasks/types.js';
import { InfraError, UserError } from '../../src/errors.js';
import type { RunDeps } from '../../src/run/execute.js';

export function fakeTask(name: TaskName = 'hotpotqa', size = 30): Task {
  const example = (i: number): Example => ({ index: i, question: `question ${i}?`, answer: `answer${i}` });
  // "offline500"/"react500": a fixed pseudo-shuffle of the dataset; "dev": all, in order.
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
    return { task: name, name: s, description: `fake ${s}`, indices };
  };
  return {
    name,
    observationLabel: name === 'fever' ? 'Claim' : 'Question',
    size,
    example,
    splitNames: () => ['dev', 'offline500', 'react500'],
    split,
    score: (pred, gold) => {
      const em = pred != null && pred.trim().toLowerCase() === gold.toLowerCase() ? 1 : 0;
      return { em, f1: em, reward: em };
    },
  };
}

export interface MethodScript {
  /** What the episode answers (default: correct for even indices). */
  answer?: (ex: Example) => string | null;
  /** Throw this for an example (InfraError, FatalRunError...). */
  fail?: (ex: Example) => Error | undefined;
  /** Milliseconds the episode takes (honours the abort signal). */
  delayMs?: number;
  samples?: (ex: Example) => (string | null)[];
  calls?: number;
}

export function fakeMethod(name: MethodName, task: Task, script: MethodScript = {}): Method {
  return {
    name,
    needsEnv: name === 'react' || name === 'act',
    describe: () => ({ name, maxSteps: 'code' }),
    async run(ex: Example, ctx: MethodContext): Promise<EpisodeOutcome> {
      if (script.delayMs) {
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(resolve, script.delayMs);
          ctx.signal?.addEventListener('abort', () => {
            clearTimeout(t);
            reject(new Error('aborted'));
          });
        });
      }
      const res = await ctx.model.complete({ prompt: `Question: ${ex.question}\n`, maxTokens: 100, temperature: 0, topP: 1, n: 1, frequencyPenalty: 0, presencePenalty: 0 });
      const failure = script.fail?.(ex);
      if (failure) throw failure;
      const answer = script.answer ? script.answer(ex) : ex.index % 2 === 0 ? ex.answer : 'wrong';
      const s = task.score(answer, ex.answer);
      return {
        answer,
        ...s,
        traj: `Question: ${ex.question}\n${res.choices[0].text}`,
        steps: [{ step: 1, thought: 't', action: `Finish[${answer}]`, observation: 'Episode finished, reward = 0\n' }],
        n_calls: 1,
        n_badcalls: 0,
        usage: res.usage,
        costUsd: res.costUsd,
        ...(script.samples ? { samples: script.samples(ex), majorityVotes: 1 } : {}),
      };
    },
  };
}

export function fakeModel(name = 'fake-model'): CompletionModel & { calls: number } {
  const m = {
    model: name,
    calls: 0,
    describe: () => ({ backend: 'fake', model: name, baseURL: 'http://127.0.0.1:1/v1', api: 'completions', rpm: 60 }),
    async complete(_req: CompletionRequest): Promise<CompletionResult> {
      m.calls++;
      return { choices: [{ index: 0, text: 'ok', finishReason: 'stop' }], usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 }, costUsd: 0.001, cachedChoices: 0, latencyMs: 1 };
    },
  };
  return m;
}

export function fakeDeps(script: MethodScript = {}, opts: { secrets?: string[] } = {}): RunDeps & { models: ReturnType<typeof fakeModel>[] } {
  const models: ReturnType<typeof fakeModel>[] = [];
  return {
    models,
    getTask: (name) => {
      if (name !== 'hotpotqa' && name !== 'fever') throw new UserError(`--task: unknown task ${name}`);
      return fakeTask(name);
    },
    createMethod: (name, _settings, task) => fakeMethod(name, task, script),
    createModel: async (settings) => {
      const m = fakeModel(String(settings.model ?? 'fake-model'));
      models.push(m);
      return m;
    },
    createEnvFactory: async () => ({
      makeEnv: () => ({
        reset: async () => 'obs',
        step: async () => {
          throw new InfraError('unused', 'env');
        },
      }),
      describe: () => ({ kind: 'snapshot', sha256: 'abc' }),
    }),
    secrets: () => opts.secrets ?? [],
  };
}

export const quietIO = () => {
  const lines: string[] = [];
  return { lines, io: { progress: { write: (s: string) => void lines.push(s), isTTY: false }, log: (l: string) => void lines.push(l) } };
};
