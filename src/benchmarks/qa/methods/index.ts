// The HotpotQA/FEVER methods by name (§3–5), each built for one task.
import { UserError } from '../../../errors.js';
import type { Method } from '../../../methods/types.js';
import type { QATask } from '../base.js';
import type { MethodName } from '../types.js';
import { resolveMethodOptions, type MethodOptions } from './options.js';
import { loadPromptLibrary, withExemplars } from './prompts.js';
import { createQaInteractive } from './loop.js';
import { SingleCompletionMethod } from './single.js';
import { CotScMethod } from './cot-sc.js';

export const METHOD_NAMES: readonly MethodName[] = ['standard', 'cot', 'cot-sc', 'act', 'react'];

/** The methods that search Wikipedia (§4); Standard, CoT and CoT-SC answer from the prompt alone. */
export const SEARCHING_METHODS: readonly MethodName[] = ['act', 'react'];

/** Whether a method's episodes search Wikipedia (a combination is not a method here: it runs none of its own). */
export function searchesWikipedia(method: string): boolean {
  return SEARCHING_METHODS.some((m) => m === method);
}

/** Builds a method for one task; loads and validates the prompt files now (UserError on a bad file, key or option). */
export function createMethod(name: string, task: Pick<QATask, 'name' | 'observationLabel'>, options: MethodOptions = {}): Method {
  const method = METHOD_NAMES.find((m) => m === name);
  if (method === undefined) {
    throw new UserError(`--method: expected one of ${METHOD_NAMES.join(', ')} for ${task.name}, got "${name}"`);
  }
  const opts = resolveMethodOptions({ ...options, task: task.name });
  const lib = withExemplars(loadPromptLibrary(opts.promptsDir), opts.exemplars);
  switch (method) {
    case 'react':
    case 'act':
      return createQaInteractive(method, task.name, opts, lib);
    case 'standard':
    case 'cot':
      return new SingleCompletionMethod(method, task, opts, lib);
    case 'cot-sc':
      return new CotScMethod(task, opts, lib);
  }
}

export {
  methodCliOptions,
  combinationCliOptions,
  methodOptionsFromArgv,
  parseMajorityRule,
  resolveMaxSteps,
  type MethodOptions,
  type MajorityRule,
  type MaxStepsSpec,
} from './options.js';
export { cotScAtN, type MajorityResult } from './cot-sc.js';
export { combine, cotScThenReact, reactThenCotSc, majorityTrusted, reactAnswered, type CombinedOutcome } from './combinations.js';
export { parseQaAnswer } from './prompts.js';
