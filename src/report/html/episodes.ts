// The trajectory browser's data: each run once (with its few-shot prompt once), each episode as its
// own text after that prompt, its steps, scores and tags. RunView[] in, plain JSON out: pure for runs
// that hold their records; a slim run's full records are read back from its file (model.ts fullRecords).
import { fullRecords, type RunView } from '../model.js';
import type { EpisodeRecord } from '../../runlog/schema.js';
import { limitTags } from '../limit-notes.js';
import { episodeCorrectness, primaryMetricOf, type EpisodeCorrect } from '../correct.js';

export interface BrowserRun {
  id: string;
  benchmark: string;
  method: string;
  split: string;
  model: string;
  /** The run's primary metric (its first declared one). */
  primary: string;
  /**
   * The few-shot prompt the run's episodes share (common prefix of their trajs, to a line end; '' when
   * they share none). null: unknown, no episode recorded a trajectory (every one an error before its
   * first call was answered, say), which the viewer says rather than show an empty prompt.
   */
  prompt: string | null;
}

export interface BrowserStep {
  step: number;
  thought: string | null;
  action: string;
  observation: string;
}

export interface BrowserEpisode extends Pick<EpisodeRecord, 'idx' | 'item' | 'input' | 'gold' | 'answer' | 'metrics'> {
  /** Position of the run in BrowserData.runs. */
  run: number;
  outcome: 'correct' | 'incorrect' | 'error';
  error: string | null;
  tags: string[];
  steps: BrowserStep[];
  /** The traj after the run's prompt (the question and everything the episode added). */
  text: string;
  /** Other record fields (samples, forced_finish...), shown as JSON. */
  extras: Record<string, unknown>;
}

export interface BrowserData {
  runs: BrowserRun[];
  episodes: BrowserEpisode[];
}

/** The longest common prefix of strings given one at a time (`end`: its length so far, only shrinking). */
class CommonPrefix {
  private first: string | undefined;
  end = 0;

  add(t: string): void {
    if (this.first === undefined) {
      this.first = t;
      this.end = t.length;
      return;
    }
    let i = 0;
    const lim = Math.min(this.end, t.length);
    while (i < lim && t.charCodeAt(i) === this.first.charCodeAt(i)) i++;
    this.end = i;
  }

  /** Whether any string was given. */
  get any(): boolean {
    return this.first !== undefined;
  }

  /** The prefix cut back to just after a newline. */
  linePrefix(): string {
    const prefix = this.first === undefined ? '' : this.first.slice(0, this.end);
    return prefix.slice(0, prefix.lastIndexOf('\n') + 1);
  }
}

/** Longest common prefix of the strings, cut back to just after a newline (so an episode starts on its own line). */
export function commonLinePrefix(texts: readonly string[]): string {
  const p = new CommonPrefix();
  for (const t of texts) p.add(t);
  return p.linePrefix();
}

/**
 * The few-shot prompt of a run: the common prefix of its trajs, cut before the first line that holds
 * an episode's own input (so a one-episode run, whose "common prefix" is its whole traj, still shows
 * its question as the episode's text, not as the prompt); null when no record has a trajectory (the
 * prompt is then unknown, not empty). One pass over the records (a slim run's are read back from its
 * file one at a time): an input found inside the common prefix seen so far is kept as a possible cut;
 * one found after it can never fall inside the (only shrinking) prompt.
 */
export function recordedPrompt(records: Iterable<Pick<EpisodeRecord, 'traj' | 'input'>>): string | null {
  const common = new CommonPrefix();
  const cuts: { at: number; cut: number }[] = [];
  for (const r of records) {
    if (typeof r.traj === 'string' && r.traj.length > 0) common.add(r.traj);
    if (!r.input || !r.traj) continue;
    const at = r.traj.lastIndexOf(r.input);
    if (at >= 0 && at < common.end) cuts.push({ at, cut: r.traj.lastIndexOf('\n', at) + 1 });
  }
  if (!common.any) return null;
  let prompt = common.linePrefix();
  for (const { at, cut } of cuts) if (at < prompt.length) prompt = prompt.slice(0, cut);
  return prompt;
}

