// The HotpotQA/FEVER methods by name (§3–5).
import { UserError } from '../errors.js';
import type { Method, MethodName } from './types.js';
import { resolveMethodOptions, type MethodOptions } from './options.js';
import { loadPromptLibrary } from './prompts.js';
import { InteractiveMethod } from './interactive.js';
import { REACT_LOOP } from './react.js';
import { ACT_LOOP } from './act.js';
import { SingleCompletionMethod } from './single.js';
import { CotScMethod } from './cot-sc.js';

export const METHOD_NAMES: readonly MethodName[] = ['standard', 'cot', 'cot-sc', 'act', 'react'];

/** Builds a method; loads and validates the prompt files now (UserError on a bad file, key or option). */
export function createMethod(name: string, options: MethodOptions = {}): Method {
  if (!(METHOD_NAMES as readonly string[]).includes(name)) {
    throw new UserError(`--method: expected one of ${METHOD_NAMES.join(', ')}, got "${name}"`);
  }
  const opts = resolveMethodOptions(options);
  const lib = loadPromptLibrary(opts.promptsDir);
  switch (name as MethodName) {
    case 'react':
      return new InteractiveMethod(REACT_LOOP, opts, lib);
    case 'act':
      return new InteractiveMethod(ACT_LOOP, opts, lib);
    case 'standard':
      return new SingleCompletionMethod('standard', opts, lib);
    case 'cot':
      return new SingleCompletionMethod('cot', opts, lib);
    case 'cot-sc':
      return new CotScMethod(opts, lib);
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
export { cotScAtN, type CotScOutcome, type MajorityResult } from './cot-sc.js';
export { combine, cotScThenReact, reactThenCotSc, majorityTrusted, reactAnswered, type CombinedOutcome } from './combinations.js';
export { parseQaAnswer } from './prompts.js';
