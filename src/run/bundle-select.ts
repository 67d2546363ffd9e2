// Which run folders `bundle` packs when it is given a results folder (or run folders) holding derived
// runs: a combination (CoT-SC→ReAct, ReAct→CoT-SC: episodes computed from two base runs) and a merge
// (a run put together from its shards) whose folder has no recording of its own are not re-run from a
// bundle themselves; their base runs and shards are, so those go in with them (a merge that carries its
// recording is packed as it is). They are found among the folders given or, for a folder named
// on its own, beside it (its results folder). One line per derived run says what was taken instead.
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.js';
import { isRunFolder, readManifest, RECORDING_FILE } from '../runlog/store.js';
import { mergedRunBundlable } from './bundle.js';
import type { RunManifest } from '../runlog/schema.js';

export interface BundleSelection {
  /** The run folders to pack, each run once, in the order given (a derived run's sources where it stood). */
  dirs: string[];
  /** One line per combination or merge: what was bundled for it. */
  notes: string[];
}

function sourceIds(m: RunManifest): string[] {
  return (m.sources ?? []).map((s) => s.runId).filter((id): id is string => typeof id === 'string');
}

export function bundleSelection(given: readonly string[]): BundleSelection {
  const manifests = new Map<string, RunManifest>();
  const read = (dir: string): RunManifest => {
    let m = manifests.get(dir);
    if (!m) manifests.set(dir, (m = readManifest(dir)));
    return m;
  };
  // Run id -> folder: the folders given first, then the run folders beside them.
  const byId = new Map<string, string>();
  for (const d of given) if (!byId.has(read(d).runId)) byId.set(read(d).runId, d);
  const besideScanned = new Set<string>();
  const find = (id: string, near: string): string | undefined => {
    if (byId.has(id)) return byId.get(id);
    const parent = path.dirname(near);
    if (!besideScanned.has(parent)) {
      besideScanned.add(parent);
      for (const e of fs.readdirSync(parent, { withFileTypes: true })) {
        const d = path.join(parent, e.name);
        if (!e.isDirectory() || !isRunFolder(d)) continue;
        try {
          const rid = read(d).runId;
          if (!byId.has(rid)) byId.set(rid, d);
        } catch {
          /* an unreadable neighbour is not ours to judge: it is only looked at if named */
        }
      }
    }
    return byId.get(id);
  };

  const out: string[] = [];
  const seen = new Set<string>();
  const notes: string[] = [];
  const visit = (dir: string, chain: string[]): void => {
    const m = read(dir);
    if (seen.has(m.runId)) return;
    // A merge that carries the recording of the attempts it kept (src/run/merge.ts) replays as itself.
    if ((m.kind !== 'combination' && m.kind !== 'merge') || (m.kind === 'merge' && mergedRunBundlable(dir))) {
      seen.add(m.runId);
      out.push(dir);
      return;
    }
    if (chain.includes(m.runId)) throw new UserError(`bundle: ${dir}: run ${m.runId} is among its own sources`);
    seen.add(m.runId);
    const ids = sourceIds(m);
    const what = m.kind === 'combination' ? 'base run' : 'shard';
    if (!ids.length)
      throw new UserError(`bundle: ${dir} is a ${m.kind} whose manifest names no ${what}s (sources); bundle its ${what}s' folders instead`);
    const found = ids.map((id) => [id, find(id, dir)] as const);
    const missing = found.filter(([, d]) => d === undefined).map(([id]) => id);
    if (missing.length) {
      // Every one missing (a merge's shards all left behind): the list is said once.
      const where =
        missing.length === ids.length && ids.length > 1
          ? 'none of them is among the folders given or beside it'
          : `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} neither among the folders given nor beside it`;
      const why = m.kind === 'merge' ? ` (it carries no ${RECORDING_FILE}, so its shards are packed instead)` : '';
      throw new UserError(
        `bundle: ${dir} is a ${m.kind} of ${ids.join(', ')}${why}; ${where}: give ${missing.length === 1 ? 'its folder' : 'their folders'} too`,
      );
    }
    for (const [, d] of found) visit(d!, [...chain, m.runId]);
    notes.push(
      m.kind === 'combination'
        ? `${m.runId} (a combination) is bundled as its base runs ${ids.join(', ')}; after \`run --from-bundle\`, \`run --method ${m.method}\` with its recorded settings combines them again`
        : `${m.runId} (a merge) is bundled as its ${ids.length} shard runs (${ids.join(', ')}); after \`run --from-bundle\`, \`react-repro merge\` them again`,
    );
  };
  for (const d of given) visit(d, []);
  return { dirs: out, notes };
}
