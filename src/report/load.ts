// Reads run folders for `report` and `export`: a list of run folders, or a results folder holding them.
// A folder that cannot be read (a manifest that is not JSON or lacks its fields, an episodes.jsonl line
// that is no record) is skipped with one line on stderr, and the rest are reported (README "Reports");
// when none can be read, the one line is the error, naming what was given and what is expected.
import fs from 'node:fs';
import path from 'node:path';
import { UserError, errorMessage, errorCode } from '../errors.js';
import { episodesFile, isRunFolder, loadEpisodes, readManifest, MANIFEST_FILE } from '../runlog/store.js';
import type { EpisodeRecord } from '../runlog/schema.js';
import { orderedRecords, summarizeRun } from '../run/summary.js';
import type { RunView } from './model.js';
import { withoutAccounting } from '../runlog/episode-source.js';
import { readReportEpisodes } from './episode-reader.js';
import { forTerminal } from '../util/terminal-text.js';
import { countOf } from '../util/numbers.js';
import { compactSlim, SharedPlans, SharedTexts } from './slim-record.js';
import { missingRecords, missingRecordsWarning } from '../runlog/missing-records.js';

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
  const { records, lines: recordLines } = slim ?? loadEpisodes(episodesFile(dir));
  let summary;
  try {
    summary = summarizeRun(manifest, records);
  } catch (e) {
    throw new UserError(`${episodesFile(dir)}: ${errorMessage(e)}`);
  }
  if (!slim) return { dir, manifest, records: orderedRecords(records, manifest.indices), summary, recordLines };
  const lean = new Map<number, EpisodeRecord>();
  for (const [idx, r] of records) lean.set(idx, compactSlim(withoutAccounting(r), shared.texts));
  return { dir, manifest, records: orderedRecords(lean, manifest.indices), summary, source: slim.source, recordLines };
}

/** What a command reading runs expects to be given, for its messages. */
const EXPECTED = `expected a run folder (${MANIFEST_FILE} and episodes.jsonl, as \`react-repro run\` writes them) or a folder of run folders`;

/** The run folders named by the arguments: each is a run folder (has manifest.json) or a folder of them. */
export function runFolders(args: string[], command = 'report'): string[] {
  const dirs: string[] = [];
  for (const a of args) {
    const abs = path.resolve(a);
    if (!fs.existsSync(abs) || !fs.statSync(abs).isDirectory()) throw new UserError(`${command}: ${a} is not a folder; ${EXPECTED}`);
    if (isRunFolder(abs)) {
      dirs.push(abs);
      continue;
    }
    const subs = fs
      .readdirSync(abs, { withFileTypes: true })
      .filter((d) => d.isDirectory() && isRunFolder(path.join(abs, d.name)))
      .map((d) => path.join(abs, d.name))
      .sort();
    if (subs.length === 0)
      throw new UserError(`${command}: ${a} holds no runs (no ${MANIFEST_FILE} in it or its sub-folders); ${EXPECTED}`);
    dirs.push(...subs);
  }
  return [...new Set(dirs)];
}

export interface LoadOptions extends LoadRunOptions {
  /** The command named in messages (default: report). */
  command?: string;
  /**
   * Where the one-line warnings go (default: stderr, warnLine), each with what it is about: a skipped
   * folder, or a run read with records missing (runlog/missing-records.ts). A skipped folder's is
   * held back until a folder is read: when none is, the error says it in one line instead.
   */
  warn?: (line: string, about: 'skipped' | 'records-missing') => void;
  /** After each folder (read or skipped): how many of how many, and the episodes read so far. */
  onFolder?: (done: number, of: number, episodes: number) => void;
}

/** A warning as one line on stderr, with no control sequence from the data. */
export function warnLine(line: string): void {
  process.stderr.write(forTerminal(line, { oneLine: true }) + '\n');
}

/**
 * Every readable run of the folders given. An unreadable one is skipped with a warning naming it and
 * why; when none is readable there is nothing to report: one UserError naming what was given, the
 * first reason and what is expected (a junk folder with a stray manifest.json is not a run's).
 */
export function loadRuns(args: string[], opts: LoadOptions = {}): RunView[] {
  const command = opts.command ?? 'report';
  const warn = opts.warn ?? warnLine;
  const runs: RunView[] = [];
  const dirs = runFolders(args, command);
  const shared: Shared = { texts: new SharedTexts(), plans: new SharedPlans() };
  const failed: { dir: string; why: string }[] = [];
  let episodes = 0;
  for (const [i, dir] of dirs.entries()) {
    try {
      const run = readRun(dir, opts, shared);
      if (runs.length === 0) for (const f of failed) warn(skipping(command, f), 'skipped');
      runs.push(run);
      // Read, but with fewer records than its sessions wrote: its Runs-table status says so too.
      const miss = missingRecords(run.manifest, run.recordLines ?? 0);
      if (miss) warn(`react-repro: ${command}: ${missingRecordsWarning(episodesFile(dir), miss)}`, 'records-missing');
      episodes += run.records.length;
    } catch (e) {
      // Bad content (UserError) or a file the system refuses to read (EACCES, EISDIR...): skip it.
      if (!(e instanceof UserError) && typeof errorCode(e) !== 'string') throw e;
      const f = { dir, why: errorMessage(e).split('\n')[0] };
      failed.push(f);
      if (runs.length > 0) warn(skipping(command, f), 'skipped');
    }
    opts.onFolder?.(i + 1, dirs.length, episodes);
  }
  if (runs.length === 0) {
    if (failed.length === 0) throw new UserError(`${command}: no folder given; ${EXPECTED}`);
    const head =
      args.length > 1
        ? `none of the ${args.length} folders given holds a readable run`
        : `${args[0]} ${dirs.length === 1 && dirs[0] === path.resolve(args[0]) ? 'is not a readable run' : 'holds no readable run'}`;
    const more = failed.length > 1 ? `; ${countOf(failed.length - 1, 'other run folder')} could not be read either` : '';
    throw new UserError(`${command}: ${head} (${failed[0].why})${more}; ${EXPECTED}`);
  }
  return runs;
}

function skipping(command: string, f: { dir: string; why: string }): string {
  return `react-repro: ${command}: skipping ${f.dir}: ${f.why}`;
}
