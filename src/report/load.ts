// Reads run folders for `report`: a list of run folders, or a results folder holding them. A folder
// that cannot be read (a manifest that is not JSON or lacks its fields, an episodes.jsonl line that is
// no record) is skipped with one line on stderr, and the rest are reported (README "Reports").
import fs from 'node:fs';
import path from 'node:path';
import { UserError, errorMessage, errorCode } from '../errors.js';
import { episodesFile, isRunFolder, readManifest, readRecords, MANIFEST_FILE } from '../runlog/store.js';
import type { EpisodeRecord } from '../runlog/schema.js';
import { orderedRecords, summarizeRun } from '../run/summary.js';
import type { RunView } from './model.js';
import { withoutAccounting } from '../runlog/episode-source.js';
import { readReportEpisodes } from './episode-reader.js';
import { forTerminal } from '../util/terminal-text.js';
import { compactSlim, SharedPlans, SharedTexts } from './slim-record.js';

export interface LoadRunOptions {
  /**
   * Keep slim records (no trajectory text) and read full ones back from episodes.jsonl when needed
   * (RunView.source): a report's memory then holds a few hundred bytes per episode, not its text.
   * Read-only: runs that plan the same items share one `manifest.indices` array, and a slim record's
   * shared fields live on one prototype (slim-record.ts).
   */
  slim?: boolean;
}

/** A run folder with its full records (`report --trajectories`, export, the library). */
export function loadRun(dir: string): RunView {
  return readRun(dir, {});
}

/** What the runs of one loading pass hold once (slim-record.ts). */
interface Shared {
  texts: SharedTexts;
  plans: SharedPlans;
}

function readRun(dir: string, opts: LoadRunOptions, shared: Shared = { texts: new SharedTexts(), plans: new SharedPlans() }): RunView {
  const read = readManifest(dir);
  const manifest = opts.slim ? { ...read, indices: shared.plans.share(read.indices) } : read;
  const slim = opts.slim ? readReportEpisodes(episodesFile(dir)) : undefined;
  const records = slim ? slim.records : readRecords(dir);
  let summary;
  try {
    summary = summarizeRun(manifest, records);
  } catch (e) {
    throw new UserError(`${episodesFile(dir)}: ${errorMessage(e)}`);
  }
  if (!slim) return { dir, manifest, records: orderedRecords(records, manifest.indices), summary };
  const lean = new Map<number, EpisodeRecord>();
  for (const [idx, r] of records) lean.set(idx, compactSlim(withoutAccounting(r), shared.texts));
  return { dir, manifest, records: orderedRecords(lean, manifest.indices), summary, source: slim.source };
}

/** The run folders named by the arguments: each is a run folder (has manifest.json) or a folder of them. */
export function runFolders(args: string[], command = 'report'): string[] {
  const dirs: string[] = [];
  for (const a of args) {
    const abs = path.resolve(a);
    if (!fs.existsSync(abs) || !fs.statSync(abs).isDirectory()) throw new UserError(`${command}: ${a} is not a folder`);
    if (isRunFolder(abs)) {
      dirs.push(abs);
      continue;
    }
    const subs = fs
      .readdirSync(abs, { withFileTypes: true })
      .filter((d) => d.isDirectory() && isRunFolder(path.join(abs, d.name)))
      .map((d) => path.join(abs, d.name))
      .sort();
    if (subs.length === 0) throw new UserError(`${command}: ${a} holds no runs (no ${MANIFEST_FILE} in it or its sub-folders)`);
    dirs.push(...subs);
  }
  return [...new Set(dirs)];
}

export interface LoadOptions extends LoadRunOptions {
  /** Where the one-line warning about a skipped folder goes (default: stderr, warnLine). */
  warn?: (line: string) => void;
  /** After each folder (read or skipped): how many of how many, and the episodes read so far. */
  onFolder?: (done: number, of: number, episodes: number) => void;
}

/** A warning as one line on stderr, with no control sequence from the data. */
export function warnLine(line: string): void {
  process.stderr.write(forTerminal(line, { oneLine: true }) + '\n');
}

/**
 * Every readable run of the folders given. An unreadable one is skipped with a warning naming it and
 * why; when none is readable the report has nothing to say: UserError.
 */
export function loadRuns(args: string[], opts: LoadOptions = {}): RunView[] {
  const warn = opts.warn ?? warnLine;
  const runs: RunView[] = [];
  const dirs = runFolders(args);
  const shared: Shared = { texts: new SharedTexts(), plans: new SharedPlans() };
  let episodes = 0;
  for (const [i, dir] of dirs.entries()) {
    try {
      const run = readRun(dir, opts, shared);
      runs.push(run);
      episodes += run.records.length;
    } catch (e) {
      // Bad content (UserError) or a file the system refuses to read (EACCES, EISDIR...): skip it.
      if (!(e instanceof UserError) && typeof errorCode(e) !== 'string') throw e;
      warn(`react-repro: report: skipping ${dir}: ${errorMessage(e).split('\n')[0]}`);
    }
    opts.onFolder?.(i + 1, dirs.length, episodes);
  }
  if (runs.length === 0) throw new UserError(`report: none of the ${dirs.length} run folder(s) could be read (see the warnings above)`);
  return runs;
}
