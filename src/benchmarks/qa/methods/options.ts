// Options that shape the HotpotQA/FEVER methods' prompts and calls, their CLI flags, and validation.
import type { OptionTable } from '../../../options.js';
import { UserError } from '../../../errors.js';
import type { TaskName } from '../types.js';
import { isQaTask, qaTask, qaTaskNames } from '../task-specs.js';
import { JsonFields } from '../../../util/json-fields.js';

/**
 * Step limit of ReAct/Act (§4): 'code' = 7 for both tasks (the released notebooks, default);
 * 'paper' = 7 HotpotQA, 5 FEVER (paper §3.3); or an explicit positive integer.
 */
export type MaxStepsSpec = 'code' | 'paper' | number;

/** How an empty action is handled (§4 step 3): the released code raises IndexError on action[0]. */
export type EmptyActionHandling = 'invalid';

/** CoT-SC→ReAct majority threshold (§5): paper = back off when votes < n/2; author = unless votes > n/2. */
export type MajorityRule = 'paper' | 'author';

export interface MethodOptions {
  maxSteps?: MaxStepsSpec;
  /** CoT-SC samples n (paper: 21). */
  samples?: number;
  /** CoT-SC sampling temperature (paper: 0.7). */
  scTemperature?: number;
  /** Name of a framing in prompts/framings.json (Act/Standard/CoT/CoT-SC); default: the file's default. */
  framing?: string;
  emptyAction?: EmptyActionHandling;
  /**
   * Use only the first K exemplars of the released prompt (an ablation; the paper uses all: 6 for
   * HotpotQA, 3 for FEVER). Absent = all. Checked against the prompt when the method is built.
   */
  exemplars?: number;
  /** Restricts describe() (and a run-time check) to one task; both tasks when absent. */
  task?: TaskName;
  /** Prompt directory (tests); default prompts/ of the package. */
  promptsDir?: string;
}

export interface ResolvedMethodOptions {
  maxSteps: MaxStepsSpec;
  samples: number;
  scTemperature: number;
  framing?: string;
  emptyAction: EmptyActionHandling;
  exemplars?: number;
  task?: TaskName;
  promptsDir?: string;
}

export const METHOD_DEFAULTS: { maxSteps: MaxStepsSpec; samples: number; scTemperature: number; emptyAction: EmptyActionHandling } = {
  maxSteps: 'code',
  samples: 21,
  scTemperature: 0.7,
  emptyAction: 'invalid',
};

export function resolveMaxSteps(spec: MaxStepsSpec, task: TaskName): number {
  if (spec === 'code') return 7;
  if (spec === 'paper') return qaTask(task).paperMaxSteps;
  return spec;
}

/** The resolved step limit per task (for describe()). */
export function resolvedSteps(opts: { maxSteps: MaxStepsSpec; task?: TaskName }): Record<string, number> {
  const tasks: TaskName[] = opts.task ? [opts.task] : qaTaskNames();
  return Object.fromEntries(tasks.map((t) => [t, resolveMaxSteps(opts.maxSteps, t)]));
}

/** Largest --max-steps: the paper uses 7 (5 for FEVER); beyond this a run is a runaway, not an experiment. */
export const MAX_STEPS_LIMIT = 1000;
/** Largest --samples: OpenAI's limit on n, far above the paper's 21. */
export const MAX_SAMPLES = 128;

/** Parses the --max-steps value: code | paper | positive integer. */
export function parseMaxSteps(v: unknown): MaxStepsSpec {
  if (v === undefined || v === null || v === '') return METHOD_DEFAULTS.maxSteps;
  if (v === 'code' || v === 'paper') return v;
  const s = String(v);
  if (/^[1-9][0-9]*$/.test(s) && Number(s) <= MAX_STEPS_LIMIT) return Number(s);
  throw new UserError(`--max-steps: expected code, paper or a positive integer up to ${MAX_STEPS_LIMIT}, got "${s}"`);
}

export function resolveMethodOptions(o: MethodOptions = {}): ResolvedMethodOptions {
  const maxSteps = parseMaxSteps(o.maxSteps);
  const samples = o.samples ?? METHOD_DEFAULTS.samples;
  if (!Number.isInteger(samples) || samples < 1 || samples > MAX_SAMPLES) {
    throw new UserError(`--samples: expected a positive integer up to ${MAX_SAMPLES} (CoT-SC samples), got ${samples}`);
  }
  const scTemperature = o.scTemperature ?? METHOD_DEFAULTS.scTemperature;
  if (typeof scTemperature !== 'number' || !Number.isFinite(scTemperature) || scTemperature < 0 || scTemperature > 2) {
    throw new UserError(`--sc-temperature: expected a number from 0 to 2, got ${scTemperature}`);
  }
  const emptyAction = o.emptyAction ?? METHOD_DEFAULTS.emptyAction;
  if (emptyAction !== 'invalid') throw new UserError(`--empty-action: expected invalid, got ${String(emptyAction)}`);
  const exemplars = o.exemplars;
  if (exemplars !== undefined && (typeof exemplars !== 'number' || !Number.isInteger(exemplars) || exemplars < 1)) {
    throw new UserError(`--exemplars: expected a positive integer (the first K exemplars of the prompt), got ${String(exemplars)}`);
  }
  if (o.task !== undefined && !isQaTask(o.task)) {
    throw new UserError(`--task: expected ${qaTaskNames().join(' or ')} for this method, got ${String(o.task)}`);
  }
  return {
    maxSteps,
    samples,
    scTemperature,
    framing: o.framing,
    emptyAction,
    ...(exemplars !== undefined ? { exemplars } : {}),
    task: o.task,
    promptsDir: o.promptsDir,
  };
}

