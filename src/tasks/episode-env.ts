// The HotpotQA/FEVER task wrapper around the Wikipedia environment for one example, as the released
// wrappers.py HotPotQAWrapper/FeverWrapper behave (§4, §7): the reset observation is the question
// line, every step is re-scored against the gold answer, and the final observation carries the reward.
import type { Env, StepResult } from '../envs/types.js';
import type { Example, Task } from './types.js';

export class QAEpisodeEnv implements Env {
  constructor(
    private readonly inner: Env,
    private readonly task: Pick<Task, 'observationLabel' | 'score'>,
    private readonly example: Example,
  ) {}

  /**
   * Resets the inner env and returns "Question: <q>" / "Claim: <c>". (The released wrapper also
   * steps '' between two resets; on wikienv that is an invalid action cleared by the second reset,
   * with no observable effect, so it is not repeated here.)
   */
  async reset(): Promise<string> {
    await this.inner.reset();
    return `${this.task.observationLabel}: ${this.example.question}`;
  }

  async step(action: string): Promise<StepResult> {
    const r = await this.inner.step(action);
    const info: Record<string, unknown> = { ...r.info };
    const answer = info.answer;
    // get_reward: scored only when the env holds an answer (after finish[...]); None -> 0.
    const score = answer === null || answer === undefined ? null : this.task.score(String(answer), this.example.answer);
    const reward = score ? score.reward : 0;
    if (!r.done) return { observation: r.observation, reward, done: false, info };
    info.gt_answer = this.example.answer;
    info.question_idx = this.example.index;
    info.em = score ? score.em : 0;
    info.f1 = score ? score.f1 : 0;
    info.reward = reward;
    return { observation: `Episode finished, reward = ${reward}\n`, reward, done: true, info };
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }
}
