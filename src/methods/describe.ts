// Manifest descriptions shared by the methods: every prompt text used, with its sha256.
import type { TaskName } from '../tasks/types.js';
import type { MethodPrompt } from './prompts.js';

export function describePrompts(
  prompts: Partial<Record<TaskName, MethodPrompt>>,
  only?: TaskName,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [task, p] of Object.entries(prompts) as [TaskName, MethodPrompt][]) {
    if (only && task !== only) continue;
    out[task] = {
      framing: p.framing,
      headSha256: p.headSha256,
      parts: p.parts,
      ...(p.cue !== undefined ? { cue: p.cue, stop: p.stop } : {}),
    };
  }
  return out;
}

/** A method built for one task must not silently run another. */
export function checkTask(configured: TaskName | undefined, actual: TaskName, method: string): void {
  if (configured && configured !== actual) {
    throw new Error(`${method} was configured for task ${configured} but asked to run ${actual}`);
  }
}
