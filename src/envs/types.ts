// The one small environment interface (gym-like) every environment follows.
// Methods depend on this, never on a backend.

export interface StepResult<Obs = string> {
  observation: Obs;
  reward: number;
  done: boolean;
  /** Environment-specific extras (wikienv: steps, answer; task wrappers add em/f1/gt_answer...). */
  info: Record<string, unknown>;
}

export interface Env<Obs = string, Action = string> {
  /** Start an episode; returns the first observation. */
  reset(): Promise<Obs>;
  /** Apply one action. Infrastructure failures throw InfraError (src/errors.ts). */
  step(action: Action): Promise<StepResult<Obs>>;
  close?(): Promise<void>;
}
