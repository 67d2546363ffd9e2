// Which episodes a table cell compares (README "Reports": a 10-question offline500 HotpotQA cell sat beside a
// 3-question react500 FEVER cell; shards and their merge showed as three rows).
//
// 1. One folder per run id. A run id is the hash of everything that determines the results, so two
//    folders with the same id are reruns of one run (a copied results folder, a second results dir):
//    the one with more records is kept, and a note says so.
// 2. A merged run (kind "merge") supersedes the shard runs it was made from (manifest.sources).
// 3. A cohort is one comparable set of episodes: the same benchmark, split, item set (the planned
//    indices) and model fingerprint (manifest.identity.model: backend, model name, API mode, GGUF
//    sha256; a combination takes its base runs'). That is manifest.identity without its
//    method-specific parts: the method, its options (methodOptions) and the environment, which only
//    the interactive methods have. Runs of one method in a cohort that differ in those are
//    "variants", shown as rows of their own and named by the settings that differ.
// 4. Every table compares the methods of a cohort on the same items: those scored (no error) in
//    every run of the cohort. The runs handed to the tables are restricted to them; the note says
//    how many and what was left out.
import { canonicalJson, shortHash } from '../run/run-id.js';
import { orderedRecords, summarizeRun } from '../run/summary.js';
import type { CohortInfo, RunView } from './model.js';
import { isJsonValue, JsonFields, type JsonValue } from '../util/json-fields.js';
import type { RunManifest, EpisodeRecord } from '../runlog/schema.js';
import { sharedArray } from './slim-record.js';
import { getBenchmark, hasBenchmark } from '../benchmarks/registry.js';
import { camelCase } from '../run/options.js';
import { coreRunOptions } from '../run/core-options.js';

export interface Selection {
  runs: RunView[];
  /** What was dropped and why (reruns, superseded shards), one sentence each. */
  notes: string[];
}

/** Reruns of one run id count once; a merge supersedes its shards. */
export function selectRuns(runs: readonly RunView[]): Selection {
  const notes: string[] = [];
  const byId = new Map<string, RunView[]>();
  for (const r of runs) {
    const list = byId.get(r.manifest.runId) ?? [];
    list.push(r);
    byId.set(r.manifest.runId, list);
  }
  const kept: RunView[] = [];
  for (const [id, list] of byId) {
    if (list.length === 1) {
      kept.push(list[0]);
      continue;
    }
    // More records first; on a tie the folder whose last session ended latest, then the folder name.
    const ended = (r: RunView) =>
      r.manifest.sessions
        ?.map((s) => s.endedAt ?? s.startedAt ?? '')
        .sort()
        .at(-1) ?? '';
    const sorted = [...list].sort(
      (a, b) => b.records.length - a.records.length || ended(b).localeCompare(ended(a)) || a.dir.localeCompare(b.dir),
    );
    kept.push(sorted[0]);
    notes.push(
      `Run ${id} is in ${list.length} folders (${sorted.map((r) => `${r.dir}: ${r.records.length} records`).join('; ')}); it counts once, from ${sorted[0].dir} (the most records).`,
    );
  }
  const superseded = new Map<string, string>();
  for (const r of kept) {
    if (r.manifest.kind !== 'merge') continue;
    for (const s of r.manifest.sources ?? []) if (typeof s.runId === 'string') superseded.set(s.runId, r.manifest.runId);
  }
  const out: RunView[] = [];
  const dropped = new Map<string, string[]>();
  for (const r of kept) {
    const by = superseded.get(r.manifest.runId);
    if (by && r.manifest.shard) {
      dropped.set(by, [...(dropped.get(by) ?? []), r.manifest.runId]);
      continue;
    }
    out.push(r);
  }
  for (const [merge, shards] of dropped)
    notes.push(
      `Merged run ${merge} supersedes its ${shards.length} shard run(s) (${shards.sort().join(', ')}): they are not counted again.`,
    );
  const unmerged = out.filter((r) => r.manifest.shard);
  if (unmerged.length) {
    notes.push(
      `${unmerged.length} shard run(s) without a merge (${unmerged.map((r) => `${r.manifest.runId} (${r.manifest.shard})`).join(', ')}): each is reported on its own items; \`react-repro merge\` them to report the whole split.`,
    );
  }
  // Keep the order the runs were given in.
  return { runs: runs.filter((r) => out.includes(r)), notes };
}

