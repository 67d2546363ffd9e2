// The paper's two combinations of ReAct and CoT-SC (§5): pure functions over one stored ReAct episode
// and one stored CoT-SC episode of the same example; no model calls. Both take k, the number of CoT-SC
// samples used (Figure 2 sweeps k = 1..21 over the same stored samples).
import type { CombinationName, Score, Task } from '../types.js';
import { storedMajority } from './cot-sc.js';
import type { MajorityRule } from './options.js';

export interface ReactSide {
  answer: string | null;
  /** The episode ended by the forced finish[] after the step limit. */
  forcedFinish?: boolean;
  steps?: readonly unknown[];
}
export interface CotScSide {
  samples: readonly (string | null)[];
}

export interface CombineInput {
  react: ReactSide;
  cotSc: CotScSide;
  task: Pick<Task, 'score'>;
  gold: string;
  /** CoT-SC samples used (default: all stored samples). */
  k?: number;
}

export interface CombineOptions {
  /** CoT-SC→ReAct threshold reading (default 'paper'). */
  rule?: MajorityRule;
  /**
   * Judge ReAct against this step limit instead of the one it ran with: an answer given at a later
   * turn counts as none (its finish[] would have been forced). With greedy decoding the first turns are
   * identical, so a 7-step FEVER run answers the paper's 5-step question exactly.
   */
  reactStepLimit?: number;
}

export interface CombinedOutcome extends Score {
  combination: CombinationName;
  answer: string | null;
  /** Which method's answer was used. */
  used: 'react' | 'cot-sc';
  k: number;
  majorityVotes: number;
  /** Whether ReAct returned an answer within its step limit. */
  reactAnswered: boolean;
}

/** ReAct "returned an answer within the step limit": not a forced finish[], an answer present, in time. */
export function reactAnswered(react: ReactSide, reactStepLimit?: number): boolean {
  if (react.forcedFinish || react.answer === null) return false;
  if (reactStepLimit !== undefined && react.steps && react.steps.length > reactStepLimit) return false;
  return true;
}

function reactAnswer(react: ReactSide, answered: boolean): string | null {
  if (answered || react.answer === null) return react.answer;
  return ''; // what the forced finish[] leaves as the answer
}

/**
 * Whether CoT-SC's majority is trusted (§5). paper: back off to ReAct when votes < n/2, i.e. trusted
 * when 2·votes ≥ n. author (docs/protocol.md §5, "use CoT majority if voted > n/2 times"): trusted when 2·votes > n.
 * The two differ only when n is even and votes = n/2. No votes are never a majority (a CoT-SC episode
 * that outgrew the context window has no samples: n = 0).
 */
export function majorityTrusted(votes: number, n: number, rule: MajorityRule = 'paper'): boolean {
  if (votes === 0) return false;
  return rule === 'paper' ? 2 * votes >= n : 2 * votes > n;
}

function result(
  combination: CombinationName,
  used: 'react' | 'cot-sc',
  answer: string | null,
  input: CombineInput,
  k: number,
  majorityVotes: number,
  answered: boolean,
): CombinedOutcome {
  const s = input.task.score(answer, input.gold);
  return { combination, answer, used, em: s.em, f1: s.f1, reward: s.reward, k, majorityVotes, reactAnswered: answered };
}

/** ReAct→CoT-SC: ReAct's answer, or the CoT-SC majority when ReAct gave none within the step limit. */
export function reactThenCotSc(input: CombineInput, opts: CombineOptions = {}): CombinedOutcome {
  const k = input.k ?? input.cotSc.samples.length;
  const m = storedMajority(input.cotSc.samples, k);
  const answered = reactAnswered(input.react, opts.reactStepLimit);
  if (answered) return result('react-cot-sc', 'react', input.react.answer, input, k, m.votes, true);
  return result('react-cot-sc', 'cot-sc', m.answer, input, k, m.votes, false);
}

/** CoT-SC→ReAct: the CoT-SC majority, or ReAct's answer when the majority is weak (see majorityTrusted). */
export function cotScThenReact(input: CombineInput, opts: CombineOptions = {}): CombinedOutcome {
  const k = input.k ?? input.cotSc.samples.length;
  const m = storedMajority(input.cotSc.samples, k);
  const answered = reactAnswered(input.react, opts.reactStepLimit);
  if (majorityTrusted(m.votes, k, opts.rule ?? 'paper')) {
    return result('cot-sc-react', 'cot-sc', m.answer, input, k, m.votes, answered);
  }
  return result('cot-sc-react', 'react', reactAnswer(input.react, answered), input, k, m.votes, answered);
}

export function combine(name: CombinationName, input: CombineInput, opts: CombineOptions = {}): CombinedOutcome {
  return name === 'react-cot-sc' ? reactThenCotSc(input, opts) : cotScThenReact(input, opts);
}
