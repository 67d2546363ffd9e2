// `run --from-bundle FILE [--results-dir DIR]`: re-runs every run of a bundle (bundle.ts) with no
// model and no environment server, then checks the result against the bundle (README "Reports").
// Each run goes through the normal executeRun with its stored settings; only the model and the
// environment are replaced: the model answers from the bundle's cache entries, following each
// episode's recorded model calls in order (the prompt's cache key must be the recorded one), and
// the environment answers from the recorded resets and steps (src/envs/recording.ts). Any call that
// is not the recorded one stops the re-run with a ReplayDivergence naming the episode and the step.
// Afterwards episodes.jsonl is compared with the bundled one, record by record, byte for byte except
// NONDETERMINISTIC_FIELDS (latency_ms: wall-clock time) and a field added since the bundled record
// was written (FIELDS_ADDED_SINCE). Line order is not compared: episodes run
// concurrently and are appended as they finish, and a run log is read as the latest record per item.
// The re-run sends nothing to a model, so its session spends nothing (its answers are `replayed`),
// while its records keep the bundled accounting, what the original episode spent included.
import fs from 'node:fs';
import path from 'node:path';
import type { Benchmark, Item } from '../benchmarks/types.js';
import { benchmarkOptions, getBenchmark as registryBenchmark } from '../benchmarks/registry.js';
import { FatalRunError, UserError, errorMessage } from '../errors.js';
import { cacheKey } from '../llm/cache/key.js';
import type { CompletionModel, CompletionRequest, CompletionResult } from '../llm/types.js';
import type { Method, MethodContext } from '../methods/types.js';
import { clip, quote, replayEnvHandle, ReplayDivergence, reviveError, type EnvEvent, type EpisodeCursor } from '../envs/recording.js';
import { defaultResultsDir } from '../paths.js';
import { bundleCacheEntries, memberText, NONDETERMINISTIC_FIELDS, openBundle, type CacheEntry, type OpenedBundle } from './bundle.js';
import { executeRun } from './execute.js';
import type { RunDeps, RunIO } from './run-deps.js';
import type { RunStatus } from './run-result.js';
import { bundleSettings } from './bundle-settings.js';
import type { OptionTable } from '../options.js';
import type { Settings } from './experiment.js';
import { inputShas, saveManifest } from './manifest.js';
import { noSpend, type Spend } from './meter.js';
import { episodesFile, episodesText, readManifest, EPISODES_FILE, MANIFEST_FILE, RECORDING_FILE } from '../runlog/store.js';
import { isJsonObject, JsonFields } from '../util/json-fields.js';
import {
  checkManifest,
  upgradeRecord,
  parseRecording,
  type RunManifest,
  type RecordedAttempt,
  type RunSummary,
  type EpisodeRecord,
  usageUnknownCalls,
} from '../runlog/schema.js';

/** The re-run of a bundled run differs from the bundle although every call was replayed. */
export class ReplayMismatch extends FatalRunError {}

export interface FromBundleOptions {
  /** Where the re-run's run folders go (default ./results); they must not exist yet. */
  resultsDir?: string;
  /** Every option `run` accepts: the bundle's stored settings are checked against it (bundle-settings.ts). */
  options?: OptionTable;
  /** The benchmark registry (tests pass doubles). */
  getBenchmark?: (name: string) => Benchmark;
}

export interface ReplayedRun {
  runId: string;
  dir: string;
  status: RunStatus;
  summary: RunSummary;
  /** Episodes compared with the bundle (all identical when the run completed). */
  compared: number;
  /** What the re-run paid for (the meter's figure: nothing, as no model is asked). */
  spent: Spend;
}

/** Where one episode's replay stands: its recorded attempt, model calls and environment calls answered. */
class EpisodeReplay {
  readonly cursor: EpisodeCursor = { steps: 0, envCalls: 0 };
  calls = 0;

  constructor(
    readonly item: Item,
    readonly attempt: RecordedAttempt | undefined,
  ) {}