/** The model part of a run's identity (combinations: their base runs'; schema 1: the model name). */
export function modelFingerprint(m: RunManifest): string {
  const id = JsonFields.orEmpty(m.identity);
  const model = id.get('model');
  if (model && typeof model === 'object') return canonicalJson(model);
  const base = id.get('base');
  if (base && typeof base === 'object') {
    const fps = [
      ...new Set(
        Object.values(base).map((b: unknown) => {
          const bm = b && typeof b === 'object' ? JsonFields.orEmpty(b).get('model') : undefined;
          return bm && typeof bm === 'object' ? canonicalJson(bm) : null;
        }),
      ),
    ];
    if (fps.length === 1 && fps[0] !== null) return fps[0];
  }
  return canonicalJson({ model: m.model });
}

/** The planned item set, as a short hash (order does not matter). */
export function itemSetKey(indices: readonly number[]): string {
  return `${indices.length}:${shortHash(
    [...new Set(indices)].sort((a, b) => a - b),
    12,
  )}`;
}

export function cohortKey(m: RunManifest): string {
  return canonicalJson([m.task, m.split, itemSetKey(m.indices), modelFingerprint(m)]);
}

const scoredIdx = (records: readonly EpisodeRecord[]) => new Set(records.filter((r) => !r.error).map((r) => r.idx));

/** Items of `indices` (in that order) scored in every one of the record lists. */
export function commonScored(indices: readonly number[], lists: readonly (readonly EpisodeRecord[])[]): number[] {
  const sets = lists.map(scoredIdx);
  return indices.filter((i) => sets.every((s) => s.has(i)));
}

export interface Cohort extends CohortInfo {
  runs: RunView[];
}

/** The cohorts of the runs, in first-seen order. */
export function buildCohorts(runs: readonly RunView[]): Cohort[] {
  const byKey = new Map<string, RunView[]>();
  for (const r of runs) {
    const k = cohortKey(r.manifest);
    byKey.set(k, [...(byKey.get(k) ?? []), r]);
  }
  return [...byKey].map(([key, rs]) => {
    const m = rs[0].manifest;
    const common = commonScored(
      m.indices,
      rs.map((r) => r.records),
    );
    const leftOut: CohortInfo['leftOut'] = {};
    for (const r of rs) {
      const have = new Map(r.records.map((x) => [x.idx, x]));
      let errors = 0;
      let missing = 0;
      for (const i of r.manifest.indices) {
        const x = have.get(i);
        if (!x) missing++;
        else if (x.error) errors++;
      }
      leftOut[r.manifest.runId] = { errors, missing };
    }
    return {
      key,
      benchmark: m.task,
      split: m.split,
      model: m.model,
      planned: new Set(m.indices).size,
      common,
      runIds: rs.map((r) => r.manifest.runId),
      leftOut,
      runs: rs,
    };
  });
}

/**
 * A run restricted to some of its items (a cohort's common items): records, indices and summary.
 * Where nothing is left out (a cohort without errors or gaps, the common case) the run's own record
 * and index arrays, or the common items themselves, are kept instead of copies alike: a report holds
 * every run twice (as stored and aligned), and a copy is 8 bytes an episode.
 */
export function restrictRun(run: RunView, indices: readonly number[]): RunView {
  const keep = new Set(indices);
  const planned = sharedArray(
    run.manifest.indices.filter((i) => keep.has(i)),
    run.manifest.indices,
    indices,
  );
  const manifest = { ...run.manifest, indices: planned };
  const map = new Map(run.records.filter((r) => keep.has(r.idx)).map((r) => [r.idx, r]));
  const records = sharedArray(orderedRecords(map, planned), run.records);
  return { ...run, manifest, records, summary: summarizeRun(manifest, map), full: run.full ?? run };
}

// ---- settings: what sets runs of one method apart ----

