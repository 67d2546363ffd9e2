// Where run folders live: the results folder, checked without writing and created one level at a time
// (bad input must leave nothing half-written, README "Reliability"), and the folder of one run.
import path from 'node:path';
import fs from 'node:fs';
import { UserError, errorMessage, errorCode } from '../errors.js';
import { defaultResultsDir } from '../paths.js';
import { toDiskError } from '../util/durable.js';
import { isRunFolder, MANIFEST_FILE } from '../runlog/store.js';
import { refusePseudo } from '../util/safe-path.js';
import type { RunConfig } from './config.js';

export function resultsDirOf(cfg: Pick<RunConfig, 'resultsDir'>): string {
  return cfg.resultsDir !== undefined ? path.resolve(cfg.resultsDir) : defaultResultsDir();
}

/** How messages name the results folder: the flag when it was given. */
function resultsDirName(cfg: Pick<RunConfig, 'resultsDir'>): string {
  return cfg.resultsDir !== undefined
    ? `--results-dir ${cfg.resultsDir}`
    : `the results folder ${resultsDirOf(cfg)} (choose another with --results-dir)`;
}

/**
 * Checks, without writing anything, that the results folder can hold run folders: it is a folder (or
 * can be created under the nearest existing folder), and that folder is writable. UserError otherwise.
 */
export function checkResultsDir(cfg: Pick<RunConfig, 'resultsDir'>): void {
  const dir = resultsDirOf(cfg);
  const name = resultsDirName(cfg);
  refusePseudo(dir, name);
  for (let p = dir; ;) {
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(p);
    } catch (e) {
      const code = errorCode(e);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new UserError(`${name}: cannot use ${p} (${code ?? errorMessage(e)})`);
    }
    if (st) {
      if (!st.isDirectory())
        throw new UserError(
          `${name}: ${p === dir ? 'this is a file' : `${p} is a file`}, not a folder; choose a folder for the run folders`,
        );
      try {
        fs.accessSync(p, fs.constants.W_OK | fs.constants.X_OK);
      } catch (e) {
        const d = toDiskError(e, p, 'writing in this folder');
        throw new UserError(`${name}: cannot write there (${d instanceof Error ? d.message : errorMessage(e)})`);
      }
      return;
    }
    const up = path.dirname(p);
    if (up === p) return;
    p = up;
  }
}

/**
 * Creates the results folder one level at a time. (fs.mkdirSync with recursive: true never returns
 * for a path such as /proc/1/x, where mkdir answers ENOENT under an existing folder.)
 */
export function ensureResultsDir(cfg: Pick<RunConfig, 'resultsDir'>): string {
  const dir = resultsDirOf(cfg);
  const missing: string[] = [];
  for (let p = dir; !fs.existsSync(p); p = path.dirname(p)) {
    missing.unshift(p);
    if (path.dirname(p) === p) break;
  }
  for (const p of missing) {
    try {
      fs.mkdirSync(p);
    } catch (e) {
      const code = errorCode(e);
      if (code === 'EEXIST' && fs.statSync(p).isDirectory()) continue;
      const d = toDiskError(e, p, 'creating the folder');
      throw new UserError(
        `${resultsDirName(cfg)}: ${d instanceof Error && d !== e ? d.message : `cannot create ${p} (${code ?? errorMessage(e)})`}`,
      );
    }
  }
  return dir;
}

/** Where --resume <id> points; it must hold a run. */
export function resumeDir(cfg: Pick<RunConfig, 'resume' | 'resultsDir'>): string {
  const id = String(cfg.resume);
  if (!id || id.includes('/') || id.includes('\\') || id === '.' || id === '..') {
    throw new UserError(`--resume: expected a run id (a folder name under the results folder), got "${id}"`);
  }
  const dir = path.join(resultsDirOf(cfg), id);
  if (!isRunFolder(dir)) throw new UserError(`--resume ${id}: no run at ${dir} (no ${MANIFEST_FILE})`);
  return dir;
}

/**
 * The folder a run writes and resumes: --resume's (which must hold a run), else <results folder>/<run id>,
 * so re-running a command resumes its run (README "Reliability"). The dry run plans the same folder.
 */
export function runFolder(cfg: Pick<RunConfig, 'resume' | 'resultsDir'>, runId: string): string {
  return cfg.resume !== undefined ? resumeDir(cfg) : path.join(resultsDirOf(cfg), runId);
}
