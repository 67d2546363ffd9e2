// Test adapter: the QA methods as the 0.1 tests called them (createMethod(name, options).run(example,
// {model, task, makeEnv})), returning the episode together with its score. It builds the real
// method for the task given at run time and scores with that task, as Benchmark.score does.
import { createMethod as createQaMethod } from '../../../src/benchmarks/qa/methods/index.js';
import type { MethodOptions } from '../../../src/benchmarks/qa/methods/options.js';
import { qaItem } from '../../../src/benchmarks/qa/benchmark.js';
import type { Example, Task, TaskName } from '../../../src/benchmarks/qa/types.js';
import type { QATask } from '../../../src/benchmarks/qa/base.js';
import { createHotpotQATask } from '../../../src/benchmarks/hotpotqa/data.js';
import { createFeverTask } from '../../../src/benchmarks/fever/data.js';
import { UserError } from '../../../src/errors.js';
import { chain } from '../../../src/llm/layer.js';
import { EpisodeMeter } from '../../../src/run/meter.js';
import { meteringLayer } from '../../../src/run/model-chain.js';
import type { Env } from '../../../src/envs/types.js';
import type { Item } from '../../../src/benchmarks/types.js';
import type { CompletionModel, TokenUsage } from '../../../src/llm/types.js';
import type { StepRecord } from '../../../src/methods/types.js';

export interface Outcome {
  answer: string | null;
  em: number;
  f1: number;
  reward: number;
  traj: string;
  steps: StepRecord[];
  n_calls: number;
  n_badcalls: number;
  usage: TokenUsage;
  costUsd: number;
  samples?: (string | null)[];
  completions?: string[];
  majorityVotes?: number;
  forcedFinish?: boolean;
}

export interface TestContext {
  model: CompletionModel;
  task: Task;
  makeEnv?: (item: Item) => Env;
  signal?: AbortSignal;
}

export function createMethod(name: string, options: MethodOptions = {}) {
  const forTask = (task: Pick<Task, 'name' | 'observationLabel'>) => createQaMethod(name, task, options);
  // Validate now (bad options throw at creation, as before).
  const probe = forTask({ name: options.task ?? 'hotpotqa', observationLabel: 'Question' });
  return {
    name,
    describe: () => probe.describe(),
    async run(ex: Example, ctx: TestContext): Promise<Outcome> {
      const m = forTask(ctx.task);
      const item = qaItem(ex);
      // The tokens and cost are the meter's, as in a run (src/run/model-chain.ts).
      const meter = new EpisodeMeter();
      const r = await m.run(item, { model: chain(ctx.model, [meteringLayer(meter)]), makeEnv: ctx.makeEnv, signal: ctx.signal });
      const s = ctx.task.score(r.answer, ex.answer);
      const x = r.extra ?? {};
      const out: Outcome = {
        answer: r.answer,
        em: s.em,
        f1: s.f1,
        reward: r.reward ?? s.reward,
        traj: r.traj,
        steps: r.steps,
        n_calls: r.n_calls,
        n_badcalls: r.n_badcalls,
        usage: meter.attempt.usage,
        costUsd: meter.attempt.costUsd,
      };
      if (x.samples) out.samples = x.samples as (string | null)[];
      if (x.completions) out.completions = x.completions as string[];
      if (x.majority_votes !== undefined) out.majorityVotes = x.majority_votes as number;
      if (x.forced_finish !== undefined) out.forcedFinish = x.forced_finish as boolean;
      return out;
    },
  };
}

const tasks = new Map<TaskName, QATask>();
export const taskNames: TaskName[] = ['hotpotqa', 'fever'];

/** The real HotpotQA/FEVER task (vendored data), once per test file. */
export function getTask(name: string): QATask {
  if (name !== 'hotpotqa' && name !== 'fever') throw new UserError(`unknown task "${name}"; known tasks: ${taskNames.join(', ')}`);
  let t = tasks.get(name);
  if (!t) tasks.set(name, (t = name === 'hotpotqa' ? createHotpotQATask() : createFeverTask()));
  return t;
}

export {
  combine,
  cotScThenReact,
  majorityTrusted,
  reactThenCotSc,
  cotScAtN,
  combinationCliOptions,
  methodCliOptions,
  methodOptionsFromArgv,
  parseMajorityRule,
} from '../../../src/benchmarks/qa/methods/index.js';