  /** The recorded answer to this model call, or a ReplayDivergence. */
  answer(req: CompletionRequest, cache: ReadonlyMap<string, CacheEntry>): CompletionResult {
    const step = this.cursor.steps + 1;
    const n = ++this.calls;
    const a = this.attempt;
    if (!a) throw new ReplayDivergence(this.item.index, step, 'the bundle holds no recorded episode for this item');
    const line = a.llm[n - 1];
    if (!line)
      throw new ReplayDivergence(this.item.index, step, `model call ${n} is not in the bundle (the recorded episode made ${a.llm.length})`);
    const key = cacheKey(a.session.model, a.session.api, req);
    if (key !== line.key) {
      throw new ReplayDivergence(
        this.item.index,
        step,
        `the prompt of model call ${n} is not in the bundle${promptDifference(req, cache.get(line.key))}`,
      );
    }
    if (line.error) throw reviveError(line.error);
    const entry = cache.get(key);
    if (!entry || entry.samples.length < req.n) {
      throw new ReplayDivergence(
        this.item.index,
        step,
        `the completion of model call ${n} is not in the bundle's cache entries (key ${key.slice(0, 12)}…)`,
      );
    }
    // The recorded call's own accounting, as the original got it, so the record comes out byte for
    // byte (spent_usage, cached_calls); `replayed`: the meter counts none of it as this session's spend.
    return {
      choices: entry.samples.slice(0, req.n).map((s, index) => ({ index, text: s.text, finishReason: s.finishReason })),
      usage: { ...line.usage! },
      costUsd: line.cost ?? 0,
      cachedChoices: line.cached ?? 0,
      latencyMs: 0,
      ...(line.total ? { total: { ...line.total, usage: { ...line.total.usage } } } : {}),
      ...(line.usageUnknown ? { usageUnknown: true as const } : {}),
      replayed: true,
    };
  }

  /** After the episode returned: it must have used the whole recording. */
  checkConsumed(): void {
    const a = this.attempt;
    if (!a) return;
    if (this.calls < a.llm.length) {
      throw new ReplayDivergence(
        this.item.index,
        this.cursor.steps,
        `the episode ended after ${this.calls} of its ${a.llm.length} recorded model calls`,
      );
    }
    if (this.cursor.envCalls < a.env.length) {
      throw new ReplayDivergence(
        this.item.index,
        this.cursor.steps,
        `the episode ended after ${this.cursor.envCalls} of its ${a.env.length} recorded environment calls`,
      );
    }
  }
}

/** Where the prompt differs from the recorded one, when the bundle has the recorded request. */
function promptDifference(req: CompletionRequest, recorded: CacheEntry | undefined): string {
  if (!recorded?.request) return '';
  let was: { prompt?: unknown };
  try {
    was = JSON.parse(recorded.request);
  } catch {
    return '';
  }
  if (typeof was.prompt !== 'string') return '';
  const a = was.prompt;
  const b = req.prompt;
  if (a === b) return ' (same prompt text; the stop sequences or sampling parameters differ)';
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return ` (it differs from the recorded prompt at character ${i}: recorded ${quote(a.slice(i, i + 40), 40)}, now ${quote(b.slice(i, i + 40), 40)})`;
}

const EPISODE = Symbol('react-repro.bundle-episode');
type TaggedOptions = { signal?: AbortSignal; [EPISODE]?: EpisodeReplay };

/** The model of a re-run: every answer from the bundle, through the runner's own per-episode wrappers. */
function bundleModel(stored: RunManifest, cache: ReadonlyMap<string, CacheEntry>, b: OpenedBundle): CompletionModel {
  return {
    model: stored.model,
    // The recorded description (it is part of the run id); the cache field says where answers come from.
    describe: () => ({ ...stored.modelDescription, cache: { mode: 'bundle', bundle: path.basename(b.file), sha256: b.sha256 } }),
    // The recorded run's identity: the re-run names the same run.
    identity: () => recordedIdentity(stored, 'model'),
    async complete(req, opts?: TaggedOptions) {
      opts?.signal?.throwIfAborted();
      const ep = opts?.[EPISODE];
      if (!ep) throw new Error('bundle model: a call outside an episode (no episode tag)');
      return ep.answer(req, cache);
    },
  };
}

/** One part of the recorded run's identity (model or environment), as its manifest stores it. */
function recordedIdentity(stored: RunManifest, part: 'model' | 'environment'): Record<string, unknown> {
  const v = stored.identity[part];
  return isJsonObject(v) ? structuredClone(v) : {};
}

