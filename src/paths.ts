// Where the package's own files live (prompts/, data/, envs/, experiments/), resolved from this module
// so the CLI and the library work from any cwd, from src/ (tsx, tests), from dist/ (the build) and from
// an installed package (node_modules/react-repro/dist/paths.js).
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import os from 'node:os';

/** The nearest folder above this module holding the package.json of react-repro (src/ and dist/ sit one level down). */
export function findPackageRoot(from: string): string {
  for (let dir = from; ;) {
    try {
      if ((JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name === 'react-repro') return dir;
    } catch {
      // no (readable) package.json here: keep going up
    }
    const up = path.dirname(dir);
    if (up === dir) return path.resolve(from, '..');
    dir = up;
  }
}

export const repoRoot = findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));
export const promptsDir = path.join(repoRoot, 'prompts');
export const dataDir = path.join(repoRoot, 'data');
export const envsDir = path.join(repoRoot, 'envs');
export const experimentsDir = path.join(repoRoot, 'experiments');

/** True when this is an installed copy (…/node_modules/react-repro), not a checkout. */
export const isInstalledPackage = repoRoot.split(path.sep).includes('node_modules');

/**
 * Built artefacts (the offline Wikipedia database, the completion cache). REACT_REPRO_CACHE_DIR
 * overrides; default <checkout>/.cache, or for an installed package the user's cache folder
 * (node_modules is rebuilt by every `npm ci` and may be read-only).
 */
export function cacheDir(): string {
  const env = process.env.REACT_REPRO_CACHE_DIR;
  if (env) return path.resolve(env);
  return isInstalledPackage ? homeCacheDir() : path.join(repoRoot, '.cache');
}

/** Where the sha256 of files hashed on every run are remembered by file identity (src/util/file-sha.ts). */
export function fileShaMemoFile(): string {
  return path.join(cacheDir(), 'file-sha256.json');
}

/** Where the byte spans of dataset entries are remembered by file identity (src/benchmarks/qa/datasets.ts). */
export function datasetSpansMemoFile(): string {
  return path.join(cacheDir(), 'dataset-spans.json');
}

/** Default folder for run outputs: ./results under the current directory. */
export function defaultResultsDir(): string {
  return path.resolve(process.cwd(), 'results');
}

/** $XDG_CACHE_HOME/react-repro, else ~/.cache/react-repro. */
export function homeCacheDir(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache'), 'react-repro');
}
