// The combinations ReAct→CoT-SC and CoT-SC→ReAct (§5): computed from one CoT-SC run and one ReAct run
// of the same questions, with no model calls. The base runs are run (or resumed, or replayed from the
// completion cache) first, or taken from existing run folders with --from-runs.
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../errors.js';
import { combine } from '../methods/combinations.js';
import { parseMajorityRule, parseMaxSteps, resolveMaxSteps } from '../methods/options.js';
import type { CombinationName } from '../methods/types.js';
import type { Task, TaskName } from '../tasks/types.js';
import { executeRun, resultsDirOf, recordableSettings, type RunDeps, type RunIO, type RunResult } from './execute.js';
import { assertNoSecrets, softwareInfo, type RunManifest } from './manifest.js';
import { loadEpisodes, readJsonFile, writeFileAtomic, EPISODES_FILE, MANIFEST_FILE, SUMMARY_FILE } from './store.js';
import { makeRunId } from './run-id.js';
import { summarize, summaryCsv } from './summary.js';
import type { EpisodeRecord } from './record.js';
import type { Settings } from './experiment.js';

interface BaseRun {
  dir: string;
  manifest: RunManifest;
  records: Map<number, EpisodeRecord>;
}

function readBase(dir: string): BaseRun {
  const mf = path.join(dir, MANIFEST_FILE);
  if (!fs.existsSync(mf)) throw new UserError(`--from-runs: ${dir} is not a run folder (no manifest.json)`);
  return { dir, manifest: readJsonFile<RunManifest>(mf), records: loadEpisodes(path.join(dir, EPISODES_FILE)).records };
}

function listOf(v: unknown): string[] {
  return (Array.isArray(v) ? v.map(String) : String(v).split(',')).map((s) => s.trim()).filter(Boolean);
}

/** Combines one CoT-SC record and one ReAct record of the same question. */
export function combineRecords(
  name: CombinationName,
  react: EpisodeRecord,
  cotSc: EpisodeRecord,
  task: Pick<Task, 'score'>,
  opts: { rule: 'paper' | 'author'; reactStepLimit?: number },
): EpisodeRecord {
  const base = {
    question_idx: react.question_idx,
    question: react.question,
    gold: react.gold,
    traj: react.traj,
    steps: react.steps,
    n_calls: react.n_calls + cotSc.n_calls,
    n_badcalls: react.n_badcalls + cotSc.n_badcalls,
    usage: {
      prompt_tokens: react.usage.prompt_tokens + cotSc.usage.prompt_tokens,
      completion_tokens: react.usage.completion_tokens + cotSc.usage.completion_tokens,
      total_tokens: react.usage.total_tokens + cotSc.usage.total_tokens,
    },
    cost: react.cost + cotSc.cost,
    latency_ms: 0,
    cached_calls: react.cached_calls + cotSc.cached_calls,
  };
  if (react.error || cotSc.error) {
    const which = react.error ? `react: ${react.error.message}` : `cot-sc: ${cotSc.error!.message}`;
    return { ...base, answer: null, em: 0, f1: 0, reward: 0, error: { source: (react.error ?? cotSc.error)!.source, message: which } };
  }
  const out = combine(
    name,
    { react: { answer: react.answer, forcedFinish: react.forced_finish, steps: react.steps }, cotSc: { samples: cotSc.samples ?? [] }, task, gold: react.gold },
    { rule: opts.rule, reactStepLimit: opts.reactStepLimit },
  );
  return {
    ...base,
    answer: out.answer,
    em: out.em,
    f1: out.f1,
    reward: out.reward,
    error: null,
    samples: cotSc.samples,
    majority_votes: out.majorityVotes,
    forced_finish: react.forced_finish,
    answer_from: out.used,
  };
}

