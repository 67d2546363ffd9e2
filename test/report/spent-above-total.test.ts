// A run stopped mid-episode (--max-cost, Ctrl-C) paid for calls of episodes it never recorded: its
// spent figures (the sessions' bill) are above its total (its records'). The Runs table says why, so a
// reader does not take spent > total for an error (README "Reliability": spent = billed).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { benchmarkNames, getBenchmark } from '../../src/benchmarks/registry.js';
import { buildReport } from '../../src/report/build.js';
import { loadRuns } from '../../src/report/load.js';
import { qaRecords, writeRun } from './run-folders.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'report-spent-above-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const session = (status: string, totalTokens: number, cost: number, extra: Record<string, unknown> = {}) => ({
  startedAt: '2026-01-01T00:00:00.000Z',
  endedAt: '2026-01-01T00:01:00.000Z',
  status,
  price: 'known',
  spent: { calls: 9, prompt_tokens: totalTokens, completion_tokens: 0, total_tokens: totalTokens, cost_usd: cost, paid_unknown_calls: 0 },
  ...extra,
});

const NOTE = /^Tokens \(spent\) or Cost USD \(spent\) above the total: /;

function runsNotes(dir: string): string[] {
  return buildReport(loadRuns([dir], { warn: () => {} }), benchmarkNames().map(getBenchmark)).runsTable.notes;
}

it('a run whose sessions paid for more than its records hold: the Runs table names it and says why', () => {
  const dir = path.join(tmp, 'stopped');
  const idx = [0, 1, 2, 3];
  // Records: 4 episodes of 110 tokens and $0.001 each (qa()); the session paid for 660 tokens, $0.006 (two episodes cut off).
  writeRun(dir, {
    runId: 'stopped-run',
    method: 'react',
    indices: [...idx, 4, 5],
    records: qaRecords(idx, 'rrww'),
    sessions: [session('interrupted', 660, 0.006, { stoppedBy: 'max-cost' })],
  });
  const notes = runsNotes(dir).filter((n) => NOTE.test(n));
  expect(notes).toHaveLength(1);
  expect(notes[0]).toContain('stopped-run');
  expect(notes[0]).toContain('episodes a stop cut short');
  // Not only a stop: with the cache off, a retried error episode's or a restarted attempt's calls are
  // paid for and then replaced, and a resume never brings the total up to what was spent.
  expect(notes[0]).toContain('error episodes a retry replaced');
  expect(notes[0]).toContain('attempts restarted on another pool member');
  expect(notes[0]).toContain('with --cache off it never catches up');
});

it('no such note when what was spent is within the records (a finished run, a re-run from the cache)', () => {
  const dir = path.join(tmp, 'whole');
  const idx = [0, 1, 2, 3];
  writeRun(dir, {
    runId: 'whole-run',
    method: 'react',
    indices: idx,
    records: qaRecords(idx, 'rrww'),
    sessions: [session('complete', 0, 0)],
  });
  expect(runsNotes(dir).filter((n) => NOTE.test(n))).toEqual([]);
});
