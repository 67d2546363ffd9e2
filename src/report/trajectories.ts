// `report --trajectories <run-dir>`: the notebook's traj of each episode, for reading.
import type { LoadedRun } from './load.js';
import { UserError } from '../errors.js';

export function renderTrajectories(run: LoadedRun, indices?: number[]): string {
  const order = indices ?? run.manifest.indices.filter((i) => run.records.has(i));
  const parts: string[] = [];
  for (const i of order) {
    const r = run.records.get(i);
    if (!r) throw new UserError(`--indices: question ${i} has no episode in ${run.dir}`);
    const status = r.error ? `ERROR (${r.error.source}): ${r.error.message}` : `answer ${JSON.stringify(r.answer)} gold ${JSON.stringify(r.gold)} em ${r.em} f1 ${Number(r.f1.toFixed(3))}`;
    parts.push(`=== question ${i} · ${status} · calls ${r.n_calls} (bad ${r.n_badcalls})`, r.traj.endsWith('\n') ? r.traj : r.traj + '\n');
  }
  return parts.join('\n');
}
