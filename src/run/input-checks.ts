// Bad input caught at start with one line naming the flag to fix: a --resume whose flags name another
// run. (Contradictions between a benchmark's flags given together are the benchmark's own rule:
// Benchmark.checkGivenFlags, called by resolve-runs.ts.)
import { UserError } from '../errors.js';
import type { Settings } from '../options.js';
import { kebabCase } from './options.js';
import { JsonFields } from '../util/json-fields.js';

function show(v: unknown): string {
  if (v === undefined) return 'not set';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 59)}…` : s;
}

/**
 * The settings that say what a run is (its name's parts): another value changes the whole identity
 * (another method has no environment, say), so the identity's first difference would name a field the
 * user never set. Other differences are named by the identity check (identity.model.model...).
 */
const WHAT_RUNS = new Set(['task', 'method', 'split']);

/**
 * When --resume's settings name another run: the first of task, method, split whose value differs
 * from the run's stored one, as a UserError naming the flag; nothing when they agree (the difference
 * is elsewhere: the caller reports it).
 */
export function checkResumeSettings(stored: Settings | undefined, now: Settings, runId: string): void {
  if (!stored) return;
  const was = JsonFields.orEmpty(stored);
  for (const [key, v] of Object.entries(now)) {
    if (v === undefined || !WHAT_RUNS.has(key)) continue;
    const old = was.get(key);
    if (JSON.stringify(v) === JSON.stringify(old)) continue;
    // recorded without the credentials of its URL: not a difference
    if (typeof old === 'string' && /:\/\/\*\*\*@/.test(old)) continue;
    throw new UserError(
      `--resume ${runId}: --${kebabCase(key)} is ${show(v)} here but ${show(old)} in that run: drop --${kebabCase(key)} to resume it, or leave out --resume to start a new run`,
    );
  }
}
