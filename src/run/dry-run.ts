// `run --dry-run` (README "Reliability"): what a run would do and roughly cost, with no model call and nothing
// written. The episodes are planned exactly as the run plans them; the first prompt of each planned
// episode is built by the method itself (its prompt head + the item), captured at its first model
// call, which is refused. Interactive methods meet a stand-in environment whose reset returns the item
// text (the real reset may add a label or, for ALFWorld/WebShop, the goal: a small undercount).
// Prompt tokens are counted with the model's tokenizer where one is known, else as characters / 4
// (dry-run-estimate.ts), completions at their max_tokens × n (an upper bound). Interactive episodes
// make one call per turn, each prompt longer than the last: the figures give a range from one call
// per episode to every episode at its turn limit.
import { JsonFields } from '../util/json-fields.js';
import { thousands as num } from '../util/numbers.js';
import type { CompletionModel, CompletionRequest } from '../llm/types.js';
import type { Env } from '../envs/types.js';
import type { Item } from '../benchmarks/types.js';
import { derivedMethodOf } from './derived-method.js';
import fs from 'node:fs';
import path from 'node:path';
import { manifestIfAny, readRecords } from '../runlog/store.js';
import { llmCliOptions } from '../llm/config.js';
import type { Benchmark } from '../benchmarks/types.js';
import type { OptionSpec } from '../options.js';
import { canonicalJson, runIdPrefix } from './run-id.js';
import { camelCase, runOptions } from './options.js';
import { planEpisodes, type Plan } from './episode-plan.js';
import { runIdentity, type RunParts } from './run-identity.js';
import { resultsDirOf, runFolder } from './results-dir.js';
import type { RunDeps } from './run-deps.js';
import { recordableSettings } from './manifest.js';
import type { PriceInfo } from '../llm/pricing.js';
import type { Settings } from './experiment.js';
import { runConfigOf, type RunConfig } from './config.js';
import { checkFirstCalls, readContextWindow, windowLines, type WindowCheck } from './window-check.js';
import { costLine, dryRunPrices, interactiveLine, modelNameOf, runCost, tokenCounterFor, totalLines } from './dry-run-estimate.js';

export interface DryRunPlan {
  task: string;
  method: string;
  split: string;
  splitDescription: string;
  /** Episodes the run covers. */
  planned: number;
  /** Episodes already recorded in the folder the run would resume (and, of those, recorded as errors); null: none. */
  recorded: { done: number; errors: number } | null;
  /** Dataset indices that would run now. */
  toRun: number[];
  /** Σ prompt tokens of the first prompt of each episode that would run (counted by `tokenizer`). */
  firstPromptTokens: number;
  /** How prompt tokens are counted: the model's tokenizer, or "chars/4 (estimate)". */
  tokenizer: string;
  /** A combination: no model calls of its own. */
  derived: boolean;
  /** Σ max_tokens × n of those first calls (completion tokens at most). */
  firstCompletionTokensMax: number;
  /** Episodes whose first prompt could not be built (the method failed before calling the model). */
  unbuilt: number;
  /** Model turns per episode at most (interactive methods), when the method states it. */
  turnLimit: number | null;
  prices: PriceInfo | null;
  /** One-line notices the run would print (Benchmark.startNotes). */
  notes: string[];
  /** The first prompts against the model's context window (window-check.ts). */
  contextWindow?: WindowCheck | null;
}

/** Refuses the first model call after recording its request. */
class FirstCall extends Error {
  constructor(readonly req: CompletionRequest) {
    super('dry run: no model calls');
  }
}

const captureModel = (name: string): CompletionModel => ({
  model: name,
  describe: () => ({ backend: 'dry-run' }),
  complete: async (req) => {
    throw new FirstCall(req);
  },
});

/** A stand-in environment: reset shows the item text; any step ends the dry run. */
function standInEnv(item: Item): Env {
  return {
    reset: async () => ({ observation: item.input, info: {} }),
    step: async () => {
      throw new Error('dry run: no environment steps');
    },
  };
}

/** Pure: the largest positive integer a method description states as its turn limit, or null. */
export function turnLimitOf(desc: unknown): number | null {
  const keys = /^(maxStepsResolved|maxTurns|maxActions)$/;
  let best: number | null = null;
  const visit = (v: unknown, key: string, depth: number) => {
    if (depth > 4 || v === null || typeof v !== 'object') {
      if (keys.test(key) && typeof v === 'number' && Number.isInteger(v) && v > 0) best = Math.max(best ?? 0, v);
      return;
    }
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      // maxStepsResolved may be {task: n}: its numbers count under the parent key
      visit(x, keys.test(key) ? key : k, depth + 1);
    }
  };
  visit(desc, '', 0);
  return best;
}

