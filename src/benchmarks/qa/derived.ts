// The paper's combinations (§5) as derived methods: ReAct→CoT-SC and CoT-SC→ReAct are computed from
// one CoT-SC run and one ReAct run of the same items, with no model calls.
import { UserError } from '../../errors.js';
import type { DerivedMethod, Item, StoredEpisode } from '../types.js';
import type { EpisodeResult } from '../../methods/types.js';
import { combine } from './methods/combinations.js';
import { resolveMaxSteps, type CombinationOptions } from './methods/options.js';
import type { CombinationName, Task, TaskName } from './types.js';
import type { QaOptions } from './benchmark.js';
import { qaRecordFields } from './record-fields.js';
import { contextExceededOf } from '../../llm/context-limit.js';

// Part of a combination's identity (its run id): worded as first released, "issue 8" being
// ysymyth/ReAct's (docs/protocol.md §5).
const MEANING = {
  paper: 'use ReAct when the CoT-SC majority has fewer than n/2 votes',
  author: 'use CoT-SC only when its majority has more than n/2 votes (issue 8)',
};

/** The step limit ReAct's answer is judged by: --max-steps for this task, or undefined (as the ReAct run ran). */
function reactStepLimit(options: CombinationOptions, task: TaskName): number | undefined {
  return options.maxSteps !== undefined ? resolveMaxSteps(options.maxSteps, task) : undefined;
}

/**
 * The limit outcome a combination's episode takes from the base episode whose answer it uses: where that
 * one outgrew the context window, so did this one. Judged at a shorter step limit, a ReAct episode that
 * outgrew the window after that limit would have been forced to finish first (no answer within the
 * limit, scored as such), so it carries none.
 */
function carriedOutcome(base: StoredEpisode, stepLimit: number | undefined): Record<string, unknown> {
  const outcome = contextExceededOf(base.extra);
  const step = outcome.outcome_step;
  return stepLimit !== undefined && typeof step === 'number' && step > stepLimit ? {} : outcome;
}

export function qaDerivedMethods(task: Pick<Task, 'name' | 'score'>): Record<CombinationName, DerivedMethod<QaOptions>> {
  const make = (name: CombinationName): DerivedMethod<QaOptions> => ({
    name,
    // Run order: CoT-SC first, then ReAct (each resumes or hits the completion cache).
    bases: ['cot-sc', 'react'],
    describe: ({ combination }) => ({
      combination: name,
      majorityRule: combination.majorityRule,
      majorityRuleMeaning: MEANING[combination.majorityRule],
      reactStepLimit: reactStepLimit(combination, task.name) ?? 'as the ReAct run ran',
      extraModelCalls: 0,
    }),
    combine: (item: Item, [cotSc, react]: StoredEpisode[], { combination }: QaOptions): EpisodeResult => {
      const { samples } = qaRecordFields(cotSc.extra);
      if (!samples) throw new UserError(`--from-runs: the CoT-SC run stores no samples for item ${item.index}`);
      const { forcedFinish } = qaRecordFields(react.extra);
      const out = combine(
        name,
        { react: { answer: react.answer, forcedFinish, steps: react.steps }, cotSc: { samples }, task, gold: item.gold ?? '' },
        { rule: combination.majorityRule, reactStepLimit: reactStepLimit(combination, task.name) },
      );
      return {
        answer: out.answer,
        traj: react.traj,
        steps: react.steps,
        n_calls: react.n_calls + cotSc.n_calls,
        n_badcalls: react.n_badcalls + cotSc.n_badcalls,
        extra: {
          samples,
          majority_votes: out.majorityVotes,
          forced_finish: forcedFinish,
          answer_from: out.used,
          ...carriedOutcome(out.used === 'react' ? react : cotSc, reactStepLimit(combination, task.name)),
        },
      };
    },
  });
  return { 'react-cot-sc': make('react-cot-sc'), 'cot-sc-react': make('cot-sc-react') };
}
