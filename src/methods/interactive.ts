// The one interactive loop behind ReAct and Act on every benchmark: reset, then model turns each
// followed by one environment step, until the environment says done or the turn limit runs out.
// What differs between benchmarks is declared in a LoopDefinition: how the opening and each step are
// written into the prompt, how a turn is asked for, how the action is sent and the observation read,
// what is sent as context, and what happens at the limit (HotpotQA/FEVER: a forced finish[]).
import type { Env, Observe, ResetResult, StepResult } from '../envs/types.js';
import type { Item } from '../benchmarks/types.js';
import type { ContextOverflow, EpisodeResult, Method, MethodContext, StepRecord } from './types.js';
import { CallLedger } from './episode.js';
import { JsonFields } from '../util/json-fields.js';
import { ContextLengthError, contextExceededFields } from '../llm/context-limit.js';

export interface Turn {
  thought?: string;
  /** The action as the model wrote it (what goes into the prompt). */
  action: string;
  badcall?: boolean;
}

export interface TurnContext {
  /** The text to complete: context(head, history) (head + history unless the loop truncates). */
  prompt: string;
  /** 1-based turn number. */
  i: number;
  ledger: CallLedger;
}

export interface LoopDefinition {
  /** 'react' | 'act'. */
  name: string;
  /** Manifest: where the loop comes from ("webthink (released notebooks)", "alfworld_run"...). */
  loop: string;
  /** Manifest: the stop sequences of each call. */
  stop: Record<string, string[]>;
  /** The prompt head: instruction + exemplars. */
  head: string;
  /** Model turns at most (each followed by one environment step). */
  maxTurns: number;
  /** The history after reset (QA: "Question: q\n"; ALFWorld: obs + "\n>"; WebShop: obs + "\n\nAction:"). */
  opening(reset: ResetResult): string;
  /** What the model sees for a turn; default head + history. */
  context?(head: string, history: string): string;
  turn(ctx: TurnContext): Promise<Turn>;
  /** The action as sent to the environment; default: as written. */
  envAction?(turn: Turn): string;
  /** The observation text from a step: the benchmark's own Observe (Benchmark.observe), never another. */
  observe: Observe;
  /** What is appended to the history after a step. */
  stepText(i: number, turn: Turn, observation: string): string;
  /** After maxTurns without done: one more step that is not written into the prompt (QA's finish[]). */
  onLimit?(env: Env, signal?: AbortSignal): Promise<StepResult>;
  /** Fields of the reset info to keep in the episode record (ALFWorld task_type, WebShop instruction). */
  recordReset?(reset: ResetResult): Record<string, unknown>;
  /** Extra fields of a step record (QA: emptyAction; ALFWorld/WebShop: the step's reward). */
  stepFlags?(turn: Turn, step: StepResult): Partial<StepRecord>;
}

