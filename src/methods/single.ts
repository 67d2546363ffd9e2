// Standard and CoT (§4): one greedy completion of exemplars + question line + cue; the answer is the
// first line after the last "Answer:" (parseQaAnswer). The released code has no runner for these:
// the framing (prefix, separator, cue, stop) is ours, explicit in prompts/framings.json.
import type { Example, TaskName } from '../tasks/types.js';
import type { EpisodeOutcome, Method, MethodContext } from './types.js';
import { PAPER_SAMPLING } from '../llm/types.js';
import { CallLedger, greedyRequest } from './episode.js';
import type { ResolvedMethodOptions } from './options.js';
import { buildTaskPrompts, getFraming, parseQaAnswer, qaPrompt, type MethodPrompt, type PromptLibrary } from './prompts.js';
import { checkTask, describePrompts } from './describe.js';

export class SingleCompletionMethod implements Method {
  readonly needsEnv = false;
  private readonly prompts: Record<TaskName, MethodPrompt>;
  private readonly framingName: string;

  constructor(
    readonly name: 'standard' | 'cot',
    private readonly opts: ResolvedMethodOptions,
    lib: PromptLibrary,
  ) {
    this.framingName = getFraming(lib, opts.framing).name;
    this.prompts = buildTaskPrompts(lib, name, this.framingName);
  }

  describe(): Record<string, unknown> {
    return {
      method: this.name,
      framing: this.framingName,
      sampling: { ...PAPER_SAMPLING },
      answer: 'first line after the last "Answer:" in cue + completion, Python-stripped; none -> null',
      prompts: describePrompts(this.prompts, this.opts.task),
    };
  }

  async run(example: Example, ctx: MethodContext): Promise<EpisodeOutcome> {
    checkTask(this.opts.task, ctx.task.name, this.name);
    const p = this.prompts[ctx.task.name];
    const prompt = qaPrompt(p, ctx.task.observationLabel, example.question);
    const ledger = new CallLedger(ctx.model, ctx.signal);
    const [choice] = await ledger.complete(greedyRequest(prompt, p.stop!));
    const answer = parseQaAnswer(p.cue + choice.text);
    const score = ctx.task.score(answer, example.answer);
    return {
      answer,
      em: score.em,
      f1: score.f1,
      reward: score.reward,
      traj: prompt + choice.text,
      steps: [],
      n_calls: ledger.calls,
      n_badcalls: 0,
      usage: ledger.usage,
      costUsd: ledger.costUsd,
    };
  }
}
