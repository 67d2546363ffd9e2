// Derived methods (a benchmark's combinations, e.g. ReAct→CoT-SC and CoT-SC→ReAct, §5): computed from
// base runs of the same items with no model calls. The base runs are run (or resumed, or replayed from
// the completion cache) first, or taken from existing run folders with --from-runs.
import path from 'node:path';
import { UserError } from '../errors.js';
import type { Benchmark, DerivedMethod, StoredEpisode } from '../benchmarks/types.js';
import { executeRun } from './execute.js';
import { resultsDirOf, checkResultsDir, ensureResultsDir } from './results-dir.js';
import { errorCauses, type RunResult } from './run-result.js';
import type { RunDeps, RunIO } from './run-deps.js';
import { checkedManifestText, instantSession, newManifest, recordableSettings } from './manifest.js';
import { camelCase } from './options.js';
import { isRunFolder, makeRunFolder, readRun, writeEpisodes, writeManifest, writeSummary, MANIFEST_FILE } from '../runlog/store.js';
import { makeRunId } from './run-id.js';
import { summarizeRun, summaryCsv } from './summary.js';
import { limitLinesOf, manifestLimitsOf } from './limit-outcomes.js';
import { sumTallies } from './endpoint-lines.js';
import type { EndpointTally } from '../llm/endpoints.js';
import { recordFromResult } from './record.js';
import type { Settings } from './experiment.js';
import { type RunManifest, recordExtras, usageUnknownCalls, type EpisodeRecord, type Spend } from '../runlog/schema.js';
import { runConfigOf, type RunConfig } from './config.js';
import { derivedMethodOf } from './derived-method.js';
import { IdentityMemo } from '../util/identity-memo.js';
import { addSpend, costFree, costKnown, noSpend, type PriceStatus } from './meter.js';

interface BaseRun {
  dir: string;
  manifest: RunManifest;
  records: Map<number, EpisodeRecord>;
}

function readBase(dir: string): BaseRun {
  if (!isRunFolder(dir)) throw new UserError(`--from-runs: ${dir} is not a run folder (no ${MANIFEST_FILE})`);
  return readRun(dir);
}

/**
 * The settings a combination's manifest records. Made from given runs (--from-runs), its environment is
 * the one a base run stepped (manifest.environment, below): that environment's flags are recorded as
 * that run ran with them, not as this invocation's defaults, so a reader of the manifest (the report's
 * evidence rule) sees the Wikipedia the episodes searched.
 */
function recordedSettings(bench: Benchmark, settings: Settings, given: readonly BaseRun[]): Settings {
  const out = recordableSettings(settings);
  const stepped = given.find((b) => b.manifest.environment);
  if (!stepped) return out;
  for (const flag of bench.play?.flags ?? []) {
    const key = camelCase(flag);
    const v = stepped.manifest.settings?.[key];
    if (v === undefined) delete out[key];
    else out[key] = v;
  }
  return out;
}

function stored(r: EpisodeRecord): StoredEpisode {
  return {
    answer: r.answer,
    traj: r.traj,
    steps: r.steps,
    metrics: r.metrics,
    extra: recordExtras(r),
    n_calls: r.n_calls,
    n_badcalls: r.n_badcalls,
  };
}

/** One item's derived record from its base records; an error in any base is the record's error. */
function derivedRecord(
  bench: Benchmark,
  derived: DerivedMethod<unknown>,
  idx: number,
  bases: EpisodeRecord[],
  options: unknown,
): EpisodeRecord {
  const item = bench.item(idx);
  const sum = (f: (r: EpisodeRecord) => number) => bases.reduce((a, r) => a + f(r), 0);
  const accounting = {
    n_calls: sum((r) => r.n_calls),
    usage: {
      prompt_tokens: sum((r) => r.usage.prompt_tokens),
      completion_tokens: sum((r) => r.usage.completion_tokens),
      total_tokens: sum((r) => r.usage.total_tokens),
    },
    cost: sum((r) => r.cost),
    ...(sum(usageUnknownCalls) > 0 ? { usage_unknown_calls: sum(usageUnknownCalls) } : {}),
    ...(bases.some((r) => r.cost_unpriced) ? { cost_unpriced: true as const } : {}),
    // A combination makes no model call: nothing is spent.
    spent_usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    spent_cost: 0,
    latency_ms: 0,
    cached_calls: sum((r) => r.cached_calls),
  };
  const failed = bases.findIndex((r) => r.error);
  if (failed >= 0) {
    const e = bases[failed].error!;
    return {
      idx,
      item: item.id,
      input: item.input,
      gold: item.gold ?? null,
      answer: null,
      metrics: Object.fromEntries(bench.metrics.map((m) => [m.key, 0])),
      reward: null,
      traj: '',
      steps: [],
      n_badcalls: 0,
      ...accounting,
      error: { source: e.source, message: `${derived.bases[failed]}: ${e.message}` },
    };
  }
  const result = derived.combine(item, bases.map(stored), options);
  return { ...recordFromResult(item, result, bench.score(item, result), 0, null), ...accounting };
}

