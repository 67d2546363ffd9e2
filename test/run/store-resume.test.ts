// The run store holds slim records (src/runlog/slim-record.ts): resume after a crash finds every
// recorded episode (indices, metrics, errors, usage) from a log it reads in chunks, without holding
// trajectories in memory, while episodes.jsonl keeps them whole for the reports.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunStore, loadEpisodes } from '../../src/runlog/store.js';
import { EpisodeMeter } from '../../src/run/meter.js';
import { errorRecord } from '../../src/run/record.js';
import { summarize } from '../../src/run/summary.js';
import type { EpisodeRecord } from '../../src/runlog/schema.js';

// A trajectory longer than the reader's 1 MB chunk for some episodes: lines span chunk boundaries.
const trajOf = (i: number) => `Thought 1: ${'x'.repeat(i % 7 === 0 ? 1_500_000 : 20_000 + i)}\nAction 1: Finish[a${i}]`;
const rec = (i: number, error: EpisodeRecord['error'] = null): EpisodeRecord => ({
  ...errorRecord(
    { index: i, id: `q${i}`, input: `q${i}`, gold: `a${i}` },
    { source: 'llm', message: 'x' },
    5,
    Object.assign(new EpisodeMeter(), { calls: 2 }),
    ['em', 'f1'],
  ),
  metrics: { em: i % 2, f1: i % 2 },
  traj: trajOf(i),
  steps: [
    { thought: 'x'.repeat(1000), action: `Finish[a${i}]`, observation: 'done' } as never,
    ...(i === 3 ? [{ turnsDropped: 2 } as never] : []),
  ],
  usage: { prompt_tokens: 100 + i, completion_tokens: 10, total_tokens: 110 + i },
  cost: 0.001 * i,
  error,
});

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-resume-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('RunStore resume with slim records', () => {
  it('after a crash, reopens with every whole episode, keeping no trajectory in memory', async () => {
    const s = RunStore.open(dir);
    const written = Array.from({ length: 30 }, (_, i) => rec(i, i === 5 ? { source: 'env', message: 'HTTP 503' } : null));
    await Promise.all(written.map((r) => s.append(r)));
    // in memory from the start: no trajectory text, no step text
    expect([...s.records.values()].every((r) => r.traj === '' && !JSON.stringify(r.steps).includes('xxx'))).toBe(true);
    s.close();
    // a kill -9 in the middle of the next append: a torn last line
    const file = path.join(dir, 'episodes.jsonl');
    const whole = fs.statSync(file).size;
    fs.appendFileSync(file, JSON.stringify(rec(30)).slice(0, 4000));

    const again = RunStore.open(dir);
    expect(again.recoveredBytes).toBe(4000);
    expect(fs.statSync(file).size).toBe(whole);
    expect([...again.records.keys()]).toEqual(written.map((r) => r.idx));
    for (const w of written) {
      const kept = again.records.get(w.idx)!;
      expect(kept.traj).toBe('');
      expect(kept.metrics).toEqual(w.metrics);
      expect(kept.error).toEqual(w.error);
      expect(kept.usage).toEqual(w.usage);
      expect(kept.cost).toBe(w.cost);
      expect(kept.n_calls).toBe(w.n_calls);
    }
    // the limit note the counts read from steps survives; the step text does not
    expect(again.records.get(3)!.steps).toEqual([{ turnsDropped: 2 }]);
    // the summary from slim records equals the one from the full records on disk
    const meta = { runId: 'r', task: 't', method: 'm', split: 's', model: 'x', shard: null };
    const indices = written.map((r) => r.idx);
    const full = loadEpisodes(file).records;
    expect(summarize(meta, again.records, indices, ['em', 'f1'])).toEqual(summarize(meta, full, indices, ['em', 'f1']));
    // the file still holds every trajectory whole
    expect([...full.values()].map((r) => r.traj)).toEqual(written.map((r) => r.traj));
    await again.append(rec(30));
    again.close();
    expect(loadEpisodes(file).records.get(30)!.traj).toBe(trajOf(30));
  });

  it('a last line without its newline is a torn write; a whole line that is no record is an error, the last one too', () => {
    const file = path.join(dir, 'episodes.jsonl');
    fs.writeFileSync(file, `${JSON.stringify(rec(1))}\n{"idx": 2, "metr`);
    const s = RunStore.open(dir);
    expect([...s.records.keys()]).toEqual([1]);
    expect(s.recoveredBytes).toBe('{"idx": 2, "metr'.length);
    s.close();
    // Newline-terminated, so written whole: an edit or corruption, refused (the file left as it is).
    const whole = `${JSON.stringify(rec(1))}\n{"idx": 2, "metr\n`;
    fs.writeFileSync(file, whole);
    expect(() => RunStore.open(dir)).toThrow(/episodes\.jsonl: line 2 is not an episode record/);
    expect(fs.readFileSync(file, 'utf8')).toBe(whole);
    expect(fs.existsSync(path.join(dir, '.lock'))).toBe(false);
    fs.writeFileSync(file, `not json\n${JSON.stringify(rec(1))}\n`);
    expect(() => loadEpisodes(file)).toThrow(/line 1 is not an episode record/);
  });
});
