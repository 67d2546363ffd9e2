// Whether an episode is correct: one rule for the trajectory browser's outcome (html/episodes.ts),
// Table 2's sample of correct and incorrect trajectories (table2.ts) and export's successful
// trajectories and `correct` column (export.ts). A benchmark may declare it (Benchmark.isCorrect);
// without one, an episode is correct when its run's primary metric is 1 (full marks: a partial score
// is never correct). An error episode is an outage, never correct (README "Reliability").
import type { Benchmark } from '../benchmarks/types.js';
import type { AnalysedEpisode, EpisodeRecord, RunManifest } from '../runlog/schema.js';
import { metricKeysOf } from '../run/summary.js';
import type { RunView } from './model.js';

/** Whether a scored episode of one run is correct. */
export type CorrectRule = (episode: AnalysedEpisode) => boolean;

/** Whether an episode of a run is correct (an error episode never is). */
export type EpisodeCorrect = (run: RunView, episode: EpisodeRecord) => boolean;

/** A run's primary metric: the first its manifest declares, else (schema 1) the first its records carry. */
export function primaryMetricOf(run: { manifest: Pick<RunManifest, 'metrics'>; records: Iterable<EpisodeRecord> }): string | undefined {
  return metricKeysOf(run.manifest, run.records)[0];
}

/** A run's rule: its benchmark's isCorrect, else its primary metric equal to 1 (a run without metrics: never). */
export function correctRule(
  benchmark: Pick<Benchmark, 'isCorrect'> | undefined,
  run: { manifest: Pick<RunManifest, 'metrics'>; records: Iterable<EpisodeRecord> },
): CorrectRule {
  const declared = benchmark?.isCorrect?.bind(benchmark);
  if (declared) return declared;
  const primary = primaryMetricOf(run);
  return (e) => primary !== undefined && e.metrics?.[primary] === 1;
}

/**
 * Whether an episode is correct, by its run's benchmark (found by the run's task among `benchmarks`;
 * a benchmark not among them has the default rule). Each run's rule is made once.
 */
export function episodeCorrectness(benchmarks: readonly Pick<Benchmark, 'name' | 'isCorrect'>[]): EpisodeCorrect {
  const byName = new Map(benchmarks.map((b) => [b.name, b]));
  const rules = new WeakMap<RunView, CorrectRule>();
  return (run, episode) => {
    if (episode.error) return false;
    let rule = rules.get(run);
    if (!rule) rules.set(run, (rule = correctRule(byName.get(run.manifest.task), run)));
    return rule(episode);
  };
}
