// The task registry: getTask('hotpotqa' | 'fever'), one lazily loaded instance per task.
import { UserError } from '../errors.js';
import type { TaskName } from './types.js';
import type { QATask } from './base.js';
import { createHotpotQATask } from './hotpotqa.js';
import { createFeverTask } from './fever.js';

export { createHotpotQATask } from './hotpotqa.js';
export { createFeverTask } from './fever.js';
export { QATask } from './base.js';
export { normalizeAnswer, exactMatch, f1Score, f1Components, scoreHotpotQA, scoreFever } from './scoring.js';
export { parseLimit } from './splits.js';

const factories: Record<TaskName, () => QATask> = {
  hotpotqa: () => createHotpotQATask(),
  fever: () => createFeverTask(),
};

export const taskNames = Object.keys(factories) as TaskName[];

export function isTaskName(name: string): name is TaskName {
  return Object.prototype.hasOwnProperty.call(factories, name);
}

const instances = new Map<TaskName, QATask>();

/** The task by name (data loaded on first use, once per process); UserError for an unknown name. */
export function getTask(name: string): QATask {
  if (!isTaskName(name)) throw new UserError(`unknown task "${name}"; known tasks: ${taskNames.join(', ')}`);
  let t = instances.get(name);
  if (!t) {
    t = factories[name]();
    instances.set(name, t);
  }
  return t;
}
