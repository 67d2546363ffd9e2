// `react-repro export`: episodes as JSON lines for use outside this suite (README "Publishable runs and exports").
// - finetune: the successful trajectories (correct as the run's benchmark says, src/report/correct.ts)
//   as fine-tuning examples of the kind FireAct (Chen et al.,
//   2023, github.com/anchen1011/FireAct) trained on: no few-shot exemplars, the task text as the
//   prompt and the trajectory as "Thought: ...\nAction: ...\nObservation: ...\n" turns (step numbers
//   dropped) as the target. Three shapes: prompt/completion (the default), chat messages (FireAct's
//   GPT data: user task, then assistant "Thought/Action" and user "Observation" turns) and Alpaca
//   instruction/input/output (FireAct's Llama data).
// - jsonl: every episode of every run, one flat object per line (run columns, metrics as metric_<key>,
//   null for error episodes, which are never scored; usage columns, the trajectory and steps, the
//   benchmark's extra fields), for pandas or jq.
// Which runs: a run folder once however often it is given; a merged run supersedes the shards it was
// merged from; combinations (copies of their base runs' episodes) are left out of the finetune data.
import { UserError } from '../errors.js';
import { loadRuns, warnLine } from './load.js';
import { selectRuns, type Selection } from './grouping.js';
import type { RunView } from './model.js';
import type { StepRecord } from '../methods/types.js';
import { metricKeysOf } from '../run/summary.js';
import { episodeCostContext, episodeCostKnown, episodeCostStandings, type EpisodeCostContext } from '../run/meter.js';
import { recordExtras, usageUnknownCalls, type EpisodeRecord } from '../runlog/schema.js';
import { isScored } from '../util/numbers.js';
import type { EpisodeCorrect } from './correct.js';
import type { Benchmark } from '../benchmarks/types.js';

export type FinetuneStyle = 'prompt-completion' | 'chat' | 'alpaca';
export const FINETUNE_STYLES: readonly FinetuneStyle[] = ['prompt-completion', 'chat', 'alpaca'];

/**
 * The runs to export, read and chosen as the report reads and chooses them (src/report/load.ts,
 * src/report/grouping.ts): an unreadable run folder is skipped with one warning line (`warn`) and
 * counted in `skipped`; none readable is a UserError; each run id once, a merge instead of its shards.
 */
export function loadRunsForExport(
  args: string[],
  command: string,
  warn: (line: string) => void = warnLine,
): Selection & { skipped: number } {
  let skipped = 0;
  const runs = loadRuns(args, { command, warn: (line, about) => (about === 'skipped' && skipped++, warn(line)) });
  return { ...selectRuns(runs), skipped };
}

type FinetuneChoice = Pick<Benchmark, 'name' | 'defaultMethod' | 'finetuneMethods'>;

/** A benchmark's fine-tuning methods: those it names (Benchmark.finetuneMethods), else its default method. */
const finetuneMethodsOfOne = (b: FinetuneChoice): readonly string[] => b.finetuneMethods ?? [b.defaultMethod];

/**
 * The methods `export --format finetune` takes from a run of each benchmark when no --method is
 * given: finetuneMethodsOfOne (a benchmark not among `benchmarks`: none).
 */
export function finetuneMethodsOf(benchmarks: readonly FinetuneChoice[]): (task: string) => readonly string[] {
  const byName = new Map(benchmarks.map((b) => [b.name, finetuneMethodsOfOne(b)]));
  return (task) => byName.get(task) ?? [];
}

/** Those methods as the help and errors say them: one list where every benchmark names the same, else each benchmark's. */
export function finetuneMethodsText(benchmarks: readonly FinetuneChoice[]): string {
  const list = (b: FinetuneChoice) => finetuneMethodsOfOne(b).join(',') || 'none';
  const lists = [...new Set(benchmarks.map(list))];
  return lists.length > 1 ? benchmarks.map((b) => `${b.name} ${list(b)}`).join('; ') : (lists[0] ?? 'none');
}

export interface ExportFilter {
  /** Only runs of these methods (--method). */
  methods?: readonly string[];
  /** Without `methods`: only the runs of the methods their benchmark names here (finetuneMethodsOf). */
  methodsOf?: (task: string) => readonly string[];
  /** Only runs of these benchmarks (--task). */
  tasks?: readonly string[];
}

/**
 * The runs of the methods and benchmarks asked for. A filter no run matches is a UserError naming the
 * flag and what the runs hold (a typo must not export nothing, silently).
 */