/** recordedPrompt, '' where it is unknown: what a printed trajectory leaves out (trajectories.ts, Table 2's sheet). */
export function runPrompt(records: Iterable<Pick<EpisodeRecord, 'traj' | 'input'>>): string {
  return recordedPrompt(records) ?? '';
}

const CORE = new Set(['idx', 'item', 'input', 'gold', 'answer', 'metrics', 'reward', 'traj', 'steps', 'error', 'tags']);

/** Correctness where no benchmark is given: each benchmark's default rule (src/report/correct.ts). */
const byDefaultRule = episodeCorrectness([]);

export interface BrowserOptions {
  /** Whether an episode is correct, as its benchmark says (src/report/correct.ts); absent: the default rule. */
  isCorrect?: EpisodeCorrect;
  /** Tags to add to a record's own (the benchmark's automatic tags). */
  extraTags?: (run: RunView, r: EpisodeRecord) => string[];
}

/** A run's entry in the browser, with what its episodes need (primary metric, prompt). */
export function browserRun(run: RunView): BrowserRun {
  return {
    id: run.manifest.runId,
    benchmark: run.manifest.task,
    method: run.manifest.method,
    split: run.manifest.split,
    model: run.manifest.model,
    primary: primaryMetricOf(run) ?? 'score',
    prompt: recordedPrompt(fullRecords(run)),
  };
}

/** One record as the browser shows it (`info` from browserRun, `i` the run's position). */
export function browserEpisode(run: RunView, i: number, info: BrowserRun, r: EpisodeRecord, opts: BrowserOptions = {}): BrowserEpisode {
  const prompt = info.prompt ?? '';
  const own = Array.isArray(r.tags) ? r.tags.filter((t): t is string => typeof t === 'string') : [];
  const tags = [...new Set([...own, ...limitTags(r), ...(opts.extraTags?.(run, r) ?? [])])];
  const extras = Object.fromEntries(Object.entries(r).filter(([k]) => !CORE.has(k)));
  const traj = typeof r.traj === 'string' ? r.traj : '';
  return {
    run: i,
    idx: r.idx,
    item: String(r.item ?? ''),
    input: String(r.input ?? ''),
    gold: r.gold ?? null,
    answer: r.answer ?? null,
    metrics: r.metrics ?? {},
    outcome: r.error ? 'error' : (opts.isCorrect ?? byDefaultRule)(run, r) ? 'correct' : 'incorrect',
    error: r.error ? `${r.error.source}: ${r.error.message}` : null,
    tags,
    steps: (r.steps ?? []).map((s) => ({ step: s.step, thought: s.thought ?? null, action: s.action, observation: s.observation })),
    text: traj.startsWith(prompt) ? traj.slice(prompt.length) : traj,
    extras,
  };
}

export function browserData(runs: readonly RunView[], opts: BrowserOptions = {}): BrowserData {
  const out: BrowserData = { runs: [], episodes: [] };
  runs.forEach((run, i) => {
    const info = browserRun(run);
    out.runs.push(info);
    for (const r of fullRecords(run)) out.episodes.push(browserEpisode(run, i, info, r, opts));
  });
  return out;
}

/**
 * The page keeps a small summary of every episode (its run, idx, outcome and tags in its block's
 * index, what the list, the filters and the counts need; its item, answer, gold and scores in a row
 * line, read when its row is drawn) and the rest (input, steps, text, extras, error) in a body line,
 * parsed only when the episode is opened or a search reads it (render.ts episodeBlocks): a sweep of a
 * million episodes opens without parsing every trajectory or making an object per episode.
 */
export type EpisodeSummary = Pick<BrowserEpisode, 'run' | 'idx' | 'item' | 'answer' | 'gold' | 'metrics' | 'outcome' | 'tags'>;
export type EpisodeBody = Pick<BrowserEpisode, 'input' | 'error' | 'steps' | 'text' | 'extras'>;

export function splitEpisode(e: BrowserEpisode): { summary: EpisodeSummary; body: EpisodeBody } {
  const { run, idx, item, answer, gold, metrics, outcome, tags, input, error, steps, text, extras } = e;
  return { summary: { run, idx, item, answer, gold, metrics, outcome, tags }, body: { input, error, steps, text, extras } };
}
