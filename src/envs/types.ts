// The one small environment interface (gym-like) every environment follows (Wikipedia, ALFWorld,
// WebShop). Methods and the runner depend on this, never on a backend.

export interface EnvCallOptions {
  /** Aborted on Ctrl-C / SIGTERM or when another episode is fatal: in-flight requests must stop. */
  signal?: AbortSignal;
}

export interface ResetResult<Obs = string> {
  observation: Obs;
  /** Environment-specific extras (ALFWorld: task_type, game; WebShop: instruction text, session). */
  info: Record<string, unknown>;
}

export interface StepResult<Obs = string> {
  observation: Obs;
  reward: number;
  done: boolean;
  /** Environment-specific extras (wikienv: steps, answer; QA wrapper: em/f1/gt_answer; ALFWorld: won). */
  info: Record<string, unknown>;
}

export interface Env<Obs = string, Action = string> {
  /** Start an episode. Infrastructure failures throw InfraError (src/errors.ts). */
  reset(opts?: EnvCallOptions): Promise<ResetResult<Obs>>;
  /** Apply one action. Infrastructure failures throw InfraError (src/errors.ts). */
  step(action: Action, opts?: EnvCallOptions): Promise<StepResult<Obs>>;
  /** Frees server-side state (ALFWorld's /close); never throws. */
  close?(): Promise<void>;
}

/**
 * How a benchmark turns an environment step into the observation text, before prompt assembly (QA:
 * literal "\\n" removed; ALFWorld: think: → "OK."). Declared once, here: the benchmark's environment
 * factory owns it (Benchmark.observe), and its loops and `env play` use that same function.
 */
export type Observe = (action: string, step: StepResult) => string;