/**
 * The settings that make a run's model and environment (the parts of its identity known only once they
 * are opened): the model's flags and, for a method that steps one, the environment's
 * (Benchmark.play.flags), operational ones aside.
 */
function modelAndEnvSettings(settings: Settings, bench: Benchmark, needsEnv: boolean): string {
  const envFlags = needsEnv ? (bench.play?.flags ?? []) : [];
  const flags: [string, OptionSpec | undefined][] = [
    ...Object.entries(llmCliOptions),
    ...envFlags.map((f): [string, OptionSpec | undefined] => [f, bench.options[f] ?? runOptions[f]]),
  ];
  const keys = flags.filter(([, spec]) => !spec?.operational).map(([f]) => camelCase(f));
  const recorded = recordableSettings(settings);
  return canonicalJson(Object.fromEntries(keys.map((k) => [k, recorded[k]])));
}

/** The folder a dry run counts as the run's, or why none: several that only an opened model or environment tells apart. */
type RecordedFolder = { dir: string | null; ambiguous?: string[] };

/**
 * The folder the same command without --dry-run would resume (results-dir.ts runFolder: --resume's, else
 * the run id's), or null when it holds no run yet. The run id hashes the model's and environment's
 * identity, which a dry run does not open (a model load, a snapshot build, a server check): a folder
 * of this task and method supplies its recorded ones when it recorded the same model and environment
 * settings, and is this run's when the id they make with everything else planned here is its name.
 * When several folders qualify (a rebuilt snapshot, another ALFWorld server at the same address), only
 * the opened model or environment could tell which: none is counted, and they are named.
 */
function recordedFolder(cfg: RunConfig, plan: Plan, parts: Omit<RunParts, 'model' | 'environment'>, needsEnv: boolean): RecordedFolder {
  if (cfg.resume !== undefined) return { dir: runFolder(cfg, cfg.resume) };
  const root = resultsDirOf(cfg);
  const prefix = runIdPrefix(plan.benchmark.name, parts.methodName);
  let names: string[];
  try {
    names = fs.readdirSync(root).filter((n) => n.startsWith(prefix));
  } catch {
    return { dir: null }; // no results folder yet
  }
  const mine = modelAndEnvSettings(cfg.settings, plan.benchmark, needsEnv);
  const found: string[] = [];
  for (const name of names.sort()) {
    const dir = path.join(root, name);
    let m;
    try {
      m = manifestIfAny(dir);
    } catch {
      continue; // another folder's unreadable manifest: the real run would not read it either
    }
    if (!m || modelAndEnvSettings(m.settings ?? {}, plan.benchmark, needsEnv) !== mine) continue;
    const identity = JsonFields.orEmpty(m.identity);
    const model = { name: m.model, identity: identity.get('model') };
    const { runId } = runIdentity(cfg, plan, { ...parts, model, environment: identity.get('environment') });
    if (runFolder(cfg, runId) === dir) found.push(dir);
  }
  return found.length > 1 ? { dir: null, ambiguous: found } : { dir: found[0] ?? null };
}

