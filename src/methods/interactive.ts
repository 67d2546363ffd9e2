// The released webthink loop (§4) shared by ReAct and Act: reset, up to maxSteps model turns each
// followed by one environment step, then a forced finish[] that is not written into the prompt.
import type { Env, StepResult } from '../envs/types.js';
import type { Example, TaskName } from '../tasks/types.js';
import type { EpisodeOutcome, Method, MethodContext } from './types.js';
import { CallLedger, infoAnswer, infoNumber, type QaStepRecord } from './episode.js';
import { lowerFirstCodePoint } from '../util/python-str.js';
import { PAPER_SAMPLING } from '../llm/types.js';
import { resolveMaxSteps, resolvedSteps, type ResolvedMethodOptions } from './options.js';
import { buildTaskPrompts, getFraming, type MethodPrompt, type PromptLibrary } from './prompts.js';
import { checkTask, describePrompts } from './describe.js';

export interface Turn {
  thought?: string;
  /** The action as written into the prompt (before lower-casing its first character). */
  action: string;
  badcall?: boolean;
}

/** What distinguishes ReAct from Act: how a turn is asked for and how it is written into the prompt. */
export interface TurnProtocol {
  /** Asks the model for turn i given the prompt so far. */
  turn(prompt: string, i: number, ledger: CallLedger): Promise<Turn>;
  /** The text appended to the prompt after the environment step. */
  stepText(i: number, turn: Turn, observation: string): string;
}

export interface InteractiveSpec extends TurnProtocol {
  head: string;
  maxSteps: number;
}

/** A ReAct-style method: the protocol plus what the manifest says about it. */
export interface LoopDefinition extends TurnProtocol {
  name: 'react' | 'act';
  /** Manifest text: where the loop comes from. */
  loop: string;
  /** Manifest: the stop sequences of each call. */
  stop: Record<string, string[]>;
  /** ReAct uses the released prompt as is; Act needs a framing of ours (prompts/framings.json). */
  usesFraming: boolean;
}

export class InteractiveMethod implements Method {
  readonly needsEnv = true;
  readonly name: 'react' | 'act';
  private readonly prompts: Record<TaskName, MethodPrompt>;
  private readonly framingName?: string;

  constructor(
    private readonly def: LoopDefinition,
    private readonly opts: ResolvedMethodOptions,
    lib: PromptLibrary,
  ) {
    this.name = def.name;
    if (def.usesFraming) this.framingName = getFraming(lib, opts.framing).name;
    this.prompts = buildTaskPrompts(lib, def.name, this.framingName);
  }

  describe(): Record<string, unknown> {
    return {
      method: this.name,
      loop: this.def.loop,
      ...(this.framingName !== undefined ? { framing: this.framingName } : {}),
      maxSteps: this.opts.maxSteps,
      maxStepsResolved: resolvedSteps(this.opts),
      emptyAction: this.opts.emptyAction,
      sampling: { ...PAPER_SAMPLING },
      stop: this.def.stop,
      prompts: describePrompts(this.prompts, this.opts.task),
    };
  }

  run(example: Example, ctx: MethodContext): Promise<EpisodeOutcome> {
    checkTask(this.opts.task, ctx.task.name, this.name);
    const spec: InteractiveSpec = {
      head: this.prompts[ctx.task.name].head,
      maxSteps: resolveMaxSteps(this.opts.maxSteps, ctx.task.name),
      turn: this.def.turn,
      stepText: this.def.stepText,
    };
    return runInteractive(spec, example, ctx);
  }
}

export async function runInteractive(spec: InteractiveSpec, example: Example, ctx: MethodContext): Promise<EpisodeOutcome> {
  if (!ctx.makeEnv) throw new Error('ReAct/Act need MethodContext.makeEnv (the task wrapper over WikiEnv)');
  const env: Env = ctx.makeEnv(example);
  const ledger = new CallLedger(ctx.model, ctx.signal);
  try {
    const question = await env.reset();
    let prompt = spec.head + question + '\n';
    const steps: QaStepRecord[] = [];
    let last: StepResult | undefined;
    for (let i = 1; i <= spec.maxSteps; i++) {
      const turn = await spec.turn(prompt, i, ledger);
      // action[0].lower() + action[1:]; an empty action crashes the released code (IndexError):
      // 'invalid' sends it unchanged, and the environment answers it as an invalid action.
      const empty = turn.action === '';
      ctx.signal?.throwIfAborted();
      last = await env.step(empty ? '' : lowerFirstCodePoint(turn.action));
      // obs.replace('\\n', ''): the two characters backslash + n, not newlines.
      const obs = last.observation.replaceAll('\\n', '');
      prompt += spec.stepText(i, turn, obs);
      const rec: QaStepRecord = { step: i, action: turn.action, observation: obs };
      if (turn.thought !== undefined) rec.thought = turn.thought;
      if (turn.badcall) rec.badcall = true;
      if (empty) rec.emptyAction = true;
      steps.push(rec);
      if (last.done) break;
    }
    let forcedFinish = false;
    if (!last || !last.done) {
      // §4 step 5: the step limit ran out; finish[] (answer '', scores 0) is not appended to the prompt.
      forcedFinish = true;
      last = await env.step('finish[]');
    }
    const info = last.info;
    return {
      answer: infoAnswer(info.answer),
      em: infoNumber(info.em),
      f1: infoNumber(info.f1),
      reward: infoNumber(info.reward),
      traj: prompt,
      steps,
      n_calls: ledger.calls,
      n_badcalls: steps.filter((s) => s.badcall).length,
      usage: ledger.usage,
      costUsd: ledger.costUsd,
      forcedFinish,
    };
  } finally {
    await env.close?.();
  }
}
