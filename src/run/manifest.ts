// manifest.json: everything needed to know what a run computed and to redo it, and the
// check that a resumed run still computes the same thing. The rules every writer of a manifest (a run,
// a combination, a merge, a re-run from a bundle) shares live here: the fields every new manifest
// stamps (schema, software, startedAt) in one field order, the settings and URLs as recorded (no
// credentials), a session as it begins and ends, and the write that refuses a secret.
import fs from 'node:fs';
import path from 'node:path';
import { fileShaMemoFile, isInstalledPackage, repoRoot } from '../paths.js';
import { readManifest as readVendored } from '../data/manifest.js';
import { rememberedSha256FileSync } from '../util/file-sha.js';
import { gitFactsSync } from '../util/git-facts.js';
import { JsonFields } from '../util/json-fields.js';
import { UserError } from '../errors.js';
import { holdsRedactedCredentials, matchableSecret, redactUrlsIn } from '../util/redact.js';
import { safeEndpointLabel } from '../llm/endpoints.js';
import { canonicalJson } from './run-id.js';
import { isSessionOnly } from './options.js';
import { settleEarlierSessions } from './meter.js';
import { manifestText, writeManifest, MANIFEST_FILE, RUN_LOG_SCHEMA } from '../runlog/store.js';
import type { Retry } from '../util/durable.js';
import type { Settings } from '../options.js';

import { PROCESS_GONE, type PriceStatus, type RunManifest, type SessionInfo } from '../runlog/schema.js';

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
    if (matchableSecret(s) && text.includes(s)) throw new Error(`refusing to write ${what}: it contains a secret value`);
  }
}

/**
 * Settings without session-only flags (what is worth recording as "the run's settings"), with the
 * credentials of each URL replaced by "***" (redactUrlsIn; a comma-separated pool has one per URL), so
 * a key in http://user:KEY@host or http://host/v1?api-key=KEY never reaches disk (a resumed run asks
 * for a redacted flag again: redactedSettingKeys).
 */
export function recordableSettings(settings: Settings): Settings {
  const out: Settings = {};
  const clean = (v: unknown): unknown => (typeof v === 'string' ? redactUrlsIn(v) : Array.isArray(v) ? v.map(clean) : v);
  for (const [k, v] of Object.entries(settings)) if (!isSessionOnly(k) && v !== undefined) out[k] = clean(v);
  return out;
}

/** Stored settings whose URL had credentials (recorded as "***@" or "?api-key=***"): they must be given again. */
export function redactedSettingKeys(settings: Settings): string[] {
  const has = (v: unknown): boolean => (typeof v === 'string' ? holdsRedactedCredentials(v) : Array.isArray(v) && v.some(has));
  return Object.keys(settings).filter((k) => has(settings[k]));
}

/** What a new run or combination states of itself; newManifest adds what every manifest has. */
export type ManifestParts = Omit<RunManifest, 'schema' | 'software' | 'startedAt' | 'limits' | 'fromBundle'>;

/**
 * A new manifest: the writer's parts in the one field order every manifest is written in, stamped with
 * the run-log schema, this software and when it began. An optional part left out is absent from the file.
 */
export function newManifest(p: ManifestParts, startedAt: string): RunManifest {
  return {
    schema: RUN_LOG_SCHEMA,
    runId: p.runId,
    kind: p.kind,
    task: p.task,
    metrics: p.metrics,
    method: p.method,
    split: p.split,
    shard: p.shard,
    model: p.model,
    indices: p.indices,
    ...(p.selection ? { selection: p.selection } : {}),
    ...(p.runIdTag ? { runIdTag: p.runIdTag } : {}),
    identity: p.identity,
    settings: p.settings,
    fidelity: p.fidelity,
    inputs: p.inputs,
    ...(p.changedInputs?.length ? { changedInputs: p.changedInputs } : {}),
    modelDescription: p.modelDescription,
    environment: p.environment,
    split_description: p.split_description,
    software: softwareInfo(),
    startedAt,
    sessions: p.sessions,
    ...(p.sources ? { sources: p.sources } : {}),
  };
}

/** A run's session as it begins (its recording id and spend are added as they become known). */
export function openSession(o: {
  startedAt: string;
  linesAtStart: number;
  price: PriceStatus;
  retryErrors: boolean;
  maxConsecutiveFailures: number | undefined;
  /** The model endpoints this session calls (RunModel.endpoints): a resume may be given another --base-url. */
  endpoints: readonly string[] | undefined;
}): SessionInfo {
  return {
    startedAt: o.startedAt,
    status: 'running',
    linesAtStart: o.linesAtStart,
    price: o.price,
    // Written as the model's description writes them (modelDescription.endpoints), so one server has one
    // spelling in a manifest: no userinfo, query (a key may hide there) or fragment.
    ...(o.endpoints?.length ? { endpoints: o.endpoints.map(safeEndpointLabel) } : {}),
    ...(o.retryErrors ? { retryErrors: true } : {}),
    ...(o.maxConsecutiveFailures !== undefined ? { maxConsecutiveFailures: o.maxConsecutiveFailures } : {}),
  };
}

/** How a session ended: its status, the records it wrote, what stopped it, the environment servers it used. */
export function closeSession(
  session: SessionInfo,
  o: Required<Pick<SessionInfo, 'status' | 'written'>> & Pick<SessionInfo, 'stoppedBy' | 'envServers' | 'envPool'>,
): void {
  // stoppedBy: beside the status (SessionInfo's union keeps 'interrupted' for every clean stop).
  Object.assign(session, {
    endedAt: new Date().toISOString(),
    status: o.status,
    written: o.written,
    ...(o.stoppedBy ? { stoppedBy: o.stoppedBy } : {}),
    ...(o.envServers ? { envServers: o.envServers } : {}),
    ...(o.envPool !== undefined ? { envPool: o.envPool } : {}),
  });
}

/** The one session of a run derived at once (a combination): it began and ended at `at`. */
export function instantSession(at: string, written: number): SessionInfo {
  return { startedAt: at, endedAt: at, status: 'complete', written };
}

/**
 * Earlier sessions as a resume finds them: one that ended without recording its spend (kill -9) has it
 * read back from the recording, and one still "running" ended without closing (this process holds the
 * run's lock now; `merge` settles copies of its shards' sessions once no live process holds theirs).
 */
export function settleAbandonedSessions(dir: string, sessions: SessionInfo[]): void {
  settleEarlierSessions(dir, sessions);
  for (const s of sessions) if (s.status === 'running') Object.assign(s, { status: 'interrupted', stoppedBy: PROCESS_GONE });
}

/** manifest.json's text (manifestText), refused when it holds one of `secrets` (API keys known by value). */
export function checkedManifestText(manifest: RunManifest, secrets: readonly (string | undefined)[]): string {
  const text = manifestText(manifest);
  assertNoSecrets(text, [...secrets], MANIFEST_FILE);
  return text;
}

/** Writes manifest.json whole, its text checked for secrets: how every writer writes it. */
export function saveManifest(dir: string, manifest: RunManifest, secrets: readonly (string | undefined)[], retry?: Retry): void {
  writeManifest(dir, checkedManifestText(manifest, secrets), retry);
}
