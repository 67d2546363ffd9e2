// `report --trajectories <run-dir>`: the notebook's traj of each episode, for reading.
import type { RunView } from './model.js';
import { UserError } from '../errors.js';

export function renderTrajectories(run: RunView, indices?: number[]): string {
  const byIdx = new Map(run.records.map((r) => [r.idx, r]));
  const order = indices ?? run.records.map((r) => r.idx);
  const parts: string[] = [];
  for (const i of order) {
    const r = byIdx.get(i);
    if (!r) throw new UserError(`--indices: item ${i} has no episode in ${run.dir}`);
    const scores = Object.entries(r.metrics)
      .map(([k, v]) => `${k} ${Number(v.toFixed(3))}`)
      .join(' ');
    const status = r.error
      ? `ERROR (${r.error.source}): ${r.error.message}`
      : `${r.gold !== null ? `answer ${JSON.stringify(r.answer)} gold ${JSON.stringify(r.gold)} ` : ''}${scores}`;
    parts.push(`=== item ${i} · ${status} · calls ${r.n_calls} (bad ${r.n_badcalls})`, r.traj.endsWith('\n') ? r.traj : r.traj + '\n');
  }
  return parts.join('\n');
}