/** Settings the cohort already fixes (task, split, method, items, model) or that steered one invocation. */
const NOT_COMPARED = new Set([
  'task',
  'split',
  'method',
  'indices',
  'limit',
  'shard',
  'model',
  'llm',
  'fromRuns',
  'maxCost',
  'dryRun',
  'fromBundle',
]);

/** A setting no current flag declares (a run of an older version) is judged by its name, as it was then. */
const OPERATIONAL_BY_NAME = /cache|rpm$|tpm$|retr|timeout|price|balanc|endpoint|url$|apiKey|path$|inFlight|threads/i;

/**
 * The flags of a run of `task` by camelCase name, each with whether it says what the run computed: not
 * when the flag is declared operational (OptionSpec.operational: where or how it reached its servers)
 * or steers one invocation (session). The run's, the model's, the response limits' and the benchmark's.
 */
function flagRoles(task: string): Map<string, boolean> {
  const tables = [coreRunOptions, hasBenchmark(task) ? getBenchmark(task).options : {}];
  const out = new Map<string, boolean>();
  for (const table of tables)
    for (const [flag, spec] of Object.entries(table)) out.set(camelCase(flag), !spec.operational && !spec.session);
  return out;
}

/** Whether a recorded setting can make a run's results differ from another run's (before the method's own rule). */
function isComparedSetting(key: string, roles: ReadonlyMap<string, boolean>): boolean {
  if (NOT_COMPARED.has(key)) return false;
  return roles.get(key) ?? !OPERATIONAL_BY_NAME.test(key);
}

/** A run's settings by name, each as manifest.json stores it (a JSON value). */
export type SettingValues = Record<string, JsonValue>;

/**
 * The settings of a benchmark that only its environment reads: the flags it declares for its
 * environment (Benchmark.play.flags, what `env play` takes), camelCase as the manifest stores them.
 * Empty for a benchmark that declares none or is not registered here: nothing is left out on a guess.
 */
function environmentSettings(task: string): Set<string> {
  const flags = hasBenchmark(task) ? (getBenchmark(task).play?.flags ?? []) : [];
  return new Set(flags.map(camelCase));
}

/**
 * The settings of a benchmark's flags that a run of `method` never read, camelCase as the manifest
 * stores them: every flag of the benchmark (Benchmark.options) that is neither a flag the method
 * declares it reads (Benchmark.methodFlags) nor in `environment` (a run with an environment: its
 * environment's flags, play.flags). Empty where the benchmark is not registered here, declares no
 * methodFlags or does not know the method: nothing is left out on a guess.
 */
function unreadMethodSettings(task: string, method: string, environment: ReadonlySet<string>, fromGivenRuns: boolean): Set<string> {
  const bench = hasBenchmark(task) ? getBenchmark(task) : undefined;
  const read = bench?.methodFlags?.(method);
  if (!bench || !read) return new Set();
  // A combination made from given runs (--from-runs) did not run its bases with these settings: the
  // flags its base runs read are theirs, recorded in their own manifests, not in this one's.
  const bases = fromGivenRuns ? (bench.derivedMethods?.[method]?.bases ?? []) : [];
  const basesRead = new Set(bases.flatMap((b) => bench.methodFlags?.(b) ?? []));
  const keep = new Set([...read.filter((f) => !basesRead.has(f)).map(camelCase), ...environment]);
  return new Set(
    Object.keys(bench.options)
      .map(camelCase)
      .filter((k) => !keep.has(k)),
  );
}

/**
 * A run's settings that can make its results differ from another run of its method (flags and
 * experiment fields). A run records every flag of its benchmark, but its identity (src/run/run-identity.ts)
 * holds an environment only when its method steps one: a run whose manifest records no environment
 * (Standard, CoT, CoT-SC) never read its benchmark's environment flags (--wiki, --clean-str-errors...),
 * so they are not its settings. Where the benchmark declares which of its flags each method reads
 * (Benchmark.methodFlags), the others are not its settings either (ReAct never reads CoT-SC's
 * --samples, CoT never reads --max-steps); nor, for a combination made from given runs (--from-runs),
 * the flags its base runs read, which this invocation did not run them with. Settings that are no flag
 * of the benchmark (the model's, the run's own) count whatever the method.
 */
