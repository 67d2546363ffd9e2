// Crafted run folders (schema 2) for the report tests: manifests and episodes.jsonl as the runner
// writes them, with the fields the grouping reads (identity.model, settings, kind, shard, sources).
import fs from 'node:fs';
import path from 'node:path';
import type { StepRecord } from '../../src/methods/types.js';
import type { EpisodeRecord } from '../../src/runlog/schema.js';

export interface RunSpec {
  runId: string;
  task?: string;
  method: string;
  split?: string;
  model?: string;
  indices: number[];
  records: EpisodeRecord[];
  kind?: 'run' | 'merge' | 'combination';
  shard?: string | null;
  sources?: Record<string, unknown>[];
  settings?: Record<string, unknown>;
  /** Folder name (default: the run id). */
  folder?: string;
  /** manifest.environment (the backend an interactive run used; null for Standard/CoT/CoT-SC). */
  environment?: Record<string, unknown> | null;
  /** manifest.sessions (default: one complete session). */
  sessions?: Record<string, unknown>[];
  /** manifest.modelDescription (default: none). */
  modelDescription?: Record<string, unknown>;
}

export const QA_METRICS = [
  { key: 'em', label: 'EM' },
  { key: 'f1', label: 'F1' },
];

export function writeRun(root: string, s: RunSpec): string {
  const dir = path.join(root, s.folder ?? s.runId);
  fs.mkdirSync(dir, { recursive: true });
  const task = s.task ?? 'hotpotqa';
  const model = s.model ?? 'test-model';
  const manifest = {
    schema: 2,
    runId: s.runId,
    kind: s.kind ?? 'run',
    task,
    metrics:
      task === 'alfworld'
        ? [{ key: 'success', label: 'Success' }]
        : task === 'webshop'
          ? [
              { key: 'score', label: 'Score' },
              { key: 'success', label: 'SR' },
            ]
          : task === 'fever'
            ? [
                { key: 'em', label: 'Acc' },
                { key: 'f1', label: 'F1' },
              ]
            : QA_METRICS,
    method: s.method,
    split: s.split ?? 'offline500',
    shard: s.shard ?? null,
    model,
    indices: s.indices,
    identity: {
      task,
      method: s.method,
      split: s.split ?? 'offline500',
      model: { backend: 'openai-compatible', model, api: 'completions', deviations: [] },
      methodOptions: { method: s.method, ...(s.settings ?? {}) },
    },
    settings: { task, method: s.method, model, concurrency: 8, resultsDir: root, samples: 21, ...(s.settings ?? {}) },
    fidelity: {},
    inputs: {},
    modelDescription: s.modelDescription ?? {},
    environment: s.environment ?? null,
    software: { package: 'react-repro', version: '0', git: null, node: process.version, platform: 'linux-x64' },
    startedAt: '2026-01-01T00:00:00.000Z',
    sessions: s.sessions ?? [{ startedAt: '2026-01-01T00:00:00.000Z', endedAt: '2026-01-01T00:01:00.000Z', status: 'complete' }],
    ...(s.sources ? { sources: s.sources } : {}),
  };
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  fs.writeFileSync(path.join(dir, 'episodes.jsonl'), s.records.map((r) => JSON.stringify(r) + '\n').join(''));
  return dir;
}

const PROMPT =
  'Solve a question answering task with interleaving Thought, Action, Observation steps.\nQuestion: an exemplar?\nThought 1: Exemplar.\nAction 1: Finish[x]\nObservation 1: Episode finished, reward = 0\n\n';

/** A HotpotQA-like record: right (em 1), wrong, partly right (f1 > 0), or an infrastructure error. */
export function qa(idx: number, outcome: 'right' | 'wrong' | 'partial' | 'error', over: Partial<EpisodeRecord> = {}): EpisodeRecord {
  const gold = `gold ${idx}`;
  const answer = outcome === 'right' ? gold : outcome === 'partial' ? `gold of ${idx}` : outcome === 'wrong' ? 'nothing' : null;
  const em = outcome === 'right' ? 1 : 0;
  const f1 = outcome === 'right' ? 1 : outcome === 'partial' ? 0.5 : 0;
  const steps: StepRecord[] =
    outcome === 'error'
      ? []
      : [
          {
            step: 1,
            thought: `I search ${idx}.`,
            action: `search[item ${idx}]`,
            observation: outcome === 'wrong' ? `Could not find item ${idx}. Similar: [].` : `Item ${idx} is a thing.`,
          },
          { step: 2, thought: 'Done.', action: `finish[${answer}]`, observation: `Episode finished, reward = ${em}` },
        ];
  const traj =
    PROMPT +
    `Question: question ${idx}?\n` +
    steps.map((s) => `Thought ${s.step}: ${s.thought}\nAction ${s.step}: ${s.action}\nObservation ${s.step}: ${s.observation}\n`).join('');
  return {
    idx,
    item: `question ${idx}?`,
    input: `question ${idx}?`,
    gold,
    answer,
    metrics: outcome === 'error' ? { em: 0, f1: 0 } : { em, f1 },
    reward: outcome === 'error' ? null : em,
    traj: outcome === 'error' ? '' : traj,
    steps,
    n_calls: 2,
    n_badcalls: 0,
    usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
    cost: 0.001,
    latency_ms: 5,
    cached_calls: 0,
    error: outcome === 'error' ? { source: 'llm', message: 'endpoint unreachable after 5 retries' } : null,
    ...(outcome === 'error' ? {} : { forced_finish: false }),
    ...over,
  } as EpisodeRecord;
}

/** Records for the indices from a pattern string: r = right, w = wrong, p = partial, e = error. */
export function qaRecords(indices: number[], pattern: string, over: (i: number) => Partial<EpisodeRecord> = () => ({})): EpisodeRecord[] {
  const kind = { r: 'right', w: 'wrong', p: 'partial', e: 'error' } as const;
  return indices.map((idx, k) => qa(idx, kind[pattern[k] as keyof typeof kind], over(idx)));
}