/** The method with each episode's replay state attached to its model calls. */
function replayingMethod(inner: Method, episodes: Map<number, EpisodeReplay>, finals: ReadonlyMap<number, RecordedAttempt>): Method {
  return {
    name: inner.name,
    needsEnv: inner.needsEnv,
    describe: () => inner.describe(),
    async run(item: Item, ctx: MethodContext) {
      const ep = new EpisodeReplay(item, finals.get(item.index));
      episodes.set(item.index, ep);
      // The runner passes our model (through its counting wrapper) the options object unchanged.
      const model: CompletionModel = {
        get model() {
          return ctx.model.model;
        },
        describe: () => ctx.model.describe(),
        complete: (req, o) => ctx.model.complete(req, { ...(o ?? {}), [EPISODE]: ep } as TaggedOptions),
      };
      const result = await inner.run(item, { ...ctx, model });
      ep.checkConsumed();
      return result;
    },
  };
}

/** A benchmark whose environment and methods are the replaying ones; everything else is the real plug-in's. */
function replayingBenchmark(
  real: Benchmark,
  stored: RunManifest,
  finals: ReadonlyMap<number, RecordedAttempt>,
  episodes: Map<number, EpisodeReplay>,
): Benchmark {
  const envTraces = new Map<number, EnvEvent[]>([...finals].map(([i, a]) => [i, a.env]));
  const cursorOf = (item: Item) => episodes.get(item.index)?.cursor ?? { steps: 0, envCalls: 0 };
  return new Proxy(real, {
    get(target, prop) {
      if (prop === 'createEnv')
        return async () =>
          replayEnvHandle(envTraces, {
            describe: stored.environment ?? {},
            identity: recordedIdentity(stored, 'environment'),
            cursor: cursorOf,
          });
      if (prop === 'createMethod')
        return (name: string, options: unknown) => replayingMethod(target.createMethod(name, options), episodes, finals);
      // Items that depend on the settings (ALFWorld --games FILE): the same replay over that view.
      if (prop === 'forSettings')
        return (options: unknown) =>
          target.forSettings ? replayingBenchmark(target.forSettings(options), stored, finals, episodes) : undefined;
      // bound to the plug-in itself, so its own fields (private ones included) stay reachable
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

/** Latest record per item of a run log's text, as written (line text, its line number and parsed record). */
function finalRecords(text: string, where: string): Map<number, { line: string; lineNo: number; rec: EpisodeRecord }> {
  const out = new Map<number, { line: string; lineNo: number; rec: EpisodeRecord }>();
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let rec: EpisodeRecord;
    try {
      rec = upgradeRecord(JSON.parse(line));
    } catch (e) {
      throw new UserError(`${where}:${i + 1}: not an episode record (${errorMessage(e)})`);
    }
    out.delete(rec.idx);
    out.set(rec.idx, { line, lineNo: i + 1, rec });
  });
  return out;
}

/**
 * Fields this version adds to a record that an older one did not write: a bundled record without one was
 * written before it existed, so the re-run's is not compared with it (the count of calls without usage
 * that went to the model, src/run/record.ts).
 */
const FIELDS_ADDED_SINCE = ['spent_usage_unknown_calls'];

/**
 * Whether `bundled` was written before `field` existed: it lacks the field where this version writes it
 * (a record with calls without usage always says how many went to the model), so a re-run that writes
 * it wrongly is still caught in every bundle made since.
 */
function predates(bundled: EpisodeRecord, field: string): boolean {
  return !(field in bundled) && usageUnknownCalls(bundled) > 0;
}

const NONDETERMINISTIC: ReadonlySet<string> = new Set(NONDETERMINISTIC_FIELDS);

/**
 * The fields an episode's comparison leaves out: those a re-run cannot reproduce, and those the
 * `bundled` record predates (the same set for both of the pair's records).
 */
function skippedFields(bundled: EpisodeRecord): ReadonlySet<string> {
  const predated = FIELDS_ADDED_SINCE.filter((k) => predates(bundled, k));
  return predated.length ? new Set([...NONDETERMINISTIC, ...predated]) : NONDETERMINISTIC;
}

/** The record as compared: its JSON line without the `skip` fields. */
function comparable(rec: EpisodeRecord, skip: ReadonlySet<string>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(rec).filter(([k]) => !skip.has(k))));
}

