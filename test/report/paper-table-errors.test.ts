// Tables 3 and 4 count error episodes as the run does: a run of 25 with 15 infrastructure errors says
// 15 errors and 10 scored of 25 planned (the report hands the tables the runs restricted to the items
// scored in every run of their set, which once made them say "10/10" and "0 errors").
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { benchmarkNames, getBenchmark } from '../../src/benchmarks/registry.js';
import { buildReport } from '../../src/report/build.js';
import { loadRuns } from '../../src/report/load.js';
import { renderMarkdown } from '../../src/report/render-md.js';
import { writeRun } from './run-folders.js';
import type { EpisodeRecord } from '../../src/runlog/schema.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'report-errors-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const benchmarks = () => benchmarkNames().map(getBenchmark);
const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);

function episode(idx: number, metrics: Record<string, number>, error: boolean, extra: Record<string, unknown> = {}): EpisodeRecord {
  return {
    idx,
    item: `item ${idx}`,
    input: `task ${idx}`,
    gold: null,
    answer: null,
    metrics,
    reward: error ? null : (metrics.score ?? metrics.success ?? 0),
    traj: '',
    steps: [],
    n_calls: 1,
    n_badcalls: 0,
    usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
    cost: 0,
    latency_ms: 1,
    cached_calls: 0,
    error: error ? { source: 'env', message: 'server down after 5 retries' } : null,
    ...extra,
  } as EpisodeRecord;
}

describe('Tables 3 and 4 count error episodes', () => {
  it('ALFWorld: a run of 25 with 15 errors says 15 errors and 10/25', () => {
    const dir = path.join(tmp, 'alfworld');
    const idx = range(0, 25);
    writeRun(dir, {
      runId: 'alf-react',
      task: 'alfworld',
      method: 'react',
      split: 'valid_unseen',
      indices: idx,
      records: idx.map((i) =>
        episode(i, { success: i % 2 }, i >= 10, { task_type: 'put', item: `pick_and_place_simple-Mug-None-Desk-${i}` }),
      ),
    });
    const c = buildReport(loadRuns([dir], { warn: () => {} }), benchmarks());
    const t3 = c.tables.find((t) => t.id === 'table3')!;
    const ours = t3.rows.find((r) => r.source === 'ours')!;
    expect(ours.cells).toMatchObject({ n: '10/25', errors: 15, all: 50 });
    expect(t3.notes.join('\n')).toContain('prompt set 1,0 has 15 error episodes of 25 planned');
    const bySet = c.tables.find((t) => t.id === 'table3-prompt-sets')!;
    expect(bySet.rows[0]!.cells).toMatchObject({ n: '10/25', errors: 15 });
    expect(renderMarkdown(c)).toMatch(/\| ReAct \(prompt set 1,0\) \| test-model \| 1,0 \|.*\| 10\/25 \| 15 \|/);
  });

  it("WebShop: each run says its own errors; items left out for another run's errors are said apart", () => {
    const dir = path.join(tmp, 'webshop');
    const idx = range(0, 25);
    writeRun(dir, {
      runId: 'ws-react',
      task: 'webshop',
      method: 'react',
      split: 'test',
      indices: idx,
      records: idx.map((i) => episode(i, { score: i % 2, success: i % 2 }, i >= 10)),
    });
    writeRun(dir, {
      runId: 'ws-act',
      task: 'webshop',
      method: 'act',
      split: 'test',
      indices: idx,
      records: idx.map((i) => episode(i, { score: 1, success: 1 }, false)),
    });
    const c = buildReport(loadRuns([dir], { warn: () => {} }), benchmarks());
    const t4 = c.tables.find((t) => t.id === 'table4')!;
    const row = (label: string) => t4.rows.find((r) => r.label === label)!.cells;
    expect(row('ReAct (ours)')).toMatchObject({ n: '10/25', errors: 15, score: 50 });
    expect(row('Act (ours)')).toMatchObject({ n: '10/25', errors: 0, score: 100 });
    const notes = t4.notes.join('\n');
    expect(notes).toContain(
      'ReAct, test-model (ws-react): split test, n = 10 compared of 25 planned; 15 error episodes (left out, never scored 0).',
    );
    expect(notes).toContain(
      'Act, test-model (ws-act): split test, n = 10 compared of 25 planned; 0 error episodes (left out, never scored 0), 15 scored but left out because another run of the same items has no score there.',
    );
    // The runs table agrees.
    expect(c.runsTable.rows.find((r) => r.cells.run === 'ws-react')!.cells).toMatchObject({ done: '25/25', errors: 15 });
  });

  it('limit outcomes (an episode that outgrew the context window) are counted and noted, never left out', () => {
    const dir = path.join(tmp, 'webshop-limits');
    const idx = range(0, 20);
    writeRun(dir, {
      runId: 'ws-limit',
      task: 'webshop',
      method: 'react',
      split: 'test',
      indices: idx,
      records: idx.map((i) =>
        episode(
          i,
          { score: i < 12 ? 0 : 1, success: i < 12 ? 0 : 1 },
          false,
          i < 12 ? { outcome: 'context_exceeded', outcome_step: 3 } : {},
        ),
      ),
    });
    const c = buildReport(loadRuns([dir], { warn: () => {} }), benchmarks());
    const t4 = c.tables.find((t) => t.id === 'table4')!;
    expect(t4.rows.find((r) => r.label === 'ReAct (ours)')!.cells).toMatchObject({ n: '20/20', errors: 0, score: 40 });
    expect(t4.notes).toContain(
      "WebShop ReAct (ws-limit): 12 of 20 episodes outgrew the model's context window: each ended there as a failure (scored 0, outcome context_exceeded), not an error.",
    );
    // Said once, under the table, however many places count it.
    expect(t4.notes.filter((n) => n.includes('outgrew')).length).toBe(1);
  });
});
