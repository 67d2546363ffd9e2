// Reads run folders for `report`: a list of run folders, or a results folder holding them.
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.js';
import { loadEpisodes, readJsonFile, EPISODES_FILE, MANIFEST_FILE } from '../run/run-log.js';
import type { RunManifest } from '../run/manifest.js';
import { orderedRecords, summarizeRun } from '../run/summary.js';
import type { RunView } from './model.js';

export function loadRun(dir: string): RunView {
  const manifest = readJsonFile<RunManifest>(path.join(dir, MANIFEST_FILE));
  const records = loadEpisodes(path.join(dir, EPISODES_FILE)).records;
  return { dir, manifest, records: orderedRecords(records, manifest.indices), summary: summarizeRun(manifest, records) };
}

/** Each argument is a run folder (has manifest.json) or a folder of run folders. */
export function loadRuns(args: string[]): RunView[] {
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
