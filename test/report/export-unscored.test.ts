// `export --format jsonl` of a run with error episodes (a model outage): those episodes were never
// scored, so their metrics are null, not the 0 their records carry; the mean of metric_em over the
// rows that have one is the run's summary EM. `--format finetune` never takes an error episode.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../run/cli-helpers.js';
import { qaRecords, writeRun } from './run-folders.js';
import { readRun } from '../../src/runlog/store.js';
import { summarizeRun, summaryCsv } from '../../src/run/summary.js';
import { percent } from '../../src/util/numbers.js';

let tmp: string;
let dir: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'export-unscored-'));
  const idx = Array.from({ length: 20 }, (_, i) => 100 + i);
  // 13 scored (1 right, 2 partly right, 10 wrong) and 7 outages: EM 1/13 = 7.7, where 1/20 would be 5.0.
  const records = qaRecords(idx, 'rweewpwweewwpewweeww');
  // An error episode whose record happens to say em 1 and has steps (an outage after a finish): it still
  // is not scored, nor a fine-tuning example.
  records[2] = { ...records[0], idx: 102, item: 'question 102?', input: 'question 102?', error: { source: 'env', message: 'reset' } };
  dir = writeRun(path.join(tmp, 'results'), { runId: 'hotpotqa-react-outage', method: 'react', indices: idx, records });
  const { manifest, records: byIdx } = readRun(dir);
  fs.writeFileSync(path.join(dir, 'summary.csv'), summaryCsv([summarizeRun(manifest, byIdx)]));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const parse = (s: string) =>
  s
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('export of error episodes', () => {
  it('jsonl: error episodes have null metrics, scored ones keep theirs, and the mean over non-null metric_em is the summary EM', async () => {
    const r = await runCli(['export', dir, '--format', 'jsonl'], { cwd: tmp });
    expect(r.code, r.stderr).toBe(0);
    const rows = parse(r.stdout);
    expect(rows).toHaveLength(20);
    const errors = rows.filter((x) => x.error_source !== null);
    const scored = rows.filter((x) => x.error_source === null);
    expect(errors.map((x) => x.error_source)).toEqual(['env', 'llm', 'llm', 'llm', 'llm', 'llm', 'llm']);
    for (const x of errors) expect(x).toMatchObject({ metric_em: null, metric_f1: null, correct: null });
    const stored = readRun(dir).records;
    for (const x of scored) {
      expect(x.metric_em).toBe(stored.get(x.idx)!.metrics.em);
      expect(x.metric_f1).toBe(stored.get(x.idx)!.metrics.f1);
    }
    expect(scored).toHaveLength(13);
    expect(scored.map((x) => x.metric_f1).sort()).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.5, 0.5, 1]);

    const [head, row] = fs.readFileSync(path.join(dir, 'summary.csv'), 'utf8').trim().split('\n');
    const summary = Object.fromEntries(head.split(',').map((c, i) => [c, row.split(',')[i]]));
    expect(summary).toMatchObject({ n_scored: '13', n_errors: '7', em: '7.7', f1: '15.4' });
    // What `jq -s 'map(.metric_em | select(. != null)) | add / length'` gives, as a percentage.
    const mean = (k: string) => {
      const v = rows.map((x) => x[k]).filter((x) => x !== null);
      return percent(
        v.reduce((a, b) => a + b, 0),
        v.length,
      );
    };
    expect(mean('metric_em')).toBe(Number(summary.em));
    expect(mean('metric_f1')).toBe(Number(summary.f1));
  });

  it('finetune: only the scored successful episode, never an error episode', async () => {
    const r = await runCli(['export', dir, '--format', 'finetune'], { cwd: tmp });
    expect(r.code, r.stderr).toBe(0);
    const lines = parse(r.stdout);
    expect(lines).toHaveLength(1);
    expect(lines[0].prompt).toBe('question 100?\n');
    expect(r.stderr).toBe('react-repro: 1 fine-tuning example from 1 run (method react); left out: 12 unsuccessful, 7 error episodes\n');
  });
});
