// Reads run folders for `report`: a list of run folders, or a results folder holding them.
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.js';
import { loadEpisodes, readJsonFile, EPISODES_FILE, MANIFEST_FILE } from '../run/store.js';
import type { RunManifest } from '../run/manifest.js';
import type { EpisodeRecord } from '../run/record.js';
import { summarize, type RunSummary } from '../run/summary.js';

export interface LoadedRun {
  dir: string;
  manifest: RunManifest;
  records: Map<number, EpisodeRecord>;
  summary: RunSummary;
}

export function loadRun(dir: string): LoadedRun {
  const manifest = readJsonFile<RunManifest>(path.join(dir, MANIFEST_FILE));
  const records = loadEpisodes(path.join(dir, EPISODES_FILE)).records;
  const summary = summarize(
    { runId: manifest.runId, task: manifest.task, method: manifest.method, split: manifest.split, model: manifest.model, shard: manifest.shard },
    records,
    manifest.indices,
  );
  return { dir, manifest, records, summary };
}

/** Each argument is a run folder (has manifest.json) or a folder of run folders. */
export function loadRuns(args: string[]): LoadedRun[] {
  const dirs: string[] = [];
  for (const a of args) {
    const abs = path.resolve(a);
    if (!fs.existsSync(abs) || !fs.statSync(abs).isDirectory()) throw new UserError(`report: ${a} is not a folder`);
    if (fs.existsSync(path.join(abs, MANIFEST_FILE))) {
      dirs.push(abs);
      continue;
    }
    const subs = fs
      .readdirSync(abs, { withFileTypes: true })
      .filter((d) => d.isDirectory() && fs.existsSync(path.join(abs, d.name, MANIFEST_FILE)))
      .map((d) => path.join(abs, d.name))
      .sort();
    if (subs.length === 0) throw new UserError(`report: ${a} holds no runs (no manifest.json in it or its sub-folders)`);
    dirs.push(...subs);
  }
  return [...new Set(dirs)].map(loadRun);
}
