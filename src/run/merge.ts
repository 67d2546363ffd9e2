// `merge`: shard runs (--shard K/N) of one configuration into one run. Overlapping shards are
// de-duplicated (merge-dedupe.ts: the latest valid record of an item wins, counted). Refuses, with one
// line, shards whose manifests disagree apart from the shard, a folder given twice, gaps, unfinished
// shards, shards whose episodes.jsonl lost records in a copy, or shards still running (their run lock
// held). A shard's session that never closed (killed with -9) is copied as `run --resume` settles it.
// The merged run has the unsharded run's id (it resumes as that run) and carries the kept episodes'
// recordings (it bundles and replays offline). Merging again over the merged run is allowed only while
// that run holds nothing but the merge (no resume or --retry-errors since): otherwise the re-merge
// would put the shards' records back over what was run there.
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.js';
import {
  holdsUnfinishedRunFiles,
  isRunFolder,
  makeRunFolder,
  readManifest,
  loadEpisodes,
  episodesFile,
  writeEpisodes,
  writeRecording,
  writeSummary,
  withdrawManifest,
  MANIFEST_FILE,
} from '../runlog/store.js';
import { firstDifference, saveManifest, settleAbandonedSessions } from './manifest.js';
import { makeRunId } from './run-id.js';
import { parseShard } from './shard.js';
import { orderedRecords, summarizeRun, summaryCsv } from './summary.js';
import { manifestLimitsOf } from './limit-outcomes.js';
import { mergedRecording, pickRecords, type RecordingLack } from './merge-dedupe.js';
import { acquireRunLock, bareLockAdvice, lockState, LOCK_FILE } from './lock.js';
import { checkWritableDir } from '../util/safe-path.js';
import { missingRecords, missingRecordsText } from '../runlog/missing-records.js';
import { isScored } from '../util/numbers.js';
import type { RunManifest, RunSummary, EpisodeRecord, SessionInfo } from '../runlog/schema.js';

export interface ShardRun {
  dir: string;
  manifest: RunManifest;
  records: Map<number, EpisodeRecord>;
  /** Record lines its episodes.jsonl holds (replaced ones included): a partial copy holds fewer than its sessions wrote. */
  lines: number;
}

function readRun(dir: string): ShardRun {
  if (!isRunFolder(dir)) throw new UserError(`merge: ${dir} is not a run folder (no ${MANIFEST_FILE})`);
  checkNotRunning(dir);
  const { records, lines } = loadEpisodes(episodesFile(dir));
  return { dir, manifest: readManifest(dir), records, lines };
}

/**
 * Refuses a shard that a process may still be writing: its run lock (lock.ts) held by a live process, by
 * one on another host (whose processes cannot be seen), or an old bare-PID lock whose PID is alive here
 * (lock.ts bareLockMayBeLive: the rule a resume follows). Judged without taking the lock: merge never
 * writes a shard's folder.
 */
function checkNotRunning(dir: string): void {
  const l = lockState(dir);
  if (l.held === 'bare-pid')
    throw new UserError(`merge: ${dir} may still be running: ${bareLockAdvice(path.join(dir, LOCK_FILE), l.pid)}; then merge`);
  if (l.held === 'alive')
    throw new UserError(`merge: ${dir} is still running (process ${l.pid} holds its run lock); wait for it or stop it, then merge`);
  if (l.held === 'other-host')
    throw new UserError(
      `merge: ${dir} may still be running on host ${l.host} (its run lock); wait for it or stop it, then merge; if that host no longer runs it, delete ${path.join(dir, LOCK_FILE)}`,
    );
}

/**
 * A shard's sessions as `run --resume` finds them (manifest.ts settleAbandonedSessions): one killed (-9)
 * has its spend read back from the recording, and one still "running" (no live process holds the shard:
 * checkNotRunning) is interrupted, process gone. Copies: the shard's own manifest is not changed.
 */
function settledSessions(r: ShardRun): SessionInfo[] {
  const sessions = r.manifest.sessions.map((s) => ({ ...s }));
  settleAbandonedSessions(r.dir, sessions);
  return sessions;
}

function withoutShard(m: RunManifest) {
  const { shard: _s, ...identity } = m.identity;
  return {
    task: m.task,
    method: m.method,
    split: m.split,
    model: m.model,
    identity,
    inputs: m.inputs,
    selection: m.selection ?? m.indices,
  };
}