export async function executeCombination(settings: Settings, deps: RunDeps, io: RunIO): Promise<RunResult> {
  const name = settings.method as CombinationName;
  let react: BaseRun;
  let cotSc: BaseRun;
  if (settings.fromRuns !== undefined) {
    const bases = listOf(settings.fromRuns).map((d) => readBase(path.resolve(d)));
    const r = bases.filter((b) => b.manifest.method === 'react');
    const c = bases.filter((b) => b.manifest.method === 'cot-sc');
    if (bases.length !== 2 || r.length !== 1 || c.length !== 1) {
      throw new UserError(`--from-runs: expected two run folders, one ReAct run and one CoT-SC run (got ${bases.map((b) => b.manifest.method).join(', ') || 'none'})`);
    }
    [react, cotSc] = [r[0], c[0]];
  } else {
    // §5: one CoT-SC run and one ReAct run of the same split; each resumes or hits the cache.
    const ran: RunResult[] = [];
    for (const method of ['cot-sc', 'react']) {
      const res = await executeRun({ ...settings, method }, deps, io);
      if (res.status === 'failed' || res.status === 'interrupted') return res;
      ran.push(res);
    }
    cotSc = readBase(ran[0].dir);
    react = readBase(ran[1].dir);
  }
  const rm = react.manifest;
  const cm = cotSc.manifest;
  if (rm.task !== cm.task) throw new UserError(`--from-runs: ${react.dir} is ${rm.task} but ${cotSc.dir} is ${cm.task}`);
  if (JSON.stringify(rm.indices) !== JSON.stringify(cm.indices)) {
    throw new UserError(`--from-runs: ${react.dir} and ${cotSc.dir} cover different questions; combine runs of the same split`);
  }
  const taskName = rm.task as TaskName;
  const task = deps.getTask(taskName);
  const rule = parseMajorityRule(settings.majorityRule);
  const reactStepLimit = settings.maxSteps !== undefined ? resolveMaxSteps(parseMaxSteps(settings.maxSteps), taskName) : undefined;
  const model = rm.model === cm.model ? rm.model : `${cm.model}+${rm.model}`;
  const identity = {
    task: taskName,
    method: name,
    split: rm.split,
    base: { react: rm.identity, cotSc: cm.identity },
    combination: { majorityRule: rule, reactStepLimit: reactStepLimit ?? null },
  };
  const shard = rm.shard ? { k: Number(rm.shard.split('/')[0]), n: Number(rm.shard.split('/')[1]) } : null;
  const runId = makeRunId({ task: taskName, method: name, split: rm.split, model, shard }, identity);
  const dir = path.join(resultsDirOf(settings), runId);
  fs.mkdirSync(dir, { recursive: true });

  const records = new Map<number, EpisodeRecord>();
  for (const idx of rm.indices) {
    const r = react.records.get(idx);
    const c = cotSc.records.get(idx);
    if (!r || !c) continue;
    if (!c.error && !c.samples) throw new UserError(`--from-runs: ${cotSc.dir} stores no CoT-SC samples for question ${idx}`);
    records.set(idx, combineRecords(name, r, c, task, { rule, reactStepLimit }));
  }
  const now = new Date().toISOString();
  const manifest: RunManifest = {
    schema: 1,
    runId,
    kind: 'combination',
    task: taskName,
    method: name,
    split: rm.split,
    shard: rm.shard,
    model,
    indices: rm.indices,
    identity,
    settings: recordableSettings(settings),
    fidelity: {
      combination: name,
      majorityRule: rule,
      majorityRuleMeaning: rule === 'paper' ? 'use ReAct when the CoT-SC majority has fewer than n/2 votes' : 'use CoT-SC only when its majority has more than n/2 votes (issue 8)',
      reactStepLimit: reactStepLimit ?? 'as the ReAct run ran',
      cotScSamples: cm.fidelity?.method && typeof cm.fidelity.method === 'object' ? (cm.fidelity.method as Record<string, unknown>).samples ?? null : null,
      extraModelCalls: 0,
    },
    inputs: { ...cm.inputs, ...rm.inputs },
    modelDescription: rm.modelDescription,
    wiki: rm.wiki,
    split_description: rm.split_description,
    software: softwareInfo(),
    startedAt: now,
    sessions: [{ startedAt: now, endedAt: now, status: 'complete', written: records.size }],
    sources: [
      { role: 'react', runId: rm.runId, dir: react.dir },
      { role: 'cot-sc', runId: cm.runId, dir: cotSc.dir },
    ],
  };
  const secrets = deps.secrets(settings);
  const mtext = JSON.stringify(manifest, null, 2) + '\n';
  assertNoSecrets(mtext, secrets, 'manifest.json');
  const lines = rm.indices.filter((i) => records.has(i)).map((i) => JSON.stringify(records.get(i)) + '\n').join('');
  writeFileAtomic(path.join(dir, EPISODES_FILE), lines);
  writeFileAtomic(path.join(dir, MANIFEST_FILE), mtext);
  const summary = summarize({ runId, task: taskName, method: name, split: rm.split, model, shard: rm.shard }, records, rm.indices);
  writeFileAtomic(path.join(dir, SUMMARY_FILE), summaryCsv([summary]));
  io.log(`${runId}: combined ${records.size} of ${rm.indices.length} questions from ${rm.runId} and ${cm.runId}`);
  return { runId, dir, status: summary.n_done === summary.n_planned ? 'complete' : 'partial', summary };
}
