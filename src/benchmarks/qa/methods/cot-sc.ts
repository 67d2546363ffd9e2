// CoT-SC (§3, §4): n CoT samples in ONE request (n choices) at temperature 0.7, top_p 1, max_tokens 100,
// majority over normalized answers (§7 normalize_answer). Rules (ours; the released code has none):
// - a sample without an answer (no "Answer:" line, or nothing after it) does not vote;
// - ties go to the normalized answer whose first vote comes earliest in sample order;
// - the chosen answer is the original text of the first sample carrying the winning normalized answer;
// - no votes at all: answer null (scores 0).
import type { Item } from '../../types.js';
import type { Task } from '../types.js';
import type { EpisodeResult, Method, MethodContext } from '../../../methods/types.js';
import { PAPER_SAMPLING, type CompletionRequest } from '../../../llm/types.js';
import { normalizeAnswer } from '../scoring.js';
import { CallLedger } from '../../../methods/episode.js';
import type { ResolvedMethodOptions } from './options.js';
import { buildMethodPrompt, getFraming, parseQaAnswer, qaPrompt, type MethodPrompt, type PromptLibrary } from './prompts.js';
import { describePrompts } from './describe.js';

export interface MajorityResult {
  /** Original text of the first sample with the winning normalized answer; null when nobody voted. */
  answer: string | null;
  normalized: string | null;
  votes: number;
  /** Samples considered (k), including those without an answer. */
  n: number;
  /** Index (within the first k) of the sample whose text is the answer; -1 when nobody voted. */
  sampleIndex: number;
}

/** Majority over the first k samples' answers (Figure 2 sweeps k = 1..21 over stored samples). */
export function cotScAtN(samples: readonly (string | null)[], k: number = samples.length): MajorityResult {
  if (!Number.isInteger(k) || k < 1 || k > samples.length) {
    throw new RangeError(`cotScAtN: k must be an integer from 1 to ${samples.length}, got ${k}`);
  }
  const counts = new Map<string, { votes: number; first: number }>();
  for (let j = 0; j < k; j++) {
    const s = samples[j];
    if (s === null || s === undefined) continue;
    const norm = normalizeAnswer(s);
    const c = counts.get(norm);
    if (c) c.votes++;
    else counts.set(norm, { votes: 1, first: j });
  }
  let best: [string, { votes: number; first: number }] | undefined;
  for (const entry of counts) {
    if (!best || entry[1].votes > best[1].votes || (entry[1].votes === best[1].votes && entry[1].first < best[1].first)) {
      best = entry;
    }
  }
  if (!best) return { answer: null, normalized: null, votes: 0, n: k, sampleIndex: -1 };
  return { answer: samples[best[1].first], normalized: best[0], votes: best[1].votes, n: k, sampleIndex: best[1].first };
}

/**
 * The majority over the first k of an episode's stored samples (the combinations, Figure 2): an episode
 * with none, its prompt having outgrown the context window (record-fields.ts), has no votes at any k.
 */
export function storedMajority(samples: readonly (string | null)[], k: number = samples.length): MajorityResult {
  if (samples.length === 0) return { answer: null, normalized: null, votes: 0, n: k, sampleIndex: -1 };
  return cotScAtN(samples, k);
}

export class CotScMethod implements Method {
  readonly name = 'cot-sc' as const;
  readonly needsEnv = false;
  private readonly prompt: MethodPrompt;
  private readonly framingName: string;

  constructor(
    private readonly task: Pick<Task, 'name' | 'observationLabel'>,
    private readonly opts: ResolvedMethodOptions,
    lib: PromptLibrary,
  ) {
    this.framingName = getFraming(lib, opts.framing).name;
    this.prompt = buildMethodPrompt(lib, 'cot-sc', task.name, this.framingName);
  }

  private sampling(): Omit<CompletionRequest, 'prompt' | 'stop'> {
    return { ...PAPER_SAMPLING, temperature: this.opts.scTemperature, n: this.opts.samples };
  }

  describe(): Record<string, unknown> {
    return {
      method: this.name,
      framing: this.framingName,
      samples: this.opts.samples,
      sampling: this.sampling(),
      requests: 'one request with n choices',
      answer: 'first line after the last "Answer:" in cue + completion, Python-stripped; none -> no vote',
      majority: 'most votes over normalize_answer; tie -> earliest first vote; answer text of that first sample',
      prompts: describePrompts({ [this.task.name]: this.prompt }),
    };
  }

  /** extra: samples (each sample's answer), completions (raw texts), majority_votes. */
  async run(item: Item, ctx: MethodContext): Promise<EpisodeResult> {
    const p = this.prompt;
    const prompt = qaPrompt(p, this.task.observationLabel, item.input);
    const ledger = new CallLedger(ctx.model, ctx.signal);
    const choices = (await ledger.complete({ ...this.sampling(), prompt, stop: p.stop })).slice(0, this.opts.samples);
    const completions = choices.map((c) => c.text);
    const samples = completions.map((t) => parseQaAnswer(p.cue + t));
    const m = cotScAtN(samples);
    return {
      answer: m.answer,
      // The prompt and the completion the answer came from (the first sample when nobody voted).
      traj: prompt + completions[Math.max(0, m.sampleIndex)],
      steps: [],
      n_calls: ledger.calls,
      n_badcalls: 0,
      extra: { samples, completions, majority_votes: m.votes },
    };
  }
}
