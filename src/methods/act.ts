// Act on HotpotQA/FEVER: the webthink loop without thoughts (§4). The released code has no Act runner,
// so this is our reading of the paper: webact_* exemplars under an explicit framing (prompts/framings.json),
// turns cued with "Action {i}:" and stopped at "\nObservation {i}:", the completion stripped as the action.
// There is no bad-call path: a completion is always one action (whatever it holds goes to the env,
// which answers an unusable one as an invalid action), so n_badcalls is always 0.
import type { Example, TaskName } from '../tasks/types.js';
import type { EpisodeOutcome, Method, MethodContext } from './types.js';
import { runInteractive, type Turn } from './interactive.js';
import { pyStrip } from '../util/python-str.js';
import type { CallLedger } from './episode.js';
import { PAPER_SAMPLING } from '../llm/types.js';
import { resolveMaxSteps, resolvedSteps, type ResolvedMethodOptions } from './options.js';
import { buildMethodPrompt, getFraming, type MethodPrompt, type PromptLibrary } from './prompts.js';
import { checkTask, describePrompts } from './describe.js';

export async function actTurn(prompt: string, i: number, ledger: CallLedger): Promise<Turn> {
  const completion = await ledger.llm(prompt + `Action ${i}:`, [`\nObservation ${i}:`]);
  return { action: pyStrip(completion) };
}

export function actStepText(i: number, turn: Turn, obs: string): string {
  return `Action ${i}: ${turn.action}\nObservation ${i}: ${obs}\n`;
}

export class ActMethod implements Method {
  readonly name = 'act' as const;
  readonly needsEnv = true;
  private readonly prompts: Record<TaskName, MethodPrompt>;
  private readonly framingName: string;

  constructor(
    private readonly opts: ResolvedMethodOptions,
    lib: PromptLibrary,
  ) {
    this.framingName = getFraming(lib, opts.framing).name;
    this.prompts = {
      hotpotqa: buildMethodPrompt(lib, 'act', 'hotpotqa', this.framingName),
      fever: buildMethodPrompt(lib, 'act', 'fever', this.framingName),
    };
  }

  describe(): Record<string, unknown> {
    return {
      method: this.name,
      loop: 'webthink without thoughts (no released runner; suite choice)',
      framing: this.framingName,
      maxSteps: this.opts.maxSteps,
      maxStepsResolved: resolvedSteps(this.opts),
      emptyAction: this.opts.emptyAction,
      sampling: { ...PAPER_SAMPLING },
      stop: { action: ['\nObservation {i}:'] },
      prompts: describePrompts(this.prompts, this.opts.task),
    };
  }

  run(example: Example, ctx: MethodContext): Promise<EpisodeOutcome> {
    checkTask(this.opts.task, ctx.task.name, this.name);
    return runInteractive(
      {
        head: this.prompts[ctx.task.name].head,
        maxSteps: resolveMaxSteps(this.opts.maxSteps, ctx.task.name),
        emptyAction: this.opts.emptyAction,
        turn: actTurn,
        stepText: actStepText,
      },
      example,
      ctx,
    );
  }
}