export interface MergeResult {
  runId: string;
  dir: string;
  summary: RunSummary;
  /** Records dropped because another run of the merge also had the item (the latest valid one kept). */
  overlapping: number;
  /** The folder already held this merged run, with no session since the merge: merged again over it. */
  remerged: boolean;
  /** The kept records that are error episodes, in selection order (what `run --retry-errors` re-runs). */
  errorRecords: EpisodeRecord[];
  /** Why the merged run carries no recording (it then cannot be bundled), naming the shard's file. */
  recordingLacking?: string;
  /** Whether a whole copy of that file would give the merged run its recording (merge-dedupe.ts RecordingLack). */
  recordingCause?: RecordingLack;
}

/** A session as the manifests name it: shards keep theirs, and a merge copies them unchanged. */
function sessionKey(s: SessionInfo): string {
  return `${s.startedAt}|${s.recording ?? ''}`;
}

/**
 * Refuses to merge over `dir` unless it holds this merged run and every one of its sessions is one of
 * the shards' (none was added by a resume or --retry-errors since the merge); says whether it holds one.
 */
function checkMergeTarget(dir: string, label: string, runId: string, shardSessions: readonly SessionInfo[]): boolean {
  if (!isRunFolder(dir)) {
    // The run lock and the files of a merge that stopped before its manifest (a full disk, a kill) are
    // not content: the same merge writes them again.
    if (fs.existsSync(dir) && !holdsUnfinishedRunFiles(dir)) throw new UserError(`merge: ${label} is not empty; choose an empty folder`);
    return false;
  }
  const m = readManifest(dir);
  if (m.kind !== 'merge' || m.runId !== runId)
    throw new UserError(`merge: ${label} already holds another run (${m.runId}); choose an empty folder`);
  const fromShards = new Set(shardSessions.map(sessionKey));
  const since = (m.sessions ?? []).filter((s) => !fromShards.has(sessionKey(s)));
  if (since.length > 0) {
    throw new UserError(
      `merge: ${dir} holds merged run ${runId} continued since the merge (${since.length} session${since.length === 1 ? '' : 's'} not from these shards, e.g. run --resume or --retry-errors): merging again would lose them; merge into another --results-dir or --out, or remove ${dir} first`,
    );
  }
  return true;
}

export function mergeRuns(dirs: string[], outOrResults: string | { resultsDir: string }): MergeResult {
  if (dirs.length === 0) throw new UserError('merge: name the shard run folders to merge');
  const given = new Set<string>();
  for (const d of dirs.map((x) => path.resolve(x))) {
    if (given.has(d)) throw new UserError(`merge: shards overlap: ${d} is given twice`);
    given.add(d);
  }
  const runs = dirs.map((d) => readRun(path.resolve(d)));
  // Again once read: a shard resumed meanwhile holds its lock, and its open session is not one to settle.
  for (const r of runs) checkNotRunning(r.dir);
  const first = runs[0];
  const ref = withoutShard(first.manifest);
  for (const r of runs.slice(1)) {
    const d = firstDifference(ref, withoutShard(r.manifest));
    if (d) throw new UserError(`merge: ${r.dir} and ${first.dir} are not shards of one run: ${d} differs`);
  }
  const selection = ref.selection;
  for (const r of runs) {
    if (!r.manifest.shard)
      throw new UserError(`merge: ${r.dir} is not a shard (its manifest has no shard); only --shard runs can be merged`);
    parseShard(r.manifest.shard, `merge: ${r.dir} shard`);
  }
  // A shard whose file holds fewer records than its sessions wrote is a copy cut short, not a run to
  // resume (a resume would run, and pay for, those episodes again). Checked for every shard, gap or not:
  // a copy of a --retry-errors shard that lost its last lines (the fixes) still holds an older record of
  // every item, and the merged run, never judged so itself (missing-records.ts), would hide the loss.
  for (const r of runs) {
    const cut = missingRecords(r.manifest, r.lines);
    if (!cut) continue;
    // another folder given holds the same shard (a re-run): merging without this one also works
    const other = runs.find((o) => o !== r && o.manifest.shard === r.manifest.shard && !missingRecords(o.manifest, o.lines));
    throw new UserError(
      `merge: shard ${r.manifest.shard} (${r.dir}): ${missingRecordsText(episodesFile(r.dir), cut)}: copy the shard's folder again, whole, then merge${other ? `, or leave it out (${other.dir} holds shard ${r.manifest.shard} too)` : ''}`,
    );
  }
  // Overlapping shards (a task run twice, a re-submitted array) are de-duplicated: per item, the
  // latest valid record wins (merge-dedupe.ts); how many were dropped is counted and reported.
  const { records, overlapping, from } = pickRecords(runs);
  const gaps = selection.map((i, p) => (records.has(i) ? -1 : p)).filter((p) => p >= 0);
  if (gaps.length) {
    const item = selection[gaps[0]];
    const unfinished = runs.find((r) => r.manifest.indices.includes(item));
    if (unfinished) {
      const missing = unfinished.manifest.indices.filter((i) => !records.has(i));
      throw new UserError(
        `merge: shard ${unfinished.manifest.shard} (${unfinished.dir}) is unfinished: ${missing.length} of ${unfinished.manifest.indices.length} episodes missing (first: item ${missing[0]}); resume it first`,
      );
    }
    const n = parseShard(first.manifest.shard!).n;
    const k = (gaps[0] % n) + 1;
    throw new UserError(
      `merge: the shards leave a gap: ${gaps.length} of ${selection.length} items uncovered (first: item ${item}; is shard ${k}/${n} missing?)`,
    );
  }

  const runId = makeRunId(
    { task: ref.task, method: ref.method, split: ref.split, model: ref.model, tag: first.manifest.runIdTag },
    ref.identity,
  );
  const out = typeof outOrResults === 'string' ? outOrResults : path.join(outOrResults.resultsDir, runId);
  const outDir = checkWritableDir(out, typeof outOrResults === 'string' ? 'merge --out' : 'merge --results-dir');
  if (fs.existsSync(outDir) && !fs.statSync(outDir).isDirectory())
    throw new UserError(`merge: --out ${out} is a file; choose an empty folder`);
  // The bill of every shard session stays the merged run's spend, also for records the de-duplication
  // dropped (src/run/meter.ts).
  const sessions = runs.flatMap(settledSessions);
  // Checked before anything is written, then again under the run lock: a resume of the merged run
  // holds that lock from before it adds its session until it ends.
  checkMergeTarget(outDir, `--out ${out}`, runId, sessions);
  makeRunFolder(outDir, 'creating the merged run folder', 'rebuild');
  const lock = acquireRunLock(outDir, 'rebuild');
  try {
    const remerged = checkMergeTarget(outDir, `--out ${out}`, runId, sessions);
    return { ...writeMerged(outDir, runId, runs, records, from, sessions, overlapping), remerged };
  } finally {
    lock.release();
  }
}