/** Runs one episode of a loop over a fresh environment; the environment is closed afterwards. */
export async function runInteractive(def: LoopDefinition, item: Item, ctx: MethodContext): Promise<EpisodeResult> {
  if (!ctx.makeEnv) throw new Error(`${def.name} needs MethodContext.makeEnv (an environment for the item)`);
  const env = ctx.makeEnv(item);
  const ledger = new CallLedger(ctx.model, ctx.signal);
  const signal = ctx.signal;
  try {
    const reset = await env.reset({ signal });
    const opening = def.opening(reset);
    let history = opening;
    /** What each step appended to the history (--context-overflow truncate leaves the oldest out). */
    const stepTexts: string[] = [];
    const steps: StepRecord[] = [];
    let last: StepResult | undefined;
    let overflow: { error: ContextLengthError; step: number } | undefined;
    for (let i = 1; i <= def.maxTurns; i++) {
      const stopsBefore = ledger.lengthStops;
      let taken: { turn: Turn; dropped: number };
      try {
        taken = await takeTurn(def, opening, stepTexts, i, ledger, ctx.contextOverflow ?? 'fail');
      } catch (e) {
        // The prompt outgrew the model's window: the episode ends here as a failure outcome, scored
        // like one that ran out of steps (README "Reliability"), never an outage.
        if (e instanceof ContextLengthError && !signal?.aborted) {
          overflow = { error: e, step: i };
          break;
        }
        throw e;
      }
      const { turn, dropped } = taken;
      signal?.throwIfAborted();
      const action = def.envAction ? def.envAction(turn) : turn.action;
      last = await env.step(action, { signal });
      const obs = def.observe(action, last);
      const text = def.stepText(i, turn, obs);
      stepTexts.push(text);
      history += text;
      const rec: StepRecord = { step: i, action: turn.action, observation: obs };
      if (turn.thought !== undefined) rec.thought = turn.thought;
      if (turn.badcall) rec.badcall = true;
      if (def.stepFlags) Object.assign(rec, def.stepFlags(turn, last));
      if (ledger.lengthStops > stopsBefore) rec.maxTokensStop = true;
      if (dropped > 0) rec.turnsDropped = dropped;
      steps.push(rec);
      if (last.done) break;
    }
    const fromReset: Record<string, unknown> = def.recordReset ? def.recordReset(reset) : {};
    if (overflow) {
      // No closing step: nothing was answered (QA's finish[] is not sent), so every metric is 0.
      return {
        answer: null,
        finalInfo: {},
        reward: 0,
        done: false,
        traj: def.head + history,
        steps,
        n_calls: ledger.calls,
        n_badcalls: steps.filter((s) => s.badcall).length,
        extra: { ...fromReset, ...contextExceededFields(overflow.error, overflow.step) },
      };
    }
    let forced: boolean | undefined;
    if (def.onLimit) {
      forced = !last || !last.done;
      // The limit ran out: the definition's closing step (QA: finish[], scores 0), not in the prompt.
      if (forced) last = await def.onLimit(env, signal);
    }
    const info = last?.info ?? {};
    const answer = JsonFields.orEmpty(info).get('answer');
    return {
      answer: answer === null || answer === undefined ? null : String(answer),
      finalInfo: info,
      reward: last?.reward ?? 0,
      done: last?.done ?? false,
      traj: def.head + history,
      steps,
      n_calls: ledger.calls,
      n_badcalls: steps.filter((s) => s.badcall).length,
      extra: forced === undefined ? fromReset : { ...fromReset, forced_finish: forced },
    };
  } finally {
    await env.close?.();
  }
}

/**
 * One model turn. With --context-overflow truncate, a turn whose prompt does not fit is asked again
 * with the oldest steps left out (head and opening kept, like WebShop's notebook keeps a tail, §9),
 * until it fits or only the opening is left; `dropped` says how many steps were left out.
 */
async function takeTurn(
  def: LoopDefinition,
  opening: string,
  stepTexts: readonly string[],
  i: number,
  ledger: CallLedger,
  mode: ContextOverflow,
): Promise<{ turn: Turn; dropped: number }> {
  for (let dropped = 0; ; dropped++) {
    const history = dropped === 0 ? opening + stepTexts.join('') : opening + stepTexts.slice(dropped).join('');
    const prompt = def.context ? def.context(def.head, history) : def.head + history;
    try {
      return { turn: await def.turn({ prompt, i, ledger }), dropped };
    } catch (e) {
      if (!(e instanceof ContextLengthError) || mode !== 'truncate' || dropped >= stepTexts.length) throw e;
    }
  }
}

/** A method that runs one loop definition per episode (built by a benchmark for ReAct or Act). */
export class InteractiveMethod implements Method {
  readonly needsEnv = true;
  readonly name: string;

  constructor(
    private readonly def: (item: Item) => LoopDefinition,
    name: string,
    private readonly description: Record<string, unknown>,
  ) {
    this.name = name;
  }

  describe(): Record<string, unknown> {
    return this.description;
  }

  run(item: Item, ctx: MethodContext): Promise<EpisodeResult> {
    return runInteractive(this.def(item), item, ctx);
  }
}