export async function executeCombination(run: Settings | RunConfig, deps: RunDeps, io: RunIO): Promise<RunResult> {
  const cfg = runConfigOf(run);
  const settings = cfg.settings;
  const found = derivedMethodOf(cfg, deps);
  if (!found) throw new Error('executeCombination: --method is not a derived method');
  const { bench, derived, options } = found;
  const name = derived.name;
  let bases: BaseRun[];
  // What this command paid for its base runs (none with --from-runs): the combination makes no call.
  let basesSpent: Spend | undefined;
  // What each model endpoint of a fleet got in the base runs this command ran (the closing lines).
  let basesEndpoints: EndpointTally[] = [];
  if (cfg.fromRuns !== undefined) {
    const given = cfg.fromRuns.map((d) => readBase(path.resolve(d)));
    bases = derived.bases.map((m) => given.filter((b) => b.manifest.method === m)).flatMap((xs) => (xs.length === 1 ? xs : []));
    if (given.length !== derived.bases.length || bases.length !== derived.bases.length) {
      throw new UserError(
        `--from-runs: expected ${derived.bases.length} run folders, one each of ${derived.bases.join(', ')} (got ${given.map((b) => b.manifest.method).join(', ') || 'none'})`,
      );
    }
  } else {
    checkResultsDir(cfg);
    const ran: RunResult[] = [];
    for (const [i, method] of derived.bases.entries()) {
      // Its display says what it is run for: in an experiment, "run 6 of 7" is the combination's place.
      const res = await executeRun({ ...settings, method }, deps, { ...io, baseOf: `${bench.name} ${name}` });
      if (res.status === 'failed' || res.status === 'interrupted') {
        const label = (m: string) => `${cfg.task} ${m}`;
        // The one result line printed: what this command spent on every base run it ran, this one included.
        const spent = spentOn([...ran, res]);
        const endpoints = sumTallies([...ran, res].map((r) => r.endpoints));
        return {
          ...res,
          notReached: [...derived.bases.slice(i + 1).map(label), label(name)],
          ...(spent ? { spent } : {}),
          ...(endpoints.length ? { endpoints } : {}),
        };
      }
      ran.push(res);
    }
    bases = ran.map((r) => readBase(r.dir));
    basesSpent = spentOn(ran);
    basesEndpoints = sumTallies(ran.map((r) => r.endpoints));
  }
  const [m0] = bases.map((b) => b.manifest);
  for (const b of bases.slice(1)) {
    if (b.manifest.task !== m0.task) throw new UserError(`--from-runs: ${bases[0].dir} is ${m0.task} but ${b.dir} is ${b.manifest.task}`);
    if (JSON.stringify(b.manifest.indices) !== JSON.stringify(m0.indices)) {
      throw new UserError(`--from-runs: ${bases[0].dir} and ${b.dir} cover different items; combine runs of the same split`);
    }
  }
  if (m0.task !== bench.name) throw new UserError(`--from-runs: the runs are ${m0.task}, not ${bench.name} (--task)`);
  const models = [...new Set(bases.map((b) => b.manifest.model))];
  const model = models.join('+');
  const description = derived.describe(options);
  const identity = {
    task: bench.name,
    method: name,
    split: m0.split,
    base: Object.fromEntries(bases.map((b) => [b.manifest.method, b.manifest.identity])),
    combination: description,
  };
  const shard = m0.shard ? { k: Number(m0.shard.split('/')[0]), n: Number(m0.shard.split('/')[1]) } : null;
  const runId = makeRunId({ task: bench.name, method: name, split: m0.split, model, shard }, identity);
  const dir = path.join(resultsDirOf(cfg), runId);
  ensureResultsDir(cfg);
  makeRunFolder(dir);

  const records = new Map<number, EpisodeRecord>();
  for (const idx of m0.indices) {
    const recs = bases.map((b) => b.records.get(idx)).filter((r): r is EpisodeRecord => r !== undefined);
    if (recs.length < bases.length) continue;
    records.set(idx, derivedRecord(bench, derived, idx, recs, options));
  }
  const now = new Date().toISOString();
  const price = combinedPrice(bases);
  const manifest = newManifest(
    {
      runId,
      kind: 'combination',
      task: bench.name,
      metrics: bench.metrics,
      method: name,
      split: m0.split,
      shard: m0.shard,
      model,
      indices: m0.indices,
      identity,
      settings: recordedSettings(bench, settings, cfg.fromRuns !== undefined ? bases : []),
      fidelity: { ...description, bases: Object.fromEntries(bases.map((b) => [b.manifest.method, b.manifest.fidelity])) },
      inputs: Object.assign({}, ...bases.map((b) => b.manifest.inputs)),
      modelDescription: bases[bases.length - 1].manifest.modelDescription,
      environment: bases.map((b) => b.manifest.environment).find((e) => e) ?? null,
      split_description: m0.split_description,
      // Its figures are its bases': their price, judged from every one of them (combinedPrice).
      sessions: [{ ...instantSession(now, records.size), price }],
      sources: bases.map((b) => ({ role: b.manifest.method, runId: b.manifest.runId, dir: b.dir })),
    },
    now,
  );
  // The limits its answers came from (the base episodes whose answers it took: src/benchmarks' derived methods).
  const combined = m0.indices.flatMap((i) => (records.has(i) ? [records.get(i)!] : []));
  manifest.limits = manifestLimitsOf(combined);
  // Checked before anything is written: a manifest it refuses leaves no episodes behind.
  const mtext = checkedManifestText(manifest, deps.secrets(settings));
  const lines = m0.indices
    .filter((i) => records.has(i))
    .map((i) => JSON.stringify(records.get(i)) + '\n')
    .join('');
  // Each file is replaced atomically (temp + fsync + rename): a full disk leaves the old files whole.
  writeEpisodes(dir, lines, 'the combined episodes');
  writeManifest(dir, mtext);
  IdentityMemo.saveDeferred(); // as a run keeps them once its manifest is written (execute.ts)
  const summary = summarizeRun(manifest, records);
  writeSummary(dir, summaryCsv([summary]));
  io.log(`${runId}: combined ${records.size} of ${m0.indices.length} items from ${bases.map((b) => b.manifest.runId).join(' and ')}`);
  const causes = errorCauses(m0.indices.flatMap((i) => (records.has(i) ? [records.get(i)!] : [])));
  // A combination's errors are its base runs' errors: those are the runs to retry.
  const retryRuns = bases
    .filter((b) => m0.indices.some((i) => b.records.get(i)?.error))
    .map((b) => ({ runId: b.manifest.runId, dir: b.dir }));
  return {
    runId,
    dir,
    status: summary.n_done === summary.n_planned ? 'complete' : 'partial',
    summary,
    errorCauses: causes,
    limitLines: [
      ...bases.flatMap((b) =>
        limitLinesOf(
          b.manifest.runId,
          m0.indices.flatMap((i) => (b.records.has(i) ? [b.records.get(i)!] : [])),
        ),
      ),
      ...limitLinesOf(runId, combined),
    ],
    ...(retryRuns.length ? { retryRuns } : {}),
    // Its bases' price, for the result line: unknown when a base run's cost is not money.
    price,
    ...(basesSpent ? { spent: basesSpent } : {}),
    ...(basesEndpoints.length ? { endpoints: basesEndpoints } : {}),
  };
}

/** The sum of what the base runs this command ran spent (src/run/meter.ts); undefined when none says. */
function spentOn(results: readonly RunResult[]): Spend | undefined {
  const spends = results.flatMap((r) => (r.spent ? [r.spent] : []));
  return spends.length ? spends.reduce(addSpend, noSpend()) : undefined;
}

/**
 * The price status of a combination's figures (the sum of its bases'), each base judged by the rule its
 * own figures follow (src/run/meter.ts): unknown when a base's cost is not money (costKnown); free only
 * when every base billed nothing by its rates (costFree), so a priced base's calls without usage are
 * never taken for free ones; else known.
 */
function combinedPrice(bases: readonly BaseRun[]): PriceStatus {
  const prices = bases.map((b): PriceStatus => {
    const records = [...b.records.values()];
    const cost = records.reduce((a, r) => a + (r.cost ?? 0), 0);
    if (!costKnown(b.manifest, records, cost)) return 'unknown';
    return costFree(b.manifest) ? 'free' : 'known';
  });
  if (prices.includes('unknown')) return 'unknown';
  return prices.every((p) => p === 'free') ? 'free' : 'known';
}
