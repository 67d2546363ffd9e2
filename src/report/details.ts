// Per-run details shared by every report format.
import type { LoadedRun } from './load.js';
import { fmt } from './table1.js';
import { methodLabel } from './paper-figures.js';

export const DETAIL_HEADERS = ['Run', 'Task', 'Method', 'Split', 'Model', 'Done', 'Errors', 'EM', 'F1', 'Calls', 'Tokens', 'Cost (USD)', 'Cached calls', 'Status'];

export function detailRows(runs: LoadedRun[]): string[][] {
  return runs.map((r) => {
    const s = r.summary;
    const last = r.manifest.sessions?.at(-1)?.status ?? '';
    return [
      r.manifest.runId,
      r.manifest.task,
      methodLabel(r.manifest.method),
      r.manifest.split + (r.manifest.shard ? ` (shard ${r.manifest.shard})` : ''),
      r.manifest.model,
      `${s.n_done}/${s.n_planned}`,
      String(s.n_errors),
      fmt(s.em),
      fmt(s.f1),
      String(s.n_calls),
      String(s.total_tokens),
      s.cost_usd.toFixed(4),
      String(s.cached_calls),
      r.manifest.kind === 'run' ? last : `${r.manifest.kind}`,
    ];
  });
}
