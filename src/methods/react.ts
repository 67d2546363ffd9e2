// ReAct on HotpotQA/FEVER: the released notebooks' webthink loop, reproduced exactly (§4).
import type { Example, TaskName } from '../tasks/types.js';
import type { EpisodeOutcome, Method, MethodContext } from './types.js';
import { runInteractive, type Turn } from './interactive.js';
import { countOccurrences, pyStrip } from '../util/python-str.js';
import type { CallLedger } from './episode.js';
import { PAPER_SAMPLING } from '../llm/types.js';
import { resolveMaxSteps, resolvedSteps, type ResolvedMethodOptions } from './options.js';
import { buildMethodPrompt, type MethodPrompt, type PromptLibrary } from './prompts.js';
import { checkTask, describePrompts } from './describe.js';

/** One webthink turn: thought and action from one completion, or the bad-call fallback (§4 step 2). */
export async function reactTurn(prompt: string, i: number, ledger: CallLedger): Promise<Turn> {
  const thoughtAction = await ledger.llm(prompt + `Thought ${i}:`, [`\nObservation ${i}:`]);
  const stripped = pyStrip(thoughtAction);
  const sep = `\nAction ${i}: `;
  // Python: `thought, action = s.split(sep)` succeeds only when sep occurs exactly once.
  if (countOccurrences(stripped, sep) === 1) {
    const [thought, action] = stripped.split(sep);
    return { thought, action };
  }
  const thought = stripped.split('\n')[0];
  const action = pyStrip(await ledger.llm(prompt + `Thought ${i}: ${thought}\nAction ${i}:`, ['\n']));
  return { thought, action, badcall: true };
}

export function reactStepText(i: number, turn: Turn, obs: string): string {
  return `Thought ${i}: ${turn.thought}\nAction ${i}: ${turn.action}\nObservation ${i}: ${obs}\n`;
}

export class ReactMethod implements Method {
  readonly name = 'react' as const;
  readonly needsEnv = true;
  private readonly prompts: Record<TaskName, MethodPrompt>;

  constructor(
    private readonly opts: ResolvedMethodOptions,
    lib: PromptLibrary,
  ) {
    this.prompts = {
      hotpotqa: buildMethodPrompt(lib, 'react', 'hotpotqa'),
      fever: buildMethodPrompt(lib, 'react', 'fever'),
    };
  }

  describe(): Record<string, unknown> {
    return {
      method: this.name,
      loop: 'webthink (released notebooks)',
      maxSteps: this.opts.maxSteps,
      maxStepsResolved: resolvedSteps(this.opts),
      emptyAction: this.opts.emptyAction,
      sampling: { ...PAPER_SAMPLING },
      stop: { thoughtAction: ['\nObservation {i}:'], badcallAction: ['\n'] },
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
        turn: reactTurn,
        stepText: reactStepText,
      },
      example,
      ctx,
    );
  }
}
