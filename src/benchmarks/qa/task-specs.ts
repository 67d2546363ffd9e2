// What differs between the Wikipedia question-answering tasks, keyed by the task's registered name:
// the exemplar label, the exemplar prompt each method uses (docs/protocol.md §4), the paper's step
// limit, the scorer, and how reports name it. A third Wikipedia-QA task is one more spec here (plus
// its data and benchmark files), not edits across the QA modules.
import { UserError } from '../../errors.js';
import { scoreFever, scoreHotpotQA } from './scoring.js';
import type { MethodName, Score } from './types.js';
import type { EvidenceGap, SearchedRun } from './evidence-gap.js';
import { feverEvidenceGap } from '../fever/offline.js';
import { hotpotqaEvidenceGap } from '../hotpotqa/offline.js';

/** The released prompt files (data/prompts/, as the ReAct repository ships them) and ours. */
export const PROMPT_FILES = {
  naive: 'prompts_naive.json',
  fever: 'fever.json',
  instruction: 'hotpotqa_instruction.json',
  framings: 'framings.json',
} as const;

export interface QaTaskSpec {
  name: string;
  /** How reports title it ("HotpotQA"). */
  title: string;
  /** The exemplars' and the reset observation's first word: "Question" or "Claim". */
  label: 'Question' | 'Claim';
  /** What its items are called in figures ("questions", "claims"). */
  itemsNoun: string;
  /** The paper's step limit (--max-steps paper; docs/protocol.md §3). */
  paperMaxSteps: number;
  /** Table 1's column label ("HotpotQA EM", "FEVER Acc"). */
  scoreLabel: string;
  score(prediction: string | null | undefined, gold: string): Score;
  /** The released exemplar prompt (file, key) of each method. */
  exemplars: Record<MethodName, [string, string]>;
  /** ReAct only: an instruction (file, key) before the exemplars (HotpotQA); absent when the exemplars carry it. */
  reactInstruction?: [string, string];
  /**
   * Whether the Wikipedia a run searched lacks the evidence of its items, so its scores do not measure
   * the paper's task (FEVER on the shipped HotpotQA snapshot; HotpotQA questions outside its covered
   * 1906), or null. The one rule behind the run's
   * start notice and Table 1's caveat on the column. Absent: never.
   */
  evidenceGap?: (run: SearchedRun) => EvidenceGap | null;
}

const per = (file: string, n: number): Record<MethodName, [string, string]> => ({
  react: [file, `webthink_simple${n}`],
  act: [file, `webact_simple${n}`],
  standard: [file, `webqa_simple${n}`],
  cot: [file, `cotqa_simple${n}`],
  'cot-sc': [file, `cotqa_simple${n}`],
});

const specs = new Map<string, QaTaskSpec>();

/** Registers a Wikipedia-QA task's spec under its name (its benchmark is registered as usual). */
export function registerQaTask(spec: QaTaskSpec): void {
  if (specs.has(spec.name)) throw new Error(`QA task "${spec.name}" is registered twice`);
  specs.set(spec.name, spec);
}

/** The registered QA task names, in registration order (Table 1's column order). */
export function qaTaskNames(): string[] {
  return [...specs.keys()];
}

export function isQaTask(name: unknown): name is string {
  return typeof name === 'string' && specs.has(name);
}

export function qaTask(name: string): QaTaskSpec {
  const s = specs.get(name);
  if (!s) throw new UserError(`--task: expected ${qaTaskNames().join(' or ')} for this method, got ${name}`);
  return s;
}

registerQaTask({
  name: 'hotpotqa',
  title: 'HotpotQA',
  label: 'Question',
  itemsNoun: 'questions',
  paperMaxSteps: 7,
  scoreLabel: 'HotpotQA EM',
  score: scoreHotpotQA,
  exemplars: per(PROMPT_FILES.naive, 6),
  reactInstruction: [PROMPT_FILES.instruction, 'webthink_instruction'],
  evidenceGap: (run) => hotpotqaEvidenceGap(run),
});
registerQaTask({
  name: 'fever',
  title: 'FEVER',
  label: 'Claim',
  itemsNoun: 'claims',
  paperMaxSteps: 5,
  scoreLabel: 'FEVER Acc',
  score: scoreFever,
  exemplars: per(PROMPT_FILES.fever, 3),
  evidenceGap: (run) => feverEvidenceGap(run),
});