/** At `path` the values differ, or an object there holds the same fields and values in another order. */
type Difference = { path: string; a: unknown; b: unknown } | { path: string; order: { bundle: string; rerun: string } };

/**
 * The first difference between two JSON values, in the bundled record's field order ("steps[1].observation");
 * for fields in another order, the first field out of place in the bundle and what the re-run has there.
 */
function firstRecordDifference(a: unknown, b: unknown, at: string): Difference | null {
  if (JSON.stringify(a) === JSON.stringify(b)) return null;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const d = firstRecordDifference(a[i], b[i], `${at}[${i}]`);
      if (d) return d;
    }
  } else if (isJsonObject(a) && isJsonObject(b)) {
    const fa = JsonFields.orEmpty(a);
    const fb = JsonFields.orEmpty(b);
    const ka = fa.keys();
    const kb = fb.keys();
    for (const k of [...ka, ...kb.filter((k) => !ka.includes(k))]) {
      const d = firstRecordDifference(fa.get(k), fb.get(k), at ? `${at}.${k}` : k);
      if (d) return d;
    }
    // Every field is there on both sides with the same value: only their order differs.
    const i = ka.findIndex((k, j) => k !== kb[j]);
    return { path: at, order: { bundle: ka[i], rerun: kb[i] } };
  }
  return { path: at || '(record)', a, b };
}

/**
 * The first way the re-run's episodes differ from the bundled ones (null when identical except
 * NONDETERMINISTIC_FIELDS): one line naming the episode and the field.
 */
export function compareEpisodes(bundled: string, rerun: string, where: { bundled: string; rerun: string }): string | null {
  const a = finalRecords(bundled, where.bundled);
  const b = finalRecords(rerun, where.rerun);
  // A text quoted, any other value as its JSON: the number 1 and the text "1" do not read alike.
  const show = (v: unknown) => {
    if (v === undefined) return '(absent)';
    return typeof v === 'string' ? quote(v, 60) : clip(JSON.stringify(v), 60);
  };
  for (const [idx, x] of a) {
    const y = b.get(idx);
    if (!y) return `episode ${idx} is in the bundle but the re-run has no record of it`;
    const skip = skippedFields(x.rec);
    const ca = comparable(x.rec, skip);
    const cb = comparable(y.rec, skip);
    if (ca === cb) continue;
    const d = firstRecordDifference(JSON.parse(ca), JSON.parse(cb), '')!;
    if ('order' in d) {
      // The files are compared byte for byte: the same record written with its fields in another order is not the same line.
      return `episode ${idx}: ${d.path || 'the record'} holds the same fields and values as the bundled one in another order (line ${x.lineNo} of the bundled episodes.jsonl, line ${y.lineNo} of the re-run's): the first field out of place is ${JSON.stringify(d.order.bundle)}, where the re-run has ${JSON.stringify(d.order.rerun)}`;
    }
    if (typeof d.a === 'string' && typeof d.b === 'string') {
      // long texts (traj, observations): show where they part
      let i = 0;
      while (i < d.a.length && i < d.b.length && d.a[i] === d.b[i]) i++;
      const from = Math.max(0, i - 20);
      const cut = (t: string) => (from > 0 ? '…' : '') + t.slice(from, from + 50) + (t.length > from + 50 ? '…' : '');
      return `episode ${idx}: ${d.path} differs at character ${i} (bundle ${JSON.stringify(cut(d.a))}, re-run ${JSON.stringify(cut(d.b))})`;
    }
    return `episode ${idx}: ${d.path} differs (bundle ${show(d.a)}, re-run ${show(d.b)})`;
  }
  for (const idx of b.keys()) if (!a.has(idx)) return `the re-run has episode ${idx}, which the bundle does not`;
  return null;
}

