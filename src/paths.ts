// Where the package's own files live, resolved from this module so the CLI works from any cwd.
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import os from 'node:os';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const promptsDir = path.join(repoRoot, 'prompts');
export const dataDir = path.join(repoRoot, 'data');
export const envsDir = path.join(repoRoot, 'envs');
export const experimentsDir = path.join(repoRoot, 'experiments');

/** Built artefacts (the offline Wikipedia database, the completion cache). REACT_REPRO_CACHE_DIR overrides. */
export function cacheDir(): string {
  return process.env.REACT_REPRO_CACHE_DIR ?? path.join(repoRoot, '.cache');
}

/** Default folder for run outputs: ./results under the current directory. */
export function defaultResultsDir(): string {
  return path.resolve(process.cwd(), 'results');
}

export function homeCacheDir(): string {
  return path.join(os.homedir(), '.cache', 'react-repro');
}