/** yargs options for the HotpotQA/FEVER methods (used by `run`). */
export const methodCliOptions = {
  'max-steps': {
    type: 'string',
    default: 'code',
    describe:
      'ReAct/Act step limit: code (7 for HotpotQA and FEVER, as the released notebooks), paper (7 HotpotQA, 5 FEVER) or a positive integer',
  },
  samples: { type: 'number', default: 21, describe: 'CoT-SC: number of samples n (one request with n choices)' },
  'sc-temperature': { type: 'number', default: 0.7, describe: 'CoT-SC: sampling temperature' },
  framing: {
    type: 'string',
    describe: 'Prompt framing for Act/Standard/CoT/CoT-SC from prompts/framings.json (default: its "default", suite-v1)',
  },
  'empty-action': {
    type: 'string',
    choices: ['invalid'],
    default: 'invalid',
    describe: 'An empty action (the released code crashes) is sent to the environment as an invalid action and recorded',
  },
  exemplars: {
    type: 'number',
    describe:
      'Ablation: only the first K exemplars of the released prompt (HotpotQA has 6, FEVER 3) [default: all, as the paper]; recorded in the manifest as a deviation',
  },
} satisfies OptionTable;

/** yargs options for computing the combinations (§5). */
export const combinationCliOptions = {
  'majority-rule': {
    type: 'string',
    choices: ['paper', 'author'],
    default: 'paper',
    describe:
      'CoT-SC→ReAct: paper = use ReAct when the majority has fewer than n/2 votes; author (ysymyth/ReAct issue 8) = use CoT-SC only when it has more than n/2 votes',
  },
} satisfies OptionTable;

/** A number flag's value, or undefined when absent; UserError naming the flag for another type. */
function num(v: unknown, flag: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number') throw new UserError(`--${flag}: expected a number, got ${JSON.stringify(v)}`);
  return v;
}

/** A string flag's value, or undefined when absent; UserError naming the flag for another type. */
function str(v: unknown, flag: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new UserError(`--${flag}: expected a string, got ${JSON.stringify(v)}`);
  return v;
}

/** Maps a run's settings (camelCase, or yargs' kebab-case too) to MethodOptions (ranges are checked in resolveMethodOptions). */
export function methodOptionsFromArgv(argv: Record<string, unknown>): MethodOptions {
  const f = JsonFields.orEmpty(argv);
  const either = (camel: string, kebab: string) => f.get(kebab) ?? f.get(camel);
  const emptyAction = str(either('emptyAction', 'empty-action'), 'empty-action');
  if (emptyAction !== undefined && emptyAction !== 'invalid') throw new UserError(`--empty-action: expected invalid, got ${emptyAction}`);
  const task = str(f.get('task'), 'task');
  if (task !== undefined && !isQaTask(task))
    throw new UserError(`--task: expected ${qaTaskNames().join(' or ')} for this method, got ${task}`);
  return {
    maxSteps: parseMaxSteps(either('maxSteps', 'max-steps')),
    samples: num(f.get('samples'), 'samples'),
    scTemperature: num(either('scTemperature', 'sc-temperature'), 'sc-temperature'),
    framing: str(f.get('framing'), 'framing'),
    emptyAction,
    exemplars: num(f.get('exemplars'), 'exemplars'),
    task,
  };
}

export function parseMajorityRule(v: unknown): MajorityRule {
  if (v === undefined || v === 'paper') return 'paper';
  if (v === 'author') return 'author';
  throw new UserError(`--majority-rule: expected paper or author, got ${String(v)}`);
}

/** What the combinations (§5) read of a run's settings. */
export interface CombinationOptions {
  majorityRule: MajorityRule;
  /** --max-steps as given: the step limit ReAct's answer is judged by; absent: as the ReAct run ran. */
  maxSteps?: MaxStepsSpec;
}

/** The combinations' options from a run's settings (camelCase, as the manifest stores them). */
export function combinationOptionsFromSettings(settings: Record<string, unknown>): CombinationOptions {
  const f = JsonFields.orEmpty(settings);
  const maxSteps = f.get('maxSteps');
  return {
    majorityRule: parseMajorityRule(f.get('majorityRule')),
    ...(maxSteps !== undefined ? { maxSteps: parseMaxSteps(maxSteps) } : {}),
  };
}
