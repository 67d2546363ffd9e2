// `export`: FireAct-style fine-tuning lines from successful trajectories (prompt/completion, chat,
// alpaca), the flat JSONL of every episode, and which runs are exported (duplicates, merges, shards).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunView } from '../../src/report/model.js';
import { finetuneExample, finetuneLines, flatEpisode, flatLines, loadRunsForExport, trajectoryText } from '../../src/report/export.js';
import { selectRuns } from '../../src/report/grouping.js';
import { runFolders } from '../../src/report/load.js';
import type { RunManifest, EpisodeRecord } from '../../src/runlog/schema.js';
import { episodeCorrectness } from '../../src/report/correct.js';

/** Correct by the default rule (no benchmark declares one here): the run's primary metric equal to 1. */
const byDefault = episodeCorrectness([]);

function record(idx: number, over: Partial<EpisodeRecord> = {}): EpisodeRecord {
  return {
    idx,
    item: `q${idx}`,
    input: `Question number ${idx}?`,
    gold: 'Paris',
    answer: 'Paris',
    metrics: { em: 1, f1: 1 },
    reward: 1,
    traj: 'full prompt',
    steps: [
      {
        step: 1,
        thought: ' I need to search France. ',
        action: 'Search[France]',
        observation: 'France is a country. Its capital is Paris.',
      },
      { step: 2, thought: 'The capital is Paris.', action: 'Finish[Paris]', observation: 'Episode finished, reward = 1\n' },
    ],
    n_calls: 2,
    n_badcalls: 0,
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
    cost: 0.002,
    latency_ms: 5,
    cached_calls: 0,
    error: null,
    ...over,
  };
}

function run(runId: string, records: EpisodeRecord[], over: Partial<RunManifest> = {}): RunView {
  const manifest = {
    runId,
    kind: 'run',
    task: 'hotpotqa',
    method: 'react',
    split: 'dev',
    model: 'm',
    shard: null,
    metrics: [
      { key: 'em', label: 'EM' },
      { key: 'f1', label: 'F1' },
    ],
    indices: records.map((r) => r.idx),
    ...over,
  } as RunManifest;
  return { dir: `/r/${runId}`, manifest, records, summary: {} as RunView['summary'] };
}

const COMPLETION =
  'Thought: I need to search France.\nAction: Search[France]\nObservation: France is a country. Its capital is Paris.\n' +
  'Thought: The capital is Paris.\nAction: Finish[Paris]\nObservation: Episode finished, reward = 1\n';

describe('finetune export', () => {
  it('writes the successful trajectories as FireAct turns, in the three shapes', () => {
    const r = record(0);
    expect(trajectoryText(r.steps)).toBe(COMPLETION);
    expect(finetuneExample(r, 'prompt-completion')).toEqual({ prompt: 'Question number 0?\n', completion: COMPLETION });
    expect(finetuneExample(r, 'alpaca')).toEqual({ instruction: 'Question number 0?', input: '', output: COMPLETION });
    expect(finetuneExample(r, 'chat')).toEqual({
      messages: [
        { role: 'user', content: 'Question number 0?' },
        { role: 'assistant', content: 'Thought: I need to search France.\nAction: Search[France]' },
        { role: 'user', content: 'Observation: France is a country. Its capital is Paris.' },
        { role: 'assistant', content: 'Thought: The capital is Paris.\nAction: Finish[Paris]' },
        { role: 'user', content: 'Observation: Episode finished, reward = 1' },
      ],
    });
  });

  it('turns without a thought (ALFWorld, WebShop) are action lines; WebShop takes its instruction as the task', () => {
    const alf = record(3, {
      input: '',
      instruction: 'i need a citrus deodorant',
      metrics: { success: 1 },
      steps: [
        { step: 1, action: 'think: first find it', observation: 'OK.' },
        { step: 2, action: 'search[citrus deodorant]', observation: '[Back to Search]\n' },
      ],
    });
    expect(finetuneExample(alf, 'prompt-completion')).toEqual({
      prompt: 'i need a citrus deodorant\n',
      completion: 'Action: think: first find it\nObservation: OK.\nAction: search[citrus deodorant]\nObservation: [Back to Search]\n',
    });
  });

  it('keeps only successful interactive episodes and counts what it leaves out', () => {
    const runs = [
      run('a', [
        record(0),
        record(1, { metrics: { em: 0, f1: 0.5 } }),
        record(2, { error: { source: 'env', message: 'down' }, metrics: { em: 0, f1: 0 } }),
        record(3, { steps: [] }), // CoT: no trajectory of actions
        record(4, { input: '' }),
      ]),
      run('combo', [record(5)], { kind: 'combination' }),
    ];
    const { lines, counts } = finetuneLines(runs, byDefault);
    expect(lines.map((l) => JSON.parse(l).prompt)).toEqual(['Question number 0?\n']);
    expect(counts).toEqual({ examples: 1, unsuccessful: 1, errors: 1, noSteps: 1, noTask: 1, derivedRuns: 1 });
    // Another metric as the success criterion; a metric the run does not have is refused.
    expect(finetuneLines([run('a', [record(1, { metrics: { em: 0, f1: 1 } })])], byDefault, { metric: 'f1' }).lines).toHaveLength(1);
    expect(() => finetuneLines(runs, byDefault, { metric: 'success' })).toThrow(
      '--metric: a (hotpotqa) has no metric "success" (it has em, f1)',
    );
    expect(() => finetuneLines(runs, byDefault, { style: 'sharegpt' as never })).toThrow(
      /--style: expected one of prompt-completion, chat, alpaca/,
    );
  });
});

