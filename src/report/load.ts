// Reads run folders for `report`: a list of run folders, or a results folder holding them. A folder
// that cannot be read (a manifest that is not JSON or lacks its fields, an episodes.jsonl line that is
// no record) is skipped with one line on stderr, and the rest are reported (README "Reports").
import fs from 'node:fs';
import path from 'node:path';
import { UserError, errorMessage, errorCode } from '../errors.js';
import { episodesFile, isRunFolder, readRun, MANIFEST_FILE } from '../runlog/store.js';
import { orderedRecords, summarizeRun } from '../run/summary.js';
import type { RunView } from './model.js';
import { forTerminal } from '../util/terminal-text.js';

export function loadRun(dir: string): RunView {
  const { manifest, records } = readRun(dir);
  let summary;
  try {
    summary = summarizeRun(manifest, records);
  } catch (e) {
    throw new UserError(`${episodesFile(dir)}: ${errorMessage(e)}`);
  }
  return { dir, manifest, records: orderedRecords(records, manifest.indices), summary };
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

export interface LoadOptions {
  /** Where the one-line warning about a skipped folder goes (default: stderr). */
  warn?: (line: string) => void;
}

/**
 * Every readable run of the folders given. An unreadable one is skipped with a warning naming it and
 * why; when none is readable the report has nothing to say: UserError.
 */
export function loadRuns(args: string[], opts: LoadOptions = {}): RunView[] {
  const warn = opts.warn ?? ((line: string) => process.stderr.write(forTerminal(line, { oneLine: true }) + '\n'));
  const runs: RunView[] = [];
  const dirs = runFolders(args);
  for (const dir of dirs) {
    try {
      runs.push(loadRun(dir));
    } catch (e) {
      // Bad content (UserError) or a file the system refuses to read (EACCES, EISDIR...): skip it.
      if (!(e instanceof UserError) && typeof errorCode(e) !== 'string') throw e;
      warn(`react-repro: report: skipping ${dir}: ${errorMessage(e).split('\n')[0]}`);
    }
  }
  if (runs.length === 0) throw new UserError(`report: none of the ${dirs.length} run folder(s) could be read (see the warnings above)`);
  return runs;
}