/** Re-runs every run of the bundle into `resultsDir` and checks each against the bundle. */
export async function runFromBundle(file: string, opts: FromBundleOptions, io: RunIO): Promise<ReplayedRun[]> {
  const b = openBundle(file);
  const cache = bundleCacheEntries(b);
  const resultsDir = opts.resultsDir !== undefined ? path.resolve(opts.resultsDir) : defaultResultsDir();
  const getBench = opts.getBenchmark ?? registryBenchmark;
  // Checked for every run before the first one starts: nothing is half re-run because of a name clash.
  for (const run of b.manifest.runs) {
    const target = path.join(resultsDir, run.runId);
    if (fs.existsSync(target)) throw new UserError(`run --from-bundle: ${target} already exists; re-run into an empty --results-dir`);
  }
  const out: ReplayedRun[] = [];
  for (const run of b.manifest.runs) {
    const where = (name: string) => `${b.file}:${run.folder}/${name}`;
    let stored: RunManifest;
    try {
      stored = checkManifest(JSON.parse(memberText(b, `${run.folder}/${MANIFEST_FILE}`)), where(MANIFEST_FILE));
    } catch (e) {
      if (e instanceof UserError) throw e;
      throw new UserError(`${where(MANIFEST_FILE)}: not valid JSON (${errorMessage(e)})`);
    }
    const recording = parseRecording(memberText(b, `${run.folder}/${RECORDING_FILE}`), where(RECORDING_FILE));
    const bundledEpisodes = memberText(b, `${run.folder}/${EPISODES_FILE}`);
    const episodes = new Map<number, EpisodeReplay>();
    // The bundle's settings are checked as flags would be, and no path is taken from them.
    const settings: Settings = {
      ...(opts.options ? bundleSettings(stored.settings, opts.options, where(MANIFEST_FILE)) : stored.settings),
      resultsDir,
    };
    delete settings.resume;
    delete settings.retryErrors;
    const deps: RunDeps = {
      getBenchmark: (name) => replayingBenchmark(getBench(name), stored, recording.final, episodes),
      createModel: async () => ({ backend: bundleModel(stored, cache, b) }),
      secrets: () => [],
    };
    // The repo files the run read (prompts, data): a changed one makes the re-run diverge; say which first.
    const { inputs } = inputShas(bundledRunInputFiles(getBench(stored.task), stored.method, settings));
    for (const [file, sha] of Object.entries(inputs)) {
      const was = stored.inputs?.[file];
      if (sha && was && sha !== was)
        io.log(
          `warning: ${file} differs from the file ${stored.runId} read (sha256 ${was.slice(0, 12)}…, now ${sha.slice(0, 12)}…): the re-run will likely diverge`,
        );
    }
    const res = await executeRun(settings, deps, io);
    // Marked also when the re-run diverged (its folder still came from the bundle).
    if (fs.existsSync(path.join(res.dir, MANIFEST_FILE))) {
      const manifest = readManifest(res.dir);
      manifest.fromBundle = {
        file: path.basename(b.file),
        sha256: b.sha256,
        schema: b.manifest.schema,
        createdAt: b.manifest.createdAt,
        runId: stored.runId,
      };
      saveManifest(res.dir, manifest, deps.secrets(settings));
    }
    if (res.fatal) throw res.fatal;
    if (res.runId !== stored.runId)
      io.log(`note: the re-run of ${stored.runId} is named ${res.runId} (this version describes the method or the model differently)`);
    const spent = res.spent ?? noSpend();
    if (res.status !== 'complete') {
      out.push({ runId: res.runId, dir: res.dir, status: res.status, summary: res.summary, compared: 0, spent });
      return out; // interrupted: nothing to compare (a re-run goes into an empty --results-dir again)
    }
    const rerun = episodesText(res.dir);
    const diff = compareEpisodes(bundledEpisodes, rerun, { bundled: where(EPISODES_FILE), rerun: episodesFile(res.dir) });
    if (diff) throw new ReplayMismatch(`run --from-bundle: the re-run of ${stored.runId} differs from the bundle: ${diff}`);
    out.push({ runId: res.runId, dir: res.dir, status: res.status, summary: res.summary, compared: stored.indices.length, spent });
  }
  return out;
}

/**
 * The repo files (prompts, data) a bundled run read, as its own run listed them for its manifest
 * (execute.ts nameRun): the benchmark's list for the method and the run's options parsed from its settings, as
 * every hook of a benchmark takes them (a raw setting is not an option: QA's split and Wikipedia).
 */
export function bundledRunInputFiles(bench: Benchmark, method: string, settings: Settings): string[] {
  return bench.inputFiles(method, benchmarkOptions(bench, settings));
}