function writeMerged(
  outDir: string,
  runId: string,
  runs: ShardRun[],
  records: Map<number, EpisodeRecord>,
  from: ReturnType<typeof pickRecords>['from'],
  sessions: SessionInfo[],
  overlapping: number,
): Omit<MergeResult, 'remerged'> {
  const first = runs[0];
  const ref = withoutShard(first.manifest);
  const { selection, identity } = ref;
  const ordered = orderedRecords(records, selection);
  const lines = selection.map((i) => JSON.stringify(records.get(i)) + '\n').join('');
  // The kept episodes' recorded attempts travel with the merged run, so `bundle` can pack it (merge-dedupe.ts).
  const recording = mergedRecording(runs, selection, from);
  const manifest: RunManifest = {
    ...first.manifest,
    runId,
    kind: 'merge',
    shard: null,
    indices: selection,
    selection: undefined,
    identity,
    settings: { ...first.manifest.settings, shard: undefined },
    startedAt: runs.map((r) => r.manifest.startedAt).sort()[0],
    sessions,
    sources: runs.map((r) => ({ dir: r.dir, runId: r.manifest.runId, shard: r.manifest.shard, software: r.manifest.software })),
    limits: manifestLimitsOf(ordered),
    ...(overlapping > 0
      ? {
          deduplicated: {
            episodes: overlapping,
            rule: "per item, the latest error-free record (by its run's last session end), else the latest record",
          },
        }
      : {}),
  };
  const summary = summarizeRun(manifest, records);
  // Everything read and checked first (a shard's bad recording is refused with the folder untouched).
  // Then whole or absent: each file is replaced atomically (temp + fsync + rename), and the manifest
  // goes first and comes back last, so a merge stopped between files (a full disk) leaves a folder that
  // reads as no run, never an earlier merge's manifest over these episodes; the same command writes
  // it again ('rebuild' in the disk advice).
  withdrawManifest(outDir);
  writeEpisodes(outDir, lines, 'the merged episodes', 'rebuild');
  writeRecording(outDir, recording.text, 'rebuild');
  writeSummary(outDir, summaryCsv([summary]), 'rebuild');
  // Its text is the shards' (checked when they were written) with this merge's fields: no secret is known here.
  saveManifest(outDir, manifest, [], 'rebuild');
  const errorRecords = ordered.filter((r) => !isScored(r));
  return {
    runId,
    dir: outDir,
    summary,
    overlapping,
    errorRecords,
    ...(recording.lacking ? { recordingLacking: recording.lacking, recordingCause: recording.cause } : {}),
  };
}
