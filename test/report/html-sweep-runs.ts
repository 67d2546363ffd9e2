// A sweep of short episodes for the trajectory browser at scale (test/report/html-scale-chromium.test.ts
// at 200,000 episodes, bench/report.ts --viewer-sweep at 1,000,000): four runs, every 7th episode of
// run 0 tagged, one episode in all with a tag and a word of its own. The full records are made when
// the page reads them (a run's source), so a million of them are never held at once.
import { sampleManifest } from './sample-runs.js';
import type { RunView } from '../../src/report/model.js';
import type { RunSummary, EpisodeRecord } from '../../src/runlog/schema.js';

export const SWEEP_PROMPT = 'Solve a question answering task.\nQuestion: an example?\nAction 1: Finish[x]\n\n';

/** The four runs' (task, method). */
export const SWEEP_RUNS = [
  ['hotpotqa', 'react'],
  ['hotpotqa', 'act'],
  ['fever', 'react'],
  ['fever', 'cot'],
] as const;

function record(i: number, k: number, perRun: number): EpisodeRecord {
  const input = `q${i}-${k}`;
  const em = k % 3 === 0 ? 1 : 0;
  const error = k % 10 === 9 ? { source: 'llm', message: 'unreachable' } : null;
  const tags = i === 0 && k % 7 === 0 ? ['search-not-found'] : i === 3 && k === perRun - 1 ? ['only-one'] : [];
  const text = `Question: ${input}\nThought 1: ${i === 2 && k === Math.min(12_345, perRun - 1) ? 'zebra-needle' : 'think'}\nAction 1: Finish[a]\n`;
  return {
    idx: k,
    item: input,
    input,
    gold: 'a',
    answer: 'a',
    metrics: { em },
    reward: em,
    steps: [],
    n_calls: 1,
    n_badcalls: 0,
    usage: null,
    cost: 0,
    latency_ms: 1,
    cached_calls: 0,
    error,
    tags,
    traj: SWEEP_PROMPT + text,
  } as unknown as EpisodeRecord;
}

/** Run `i` of the sweep, `perRun` episodes. */
export function sweepRun(i: number, perRun: number): RunView {
  const [task, method] = SWEEP_RUNS[i]!;
  const indices = Array.from({ length: perRun }, (_, k) => k);
  const manifest = sampleManifest(`${method}-${task}-run${i}`, task, method, indices, 'm', {
    split: 'dev',
    metrics: [{ key: 'em', label: 'EM' }],
  });
  // What the page reads of the in-memory records: their idx and error (the run table's counts).
  const records = indices.map((k) => ({ idx: k, error: k % 10 === 9 ? {} : null }) as unknown as EpisodeRecord);
  const source = {
    file: `/runs/${i}/episodes.jsonl`,
    read: (idx: number) => record(i, idx, perRun),
    *each(idxs: Iterable<number>) {
      for (const k of idxs) yield record(i, k, perRun);
    },
  };
  return { dir: `/runs/${i}`, manifest, records, source, summary: {} as RunSummary };
}

export function sweepRuns(perRun: number): RunView[] {
  return SWEEP_RUNS.map((_, i) => sweepRun(i, perRun));
}