export function effectiveSettings(run: RunView): SettingValues {
  const out: SettingValues = {};
  const m = run.manifest;
  const environment = environmentSettings(m.task);
  // A combination made from given runs (--from-runs): its environment was its base runs' too.
  const fromGivenRuns = m.kind === 'combination' && m.settings?.fromRuns !== undefined;
  const steppedEnv = m.environment && !fromGivenRuns;
  const unread = unreadMethodSettings(m.task, m.method, steppedEnv ? environment : new Set(), fromGivenRuns);
  if (!steppedEnv) for (const k of environment) unread.add(k);
  const roles = flagRoles(m.task);
  for (const [k, v] of Object.entries(m.settings ?? {}))
    if (isComparedSetting(k, roles) && !unread.has(camelCase(k)) && isJsonValue(v)) out[k] = v;
  return out;
}

export function settingText(v: unknown): string {
  return typeof v === 'string' ? v : v === undefined ? '(default)' : JSON.stringify(v);
}

/** Keys whose values differ among the runs (absent counts as a value). */
export function differingKeys(settings: readonly SettingValues[]): string[] {
  const keys = [...new Set(settings.flatMap((s) => Object.keys(s)))].sort();
  return keys.filter((k) => new Set(settings.map((s) => canonicalJson(s[k] ?? null))).size > 1);
}

/** Names each run of a method by what sets it apart from the other runs of that method in its cohort. */
export function variantLabels(runs: readonly RunView[]): Map<RunView, string> {
  const out = new Map<RunView, string>();
  const byMethod = new Map<string, RunView[]>();
  for (const r of runs) byMethod.set(r.manifest.method, [...(byMethod.get(r.manifest.method) ?? []), r]);
  for (const rs of byMethod.values()) {
    if (rs.length < 2) continue;
    const settings = rs.map(effectiveSettings);
    const keys = differingKeys(settings);
    rs.forEach((r, i) => {
      out.set(r, keys.length ? keys.map((k) => `${k} ${settingText(settings[i][k])}`).join(', ') : `run ${r.manifest.runId.slice(-8)}`);
    });
  }
  return out;
}

export interface Grouped {
  /** The runs as stored, after selectRuns (what the runs table and the trajectory browser show). */
  runs: RunView[];
  /** The same runs restricted to their cohort's common items, with cohort and variant set (what the tables use). */
  aligned: RunView[];
  cohorts: Cohort[];
  notes: string[];
}

export function groupRuns(all: readonly RunView[]): Grouped {
  const { runs, notes } = selectRuns(all);
  const cohorts = buildCohorts(runs);
  const aligned: RunView[] = [];
  for (const c of cohorts) {
    const labels = variantLabels(c.runs);
    const info: CohortInfo = {
      key: c.key,
      benchmark: c.benchmark,
      split: c.split,
      model: c.model,
      planned: c.planned,
      common: c.common,
      runIds: c.runIds,
      leftOut: c.leftOut,
    };
    for (const r of c.runs) {
      const a = restrictRun(r, c.common);
      a.cohort = info;
      const v = labels.get(r);
      if (v) a.variant = r.variant = v;
      aligned.push(a);
    }
  }
  // Tables see the runs in the order they were given.
  aligned.sort((a, b) => runs.indexOf(a.full!) - runs.indexOf(b.full!));
  return { runs, aligned, cohorts, notes };
}

/** One sentence on what a cohort compares: "n = 19 items scored in all 7 runs (of 20 planned; left out: react 1 error)". */
export function cohortSentence(c: CohortInfo, methodOf: (runId: string) => string = (id) => id): string {
  const parts = Object.entries(c.leftOut)
    .filter(([, v]) => v.errors || v.missing)
    .map(
      ([id, v]) =>
        `${methodOf(id)} ${[v.errors ? `${v.errors} error${v.errors > 1 ? 's' : ''}` : '', v.missing ? `${v.missing} not run` : ''].filter(Boolean).join(', ')}`,
    );
  const runs = c.runIds.length;
  return `n = ${c.common.length} item${c.common.length === 1 ? '' : 's'} scored in ${runs === 1 ? 'the run' : `all ${runs} runs`} (of ${c.planned} planned${parts.length ? `; left out where a run has none: ${parts.join('; ')}` : ''})`;
}
