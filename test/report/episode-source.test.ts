// Report building on slim records (no trajectory text in memory, each full record read back from
// episodes.jsonl when needed): the same report as from full records, in every format, the HTML page's
// data and the Table 2 label sheet included; the latest line per item is the one read back (a retried
// episode), a torn last line is ignored, and a file changed under the report is a one-line UserError.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRuns } from '../../src/report/load.js';
import { buildReport } from '../../src/report/build.js';
import { renderMarkdown } from '../../src/report/render-md.js';
import { renderCsv } from '../../src/report/render-csv.js';
import { renderTex } from '../../src/report/render-tex.js';
import { renderHtml } from '../../src/report/render-html.js';
import { pageData } from '../../src/report/html/render.js';
import { labelSheetRows } from '../../src/report/table2.js';
import { fullRecords, type RunView } from '../../src/report/model.js';
import { benchmarkNames, getBenchmark } from '../../src/benchmarks/builtin.js';
import { UserError } from '../../src/errors.js';
import { qa, qaRecords, writeRun } from './run-folders.js';

let tmp: string;
const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);
const benchmarks = () => benchmarkNames().map(getBenchmark);

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'episode-source-'));
  const idx = range(0, 60);
  const pattern = (seed: number) =>
    idx.map((i) => 'rwpe'[(i * 7 + seed) % 11 < 5 ? 0 : (i * 3 + seed) % 11 < 9 ? 1 : i % 13 ? 2 : 3]).join('');
  writeRun(tmp, { runId: 'hotpotqa-react-a', method: 'react', indices: idx, records: qaRecords(idx, pattern(1)) });
  writeRun(tmp, { runId: 'hotpotqa-cot-a', method: 'cot', indices: idx, records: qaRecords(idx, pattern(2)) });
  const dir = writeRun(tmp, {
    runId: 'hotpotqa-act-a',
    method: 'act',
    indices: idx,
    records: qaRecords(idx, pattern(3), (i) => ({ tags: i % 5 === 0 ? ['own-tag'] : [] })),
  });
  // A retried episode (its latest line wins, out of planned order) and a torn last line (a kill -9).
  const file = path.join(dir, 'episodes.jsonl');
  fs.appendFileSync(file, JSON.stringify(qa(4, 'right', { answer: 'gold 4', tags: ['retried'] })) + '\n');
  fs.appendFileSync(file, JSON.stringify(qa(5, 'right')).slice(0, 40));
});

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('report building on slim records', () => {
  it('holds no trajectory text in memory, and reads the latest full record back', () => {
    const [slim] = loadRuns([tmp], { slim: true }).filter((r) => r.manifest.runId === 'hotpotqa-act-a');
    const [full] = loadRuns([tmp]).filter((r) => r.manifest.runId === 'hotpotqa-act-a');
    expect(slim.source).toBeDefined();
    expect(full.source).toBeUndefined();
    expect(slim.records.map((r) => r.idx)).toEqual(full.records.map((r) => r.idx));
    expect(slim.records.every((r) => r.traj === '' && r.input === '')).toBe(true);
    expect(slim.records.flatMap((r) => r.steps).every((s) => s.action === '' && s.observation === '' && s.thought === undefined)).toBe(
      true,
    );
    expect(full.records.flatMap((r) => r.steps).every((s) => s.action !== '' && s.observation !== '')).toBe(true);
    // The step count stays (a step limit is counted from it); the summary is the full run's.
    expect(slim.records.map((r) => r.steps.length)).toEqual(full.records.map((r) => r.steps.length));
    expect(slim.summary).toEqual(full.summary);
    expect([...fullRecords(slim)]).toEqual(full.records);
    expect(slim.source!.read(4).tags).toEqual(['retried']);
    expect(slim.records.find((r) => r.idx === 4)!.metrics.em).toBe(1);
  });

  it('writes the same report in every format, page data and label sheet included', () => {
    const build = (runs: RunView[]) => buildReport(runs, benchmarks(), { labelMethods: ['react', 'cot', 'act'] });
    const slim = build(loadRuns([tmp], { slim: true }));
    const full = build(loadRuns([tmp]));
    expect(renderMarkdown(slim)).toBe(renderMarkdown(full));
    expect(renderCsv(slim)).toBe(renderCsv(full));
    expect(renderTex(slim)).toBe(renderTex(full));
    const html = renderHtml(slim);
    expect(html).toBe(renderHtml(full));
    expect(pageData(html).episodes.some((e) => e.text.includes('Thought 1: I search 7.'))).toBe(true);
    expect(slim.samples.length).toBe(3);
    expect(slim.samples.flatMap((s) => [...s.correct, ...s.incorrect]).every((r) => r.traj.length > 0 || r.error)).toBe(true);
    expect(labelSheetRows(slim.samples)).toEqual(labelSheetRows(full.samples));
  });

  it('reads a run folder by the same rules as the full reader: a bad line that is not the last is the same one-line error', () => {
    const dir = writeRun(tmp, { runId: 'hotpotqa-react-bad', method: 'react', indices: [0, 1], records: qaRecords([0, 1], 'rw') });
    const file = path.join(dir, 'episodes.jsonl');
    const [first, ...rest] = fs.readFileSync(file, 'utf8').split('\n');
    fs.writeFileSync(file, [first, '{"not": "a record"}', ...rest].join('\n'));
    try {
      const warned: string[] = [];
      const error = (opts: Parameters<typeof loadRuns>[1]) => {
        try {
          loadRuns([dir], opts);
        } catch (e) {
          expect(e).toBeInstanceOf(UserError);
          return (e as Error).message;
        }
        throw new Error('expected a UserError');
      };
      // The only folder cannot be read: one error line gives the reason (no warning beside it), the same for both readers.
      const slim = error({ slim: true, warn: (l) => warned.push(l) });
      expect(slim).toMatch(/line 2 is not an episode record/);
      expect(error({ warn: (l) => warned.push(l) })).toBe(slim);
      expect(warned).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps in each slim record only its own fields (the zeros shared), and reads back lines of any length', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'episode-reader-'));
    try {
      // A trajectory of 300,000 characters, most of them 2 bytes in UTF-8: several times the read buffer.
      const long = qa(1, 'right', { traj: 'Question: é?\n' + 'é'.repeat(300_000), extra_field: 'kept' } as never);
      writeRun(dir, { runId: 'hotpotqa-react-long', method: 'react', indices: [0, 1, 2], records: [qa(0, 'wrong'), long, qa(2, 'error')] });
      const [run] = loadRuns([dir], { slim: true });
      const [r0, r1, r2] = run.records;
      expect(Object.keys(r1)).not.toContain('n_calls');
      // No error: null read from the shared prototype, not held per record; an error is the record's own.
      expect(Object.keys(r1)).not.toContain('error');
      expect(r1.error).toBeNull();
      expect(r2.error).toEqual(qa(2, 'error').error);
      expect(Object.keys(r1)).toContain('extra_field');
      expect([r1.n_calls, r1.cost, r1.latency_ms, r1.cached_calls, r1.traj, r1.input]).toEqual([0, 0, 0, 0, '', '']);
      expect(r1.usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 });
      expect([r0.idx, r0.gold, r0.answer, r0.metrics]).toEqual([0, 'gold 0', 'nothing', { em: 0, f1: 0 }]);
      // The run's summary counts the calls and tokens the full records hold.
      expect(run.summary.n_calls).toBe(6);
      const back = [...fullRecords(run)];
      expect(back.map((r) => r.idx)).toEqual([0, 1, 2]);
      expect(back[1]).toEqual(long);
      expect(run.source!.read(0)).toEqual(qa(0, 'wrong'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads back items whose index does not fit 32 bits beside ones that do', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'episode-reader-'));
    try {
      const indices = [3, 2 ** 33 + 1, 7];
      writeRun(dir, { runId: 'hotpotqa-react-big', method: 'react', indices, records: indices.map((i) => qa(i, 'right')) });
      const [run] = loadRuns([dir], { slim: true });
      expect([...fullRecords(run)].map((r) => [r.idx, r.gold])).toEqual(indices.map((i) => [i, `gold ${i}`]));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says so in one line when a file changed under the report', () => {
    const [run] = loadRuns([tmp], { slim: true }).filter((r) => r.manifest.runId === 'hotpotqa-react-a');
    const file = path.join(run.dir, 'episodes.jsonl');
    const text = fs.readFileSync(file, 'utf8');
    try {
      fs.writeFileSync(file, 'x'.repeat(text.length));
      expect(() => [...fullRecords(run)]).toThrow(UserError);
      expect(() => [...fullRecords(run)]).toThrow(/changed while the report read it/);
    } finally {
      fs.writeFileSync(file, text);
    }
  });
});