export function filterRuns(
  runs: readonly RunView[],
  f: ExportFilter,
  flags: { method: string; task: string } = { method: '--method', task: '--task' },
): RunView[] {
  let out = [...runs];
  const { tasks, methods, methodsOf } = f;
  const wantedBy: [key: 'task' | 'method', wantOf: ((r: RunView) => readonly string[]) | undefined, flag: string][] = [
    ['task', tasks && (() => tasks), flags.task],
    ['method', methods ? () => methods : methodsOf && ((r) => methodsOf(r.manifest.task)), flags.method],
  ];
  for (const [key, wantOf, flag] of wantedBy) {
    if (!wantOf) continue;
    const have = [...new Set(out.map((r) => r.manifest[key]))].sort();
    const kept = out.filter((r) => wantOf(r).includes(r.manifest[key]));
    if (!kept.length) {
      const want = [...new Set(out.flatMap(wantOf))];
      throw new UserError(
        `${flag}${want.length ? ` ${want.join(',')}` : ''}: none of the ${out.length} run(s) is of ${want.length ? `that ${key === 'task' ? 'benchmark' : 'method'}` : 'a method its benchmark names'} (they have: ${have.join(', ') || 'none'})`,
      );
    }
    out = kept;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Fine-tuning data

/** The observation as one line of text (trailing newlines of the environment's text dropped). */
const obsText = (s: StepRecord) => s.observation.replace(/\n+$/, '');

/** One turn as FireAct writes it: "Thought: t\nAction: a" (no thought: just the action line). */
function turnText(s: StepRecord): string {
  const action = `Action: ${s.action.trim()}`;
  return s.thought !== undefined ? `Thought: ${s.thought.trim()}\n${action}` : action;
}

/** The task text of an episode: the question/claim/goal, or the WebShop instruction kept beside it. */
export function taskText(r: EpisodeRecord): string {
  if (r.input) return r.input;
  return typeof r.instruction === 'string' ? r.instruction : '';
}

/** FireAct's trajectory text: each turn followed by its observation, one "\n" after each line. */
export function trajectoryText(steps: readonly StepRecord[]): string {
  return steps.map((s) => `${turnText(s)}\nObservation: ${obsText(s)}\n`).join('');
}

/** One fine-tuning example from a successful interactive episode, in the given shape. */
export function finetuneExample(r: EpisodeRecord, style: FinetuneStyle): Record<string, unknown> {
  const task = taskText(r);
  switch (style) {
    case 'prompt-completion':
      // FireAct's text format: the question and a newline, then the model writes the turns.
      return { prompt: `${task}\n`, completion: trajectoryText(r.steps) };
    case 'chat':
      return {
        messages: [
          { role: 'user', content: task },
          ...r.steps.flatMap((s) => [
            { role: 'assistant', content: turnText(s) },
            { role: 'user', content: `Observation: ${obsText(s)}` },
          ]),
        ],
      };
    case 'alpaca':
      return { instruction: task, input: '', output: trajectoryText(r.steps) };
  }
}

export interface FinetuneCounts {
  examples: number;
  /** Episodes left out, by why. */
  unsuccessful: number;
  errors: number;
  /** Episodes without environment steps (Standard, CoT, CoT-SC): no trajectory to learn from. */
  noSteps: number;
  /** No task text to use as the prompt. */
  noTask: number;
  /** Runs left out entirely (combinations). */
  derivedRuns: number;
}

/**
 * The successful trajectories of the runs as fine-tuning lines. Success: no error and correct as
 * `isCorrect` (the run's benchmark, correct.ts) says, or with `metric` (--metric) that metric equal to 1.
 */
export function finetuneLines(
  runs: RunView[],
  isCorrect: EpisodeCorrect,
  opts: { style?: FinetuneStyle; metric?: string } = {},
): { lines: string[]; counts: FinetuneCounts } {
  const style = opts.style ?? 'prompt-completion';
  if (!FINETUNE_STYLES.includes(style)) throw new UserError(`--style: expected one of ${FINETUNE_STYLES.join(', ')}, got "${style}"`);
  const counts: FinetuneCounts = { examples: 0, unsuccessful: 0, errors: 0, noSteps: 0, noTask: 0, derivedRuns: 0 };
  const lines: string[] = [];
  for (const run of runs) {
    if (run.manifest.kind === 'combination') {
      counts.derivedRuns++;
      continue;
    }
    // The run's declared metrics (schema 1: those its records carry).
    const keys = metricKeysOf(run.manifest, run.records);
    const metric = opts.metric;
    if (metric === undefined && !keys.length) continue; // a run without any scored metric has no successful episode
    if (metric !== undefined && keys.length && !keys.includes(metric)) {
      throw new UserError(`--metric: ${run.manifest.runId} (${run.manifest.task}) has no metric "${metric}" (it has ${keys.join(', ')})`);
    }
    const successful = metric === undefined ? (r: EpisodeRecord) => isCorrect(run, r) : (r: EpisodeRecord) => r.metrics?.[metric] === 1;
    for (const r of run.records) {
      if (r.error) counts.errors++;
      else if (!successful(r)) counts.unsuccessful++;
      else if (!r.steps?.length) counts.noSteps++;
      else if (!taskText(r)) counts.noTask++;
      else {
        lines.push(JSON.stringify(finetuneExample(r, style)));
        counts.examples++;
      }
    }
  }
  return { lines, counts };
}

// ---------------------------------------------------------------------------------------------
// Every episode, flat

/** The usage an episode spent (records before the spent_* fields existed spent what they used). */
function spent(r: EpisodeRecord): { tokens: number; cost: number } {
  return {
    tokens: r.spent_usage?.total_tokens ?? r.usage?.total_tokens ?? 0,
    cost: typeof r.spent_cost === 'number' ? r.spent_cost : (r.cost ?? 0),
  };
}

/**
 * One episode as a flat object: run columns, the record's fields, metrics as metric_<key>, extras
 * last; `correct` as `isCorrect` (correct.ts) says; `costs`: what its cost figures read from its run
 * (computed once per run by flatLines).
 */
export function flatEpisode(
  run: RunView,
  r: EpisodeRecord,
  isCorrect: EpisodeCorrect,
  costs: EpisodeCostContext = episodeCostContext(run.manifest),
): Record<string, unknown> {
  const m = run.manifest;
  // An error episode's record carries 0 metrics, which would pull down any mean taken over this export.
  const scored = isScored(r);
  const out = new Map<string, unknown>(
    Object.entries({
      run_id: m.runId,
      run_kind: m.kind,
      task: m.task,
      method: m.method,
      model: m.model,
      split: m.split,
      idx: r.idx,
      item: r.item,
      input: r.input,
      gold: r.gold,
      answer: r.answer,
      // A run that declares no metrics (schema 1) has always exported correct: null; kept so, its
      // exports stay byte-identical.
      correct: scored && m.metrics?.length ? isCorrect(run, r) : null,
    }),
  );
  if (scored) {
    for (const [k, v] of Object.entries(r.metrics ?? {})) out.set(`metric_${k}`, v);
  } else {
    // null under every metric the run declares too, so an error row has the scored rows' columns
    const keys = new Set([...(m.metrics ?? []).map((x) => x.key), ...Object.keys(r.metrics ?? {})]);
    for (const k of keys) out.set(`metric_${k}`, null);
  }
  const s = spent(r);
  // A call metered with no known price cost $0, which is not money (src/run/meter.ts).
  const priced = episodeCostKnown(r, m, run.summary.cost_known !== false);
  // The one rule of a cost figure (src/run/meter.ts costStanding): null when unknown, and a lower bound
  // (calls without usage left out) says so beside its figure.
  const standing = episodeCostStandings(r, priced, costs);
  const accounting = {
    reward: r.reward,
    error: r.error?.message ?? null,
    error_source: r.error?.source ?? null,
    n_steps: r.steps?.length ?? 0,
    n_calls: r.n_calls,
    n_badcalls: r.n_badcalls,
    prompt_tokens: r.usage?.prompt_tokens ?? 0,
    completion_tokens: r.usage?.completion_tokens ?? 0,
    total_tokens: r.usage?.total_tokens ?? 0,
    cost: standing.total === 'unknown' ? null : (r.cost ?? 0),
    ...(standing.total === 'at-least' ? { cost_lower_bound: true } : {}),
    // Calls the token and cost figures leave out (answered without usage).
    usage_unknown_calls: usageUnknownCalls(r),
    spent_tokens: s.tokens,
    spent_cost: standing.spent === 'unknown' ? null : s.cost,
    ...(standing.spent === 'at-least' ? { spent_cost_lower_bound: true } : {}),
    cached_calls: r.cached_calls ?? 0,
    latency_ms: r.latency_ms,
    traj: r.traj,
    steps: r.steps ?? [],
  };
  for (const [k, v] of Object.entries(accounting)) out.set(k, v);
  for (const [k, v] of Object.entries(recordExtras(r))) {
    if (k === 'spent_usage' || k === 'spent_cost') continue; // flattened above
    out.set(out.has(k) ? `extra_${k}` : k, v);
  }
  return Object.fromEntries(out);
}

export function flatLines(runs: RunView[], isCorrect: EpisodeCorrect): string[] {
  return runs.flatMap((run) => {
    const costs = episodeCostContext(run.manifest);
    return run.records.map((r) => JSON.stringify(flatEpisode(run, r, isCorrect, costs)));
  });
}