export async function planDryRun(run: Settings | RunConfig, deps: RunDeps): Promise<DryRunPlan> {
  const cfg = runConfigOf(run);
  const settings = cfg.settings;
  const plan = planEpisodes(cfg, deps);
  const bench = plan.benchmark;
  const methodName = cfg.method ?? bench.defaultMethod;
  const derived = derivedMethodOf(cfg, deps);
  if (derived) {
    // A combination makes no model call of its own: it runs (or reuses) its base runs, planned as theirs.
    return {
      task: bench.name,
      method: methodName,
      split: plan.split,
      splitDescription: plan.splitDescription,
      planned: plan.indices.length,
      recorded: null,
      toRun: [],
      firstPromptTokens: 0,
      firstCompletionTokensMax: 0,
      unbuilt: 0,
      turnLimit: null,
      prices: null,
      tokenizer: '',
      derived: true,
      notes: [
        `computed from its base runs (${derived.derived.bases.join(', ')}) with no model calls of its own; a base run not yet made runs first, at the cost its own dry run shows`,
      ],
    };
  }
  const method = bench.createMethod(methodName, plan.options);
  const notes = [...(bench.startNotes?.({ method: methodName, split: plan.split, indices: plan.indices, options: plan.options }) ?? [])];

  let toRun = plan.indices;
  let recorded: DryRunPlan['recorded'] = null;
  const runIdTag = bench.runIdTag?.(methodName, plan.options);
  const folder = recordedFolder(cfg, plan, { methodName, methodDesc: method.describe(), runIdTag }, method.needsEnv);
  if (folder.ambiguous)
    notes.push(
      `already recorded: not counted (${folder.ambiguous.length} folders could be this run's, told apart only by the model or environment a dry run does not open: ${folder.ambiguous.map((d) => path.basename(d)).join(', ')})`,
    );
  const dir = folder.dir;
  if (dir !== null) {
    // Read-only: the run's log is loaded without repairing it (nothing is written).
    const records = readRecords(dir);
    const done = plan.indices.filter((i) => records.has(i));
    const errors = done.filter((i) => records.get(i)?.error);
    recorded = { done: done.length, errors: errors.length };
    toRun = plan.indices.filter((i) => !records.has(i) || (cfg.retryErrors && records.get(i)?.error));
  }

  const model = captureModel(JsonFields.orEmpty(settings).str('model') ?? 'dry-run');
  const counter = await tokenCounterFor(modelNameOf(settings));
  let firstPromptTokens = 0;
  let firstCompletionTokensMax = 0;
  let unbuilt = 0;
  const firstCalls: { promptTokens: number; maxTokens: number }[] = [];
  const signal = new AbortController().signal;
  for (const idx of toRun) {
    const item = bench.item(idx);
    try {
      await method.run(item, { model, makeEnv: method.needsEnv ? standInEnv : undefined, signal });
      unbuilt++; // finished without calling the model: nothing to estimate
    } catch (e) {
      if (!(e instanceof FirstCall)) {
        unbuilt++;
        continue;
      }
      const promptTokens = counter.count(e.req.prompt);
      firstPromptTokens += promptTokens;
      firstCalls.push({ promptTokens, maxTokens: e.req.maxTokens });
      firstCompletionTokensMax += e.req.maxTokens * e.req.n;
    }
  }
  return {
    task: bench.name,
    method: methodName,
    split: plan.split,
    splitDescription: plan.splitDescription,
    planned: plan.indices.length,
    recorded,
    toRun,
    firstPromptTokens,
    tokenizer: counter.name,
    derived: false,
    firstCompletionTokensMax,
    unbuilt,
    turnLimit: method.needsEnv ? turnLimitOf(method.describe()) : null,
    prices: dryRunPrices(settings, deps.prices?.(cfg) ?? null),
    notes,
    contextWindow: firstCalls.length ? checkFirstCalls(firstCalls, await readContextWindow(cfg)) : null,
  };
}

/** The lines `run --dry-run` prints for one planned run. */
export function dryRunLines(p: DryRunPlan, maxCostUsd?: number): string[] {
  const out: string[] = [];
  out.push(`dry run: ${p.task} ${p.method}, split ${p.split} (${p.splitDescription})`);
  const first = p.toRun.slice(0, 10).join(', ') + (p.toRun.length > 10 ? ', ...' : '');
  const rec = p.recorded ? `, ${p.recorded.done} already recorded (${p.recorded.errors} as errors)` : '';
  out.push(`  episodes: ${num(p.planned)} planned${rec}, ${num(p.toRun.length)} to run${p.toRun.length ? ` (indices ${first})` : ''}`);
  const calls = p.toRun.length - p.unbuilt;
  if (!p.derived) {
    out.push(
      `  model calls: ${num(calls)} first calls, prompt ${num(p.firstPromptTokens)} tokens (${p.tokenizer}, of the real first prompts${calls ? `, ${num(Math.round(p.firstPromptTokens / calls))} per call` : ''}), completions at most ${num(p.firstCompletionTokensMax)} tokens` +
        (p.unbuilt ? `; ${p.unbuilt} episode(s) whose first prompt could not be built are not counted` : ''),
    );
  }
  out.push(...windowLines(p.contextWindow));
  const cost = { ...p, toRun: p.toRun.length };
  const inter = interactiveLine(cost);
  if (inter) out.push(inter);
  out.push(...costLine(cost, maxCostUsd));
  for (const n of p.notes) out.push(`  ${n}`);
  return out;
}

/** The experiment's total over its runs (nothing for a single run). */
export function dryRunTotalLines(plans: readonly DryRunPlan[]): string[] {
  const counters = [...new Set(plans.filter((p) => !p.derived).map((p) => p.tokenizer))];
  return totalLines(
    plans.map((p) => runCost({ ...p, toRun: p.toRun.length })),
    counters.join(' / ') || 'no calls',
  );
}
