// The HotpotQA/FEVER task wrapper around the Wikipedia environment for one item, as the released
// wrappers.py HotPotQAWrapper/FeverWrapper behave (§4, §7): the reset observation is the question
// line, every step is re-scored against the gold answer, and the final observation carries the reward.
import type { Env, EnvCallOptions, ResetResult, StepResult } from '../../envs/types.js';
import type { Item } from '../types.js';
import type { Task } from './types.js';

/**
 * A step's info as the wrappers give it: the Wikipedia environment's own fields (answer after
 * finish[...]), and on the last step the gold answer, the item and its scores (§7).
 */
export interface QaStepInfo {
  answer?: unknown;
  gt_answer?: string;
  question_idx?: number;
  em?: number;
  f1?: number;
  reward?: number;
  [field: string]: unknown;
}

export class QAEpisodeEnv implements Env {
  constructor(
    private readonly inner: Env,
    private readonly task: Pick<Task, 'observationLabel' | 'score'>,
    private readonly item: Item,
  ) {}

  /**
   * Resets the inner env and returns "Question: <q>" / "Claim: <c>". (The released wrapper also
   * steps '' between two resets; on wikienv that is an invalid action cleared by the second reset,
   * with no observable effect, so it is not repeated here.)
   */
  async reset(opts?: EnvCallOptions): Promise<ResetResult> {
    const r = await this.inner.reset(opts);
    return { observation: `${this.task.observationLabel}: ${this.item.input}`, info: r.info };
  }

  async step(action: string, opts?: EnvCallOptions): Promise<StepResult> {
    const r = await this.inner.step(action, opts);
    const info: QaStepInfo = { ...r.info };
    const answer = info.answer;
    const gold = this.item.gold ?? '';
    // get_reward: scored only when the env holds an answer (after finish[...]); None -> 0.
    const score = answer === null || answer === undefined ? null : this.task.score(String(answer), gold);
    const reward = score ? score.reward : 0;
    if (!r.done) return { observation: r.observation, reward, done: false, info };
    info.gt_answer = gold;
    info.question_idx = this.item.index;
    info.em = score ? score.em : 0;
    info.f1 = score ? score.f1 : 0;
    info.reward = reward;
    return { observation: `Episode finished, reward = ${reward}\n`, reward, done: true, info };
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }
}
