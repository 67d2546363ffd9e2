// manifest.json: everything needed to know what a run computed and to redo it, and the
// check that a resumed run still computes the same thing.
import fs from 'node:fs';
import path from 'node:path';
import { fileShaMemoFile, isInstalledPackage, repoRoot } from '../paths.js';
import { readManifest as readVendored } from '../data/manifest.js';
import { rememberedSha256FileSync } from '../util/file-sha.js';
import { gitFactsSync } from '../util/git-facts.js';
import { JsonFields } from '../util/json-fields.js';
import { UserError } from '../errors.js';
import { canonicalJson } from './run-id.js';
import { MANIFEST_FILE } from '../runlog/store.js';

import type { RunManifest } from '../runlog/schema.js';

let gitCache: { commit: string; dirty: boolean } | null | undefined;

/** git rev-parse HEAD and a dirty flag for the package's own checkout; null outside a git checkout. */
export function gitInfo(): { commit: string; dirty: boolean } | null {
  if (gitCache !== undefined) return gitCache;
  // An installed package sits inside the user's project: its git commit is not ours.
  if (isInstalledPackage) return (gitCache = null);
  return (gitCache = gitFactsSync(repoRoot));
}

export function packageInfo(): { name: string; version: string } {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { name: string; version: string };
    return { name: pkg.name, version: pkg.version };
  } catch {
    return { name: 'react-repro', version: 'unknown' };
  }
}

export function softwareInfo(): RunManifest['software'] {
  const pkg = packageInfo();
  return {
    package: pkg.name,
    version: pkg.version,
    git: gitInfo(),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

/**
 * sha256 of the repo files a run reads (repo-relative paths, as the benchmark lists them), computed
 * from the bytes on disk now, not copied from the vendored table. A file whose hash differs from
 * data/manifest.json's is returned in `changed` so the run can say so (an edited prompt file).
 */
export function inputShas(files: readonly string[]): { inputs: Record<string, string | null>; changed: string[] } {
  const inputs: Record<string, string | null> = {};
  const changed: string[] = [];
  let vendored: Map<string, string> | null;
  try {
    vendored = new Map(readVendored().map((f) => [f.path, f.sha256]));
  } catch {
    vendored = null;
  }
  for (const rel of files) {
    let sha: string | null;
    try {
      // remembered by the file's identity (src/util/file-sha.ts): the inputs are the same files every run
      sha = rememberedSha256FileSync(path.join(repoRoot, rel), fileShaMemoFile());
    } catch {
      sha = null;
    }
    inputs[rel] = sha;
    const want = vendored?.get(rel);
    if (want && sha && want !== sha) changed.push(rel);
  }
  return { inputs, changed };
}

/** First path where two JSON values differ, e.g. "identity.model.model", or null when equal. */
export function firstDifference(a: unknown, b: unknown, at = ''): string | null {
  if (canonicalJson(a) === canonicalJson(b)) return null;
  const fa = JsonFields.of(a);
  const fb = JsonFields.of(b);
  if (fa && fb) {
    const keys = [...new Set([...fa.keys(), ...fb.keys()])].sort();
    for (const k of keys) {
      const d = firstDifference(fa.get(k), fb.get(k), at ? `${at}.${k}` : k);
      if (d) return d;
    }
  }
  return at || '(top level)';
}

function getPath(obj: unknown, p: string): unknown {
  let cur: unknown = obj;
  // The paths firstDifference names go through JSON objects only.
  for (const k of p.split('.')) cur = JsonFields.of(cur)?.get(k);
  return cur;
}

function show(v: unknown): string {
  const s = v === undefined ? '(absent)' : JSON.stringify(v);
  return s.length > 80 ? s.slice(0, 77) + '...' : s;
}

/** Throws a UserError naming the first field where a resumed run's configuration differs from the stored one. */
export function assertSameRun(stored: RunManifest, current: Pick<RunManifest, 'identity' | 'inputs' | 'indices'>, dir: string): void {
  const checks: [string, unknown, unknown][] = [
    ['identity', stored.identity, current.identity],
    ['inputs', stored.inputs, current.inputs],
    ['indices', stored.indices, current.indices],
  ];
  for (const [name, a, b] of checks) {
    const d = firstDifference(a, b, name);
    if (d) {
      throw new UserError(
        `${path.join(dir, MANIFEST_FILE)}: cannot resume: ${d} differs (stored ${show(getPath({ [name]: a }, d))}, now ${show(getPath({ [name]: b }, d))}); start a new run or give the stored settings`,
      );
    }
  }
}

/** Bug guard: refuses to write text that contains a secret value (API key) verbatim. */
export function assertNoSecrets(text: string, secrets: (string | undefined)[], what: string): void {
  for (const s of secrets) {
    if (s && s.length >= 6 && text.includes(s)) throw new Error(`refusing to write ${what}: it contains a secret value`);
  }
}