describe('flat export', () => {
  it('one object per episode: run columns, metrics as metric_<key>, usage, extras, errors unscored', () => {
    const v = run('a', [
      record(0, { samples: ['Paris', 'Lyon'], task: 'clash' }),
      record(1, {
        error: { source: 'llm', message: 'timeout' },
        metrics: { em: 0, f1: 0 },
        spent_usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        spent_cost: 0,
      }),
    ]);
    const f0 = flatEpisode(v, v.records[0], byDefault);
    expect(f0).toMatchObject({
      run_id: 'a',
      run_kind: 'run',
      task: 'hotpotqa',
      method: 'react',
      model: 'm',
      split: 'dev',
      idx: 0,
      correct: true,
      metric_em: 1,
      metric_f1: 1,
      error: null,
      n_steps: 2,
      total_tokens: 120,
      spent_tokens: 120, // no spent_* fields: it spent what it used
      spent_cost: 0.002,
      samples: ['Paris', 'Lyon'],
      extra_task: 'clash', // an extra named like a run column keeps its value under another name
    });
    expect(Object.keys(f0).slice(0, 12)).toEqual([
      'run_id',
      'run_kind',
      'task',
      'method',
      'model',
      'split',
      'idx',
      'item',
      'input',
      'gold',
      'answer',
      'correct',
    ]);
    const f1 = flatEpisode(v, v.records[1], byDefault);
    expect(f1).toMatchObject({ correct: null, error: 'timeout', error_source: 'llm', spent_tokens: 0, spent_cost: 0 });
    expect(f1).not.toHaveProperty('spent_usage');
    expect(flatLines([v], byDefault).map((l) => JSON.parse(l).idx)).toEqual([0, 1]);
  });
});

describe('which runs', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'export-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('each run once; a merged run supersedes its shards', () => {
    const s1 = run('x-s1of2', [record(0)], { shard: '1/2' });
    const s2 = run('x-s2of2', [record(1)], { shard: '2/2' });
    const merged = run('x', [record(0), record(1)], { kind: 'merge', sources: [{ runId: 'x-s1of2' }, { runId: 'x-s2of2' }] });
    const copy = { ...run('y', [record(2)]), dir: '/elsewhere/y' };
    // The same choice as the report's (src/report/grouping.ts): a copy counts once, a merge replaces its shards.
    const { runs, notes } = selectRuns([s1, s2, merged, run('y', [record(2)]), copy]);
    expect(runs.map((r) => r.manifest.runId)).toEqual(['x', 'y']);
    expect(notes.join('\n')).toMatch(/Run y is in 2 folders/);
    expect(notes.join('\n')).toMatch(/Merged run x supersedes its 2 shard run\(s\) \(x-s1of2, x-s2of2\)/);
  });

  it('reads run folders or a folder of them', () => {
    const results = path.join(tmp, 'results');
    for (const id of ['b', 'a']) {
      fs.mkdirSync(path.join(results, id), { recursive: true });
      fs.writeFileSync(path.join(results, id, 'manifest.json'), JSON.stringify({ ...run(id, [record(0)]).manifest, indices: [0] }));
      fs.writeFileSync(path.join(results, id, 'episodes.jsonl'), JSON.stringify(record(0)) + '\n');
    }
    expect(runFolders([results], 'export')).toEqual([path.join(results, 'a'), path.join(results, 'b')]);
    const { runs } = loadRunsForExport([results, path.join(results, 'a')], 'export');
    expect(runs.map((r) => r.manifest.runId)).toEqual(['a', 'b']);
    expect(() => runFolders([path.join(tmp, 'nope')], 'export')).toThrow(`export: ${path.join(tmp, 'nope')} is not a folder`);
    expect(() => runFolders([tmp + '/results/a/..', tmp], 'export')).toThrow(`export: ${tmp} holds no runs`);
  });
});
