// A WikiEnv-like Env double (§6 action grammar, no Wikipedia): search[x] answers from a page map,
// lookup[k] is not modelled (scripted observations instead), finish[a] ends the episode with answer a,
// anything else is "Invalid action: <a>". Records every action it receives.
import type { Env, ResetResult, StepResult } from '../../src/envs/types.js';
import { pyStrip } from '../../src/util/python-str.js';

export class MemoryEnv implements Env {
  readonly actions: string[] = [];
  steps = 0;
  answer: string | null = null;
  closed = false;

  /** observe(action) overrides the built-in grammar when it returns a string. */
  constructor(private readonly observe: (action: string) => string | undefined = () => undefined) {}

  async reset(): Promise<ResetResult> {
    this.steps = 0;
    this.answer = null;
    return { observation: 'Interact with Wikipedia using search[], lookup[], and finish[].\n', info: {} };
  }

  async step(raw: string): Promise<StepResult> {
    this.actions.push(raw);
    const action = pyStrip(raw); // wikienv: action.strip()
    let done = false;
    let obs: string;
    const scripted = this.observe(raw);
    if (action.startsWith('finish[') && action.endsWith(']')) {
      this.answer = action.slice('finish['.length, -1);
      done = true;
      obs = 'Episode finished, reward = 0\n';
    } else if (scripted !== undefined) {
      obs = scripted;
    } else {
      obs = `Invalid action: ${action}`;
    }
    this.steps++;
    return { observation: obs, reward: 0, done, info: { steps: this.steps, answer: this.answer } };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
