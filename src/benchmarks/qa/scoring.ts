// §7 scoring, as the released wrappers.py computes it: normalize_answer, exact match and token F1, and
// the per-task scores that HotPotQAWrapper / FeverWrapper attach when an episode ends.
import type { Score } from './types.js';
import { pyLower, pySplit, pyWhitespaceFix, removeArticles, removePunctuation } from '../../util/python-str.js';

/** normalize_answer(s) = white_space_fix(remove_articles(remove_punc(lower(s)))). */
export function normalizeAnswer(s: string): string {
  return pyWhitespaceFix(removeArticles(removePunctuation(pyLower(s))));
}

/** Normalized strings are equal. */
export function exactMatch(prediction: string, gold: string): boolean {
  return normalizeAnswer(prediction) === normalizeAnswer(gold);
}

export interface F1Result {
  f1: number;
  precision: number;
  recall: number;
}

const SPECIAL = new Set(['yes', 'no', 'noanswer']);
const ZERO: F1Result = { f1: 0, precision: 0, recall: 0 };

/** f1_score(prediction, ground_truth): token F1 with bag-of-words (Counter) overlap. */
export function f1Components(prediction: string, gold: string): F1Result {
  const p = normalizeAnswer(prediction);
  const g = normalizeAnswer(gold);
  // yes/no/noanswer only count when both sides are the same string.
  if (SPECIAL.has(p) && p !== g) return ZERO;
  if (SPECIAL.has(g) && p !== g) return ZERO;
  const pTokens = pySplit(p);
  const gTokens = pySplit(g);
  const counts = new Map<string, number>();
  for (const t of gTokens) counts.set(t, (counts.get(t) ?? 0) + 1);
  let numSame = 0;
  for (const t of pTokens) {
    const c = counts.get(t);
    if (c) {
      numSame++;
      counts.set(t, c - 1);
    }
  }
  if (numSame === 0) return ZERO;
  const precision = (1.0 * numSame) / pTokens.length;
  const recall = (1.0 * numSame) / gTokens.length;
  const f1 = (2 * precision * recall) / (precision + recall);
  return { f1, precision, recall };
}

/** f1_score(prediction, ground_truth)[0]. */
export function f1Score(prediction: string, gold: string): number {
  return f1Components(prediction, gold).f1;
}

const NO_ANSWER: Score = { em: 0, f1: 0, reward: 0 };

/**
 * HotPotQAWrapper.get_metrics / get_reward: both sides normalized, em = equality, f1 = f1_score of the
 * normalized strings (normalized once more inside), reward = int(em). No answer (None) scores 0.
 */
export function scoreHotpotQA(prediction: string | null | undefined, gold: string): Score {
  if (prediction === null || prediction === undefined) return NO_ANSWER;
  const g = normalizeAnswer(gold);
  const p = normalizeAnswer(prediction);
  const em = g === p ? 1 : 0;
  return { em, f1: f1Score(g, p), reward: em };
}

/**
 * FeverWrapper: reward = 1 when the normalized label equals the normalized answer; its step() then
 * records em = f1 = reward (it has no get_metrics), so FEVER's f1 is the label match, not token F1.
 */
export function scoreFever(prediction: string | null | undefined, gold: string): Score {
  if (prediction === null || prediction === undefined) return NO_ANSWER;
  const em = normalizeAnswer(gold) === normalizeAnswer(prediction) ? 1 : 0;
  return { em, f1: em, reward: em };
}
