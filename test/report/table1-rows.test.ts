// Table 1 on the shipped experiments' mix: HotpotQA on the offline snapshot, FEVER on live Wikipedia.
// One row per method (a backend that differs between columns is a note, never a row split); the
// methods that use no Wikipedia are never labelled by one; a row splits only when one column holds two
// runs of a method. And the CSV says cell by cell where each number comes from.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { benchmarkNames, getBenchmark } from '../../src/benchmarks/registry.js';
import { buildReport } from '../../src/report/build.js';
import { loadRuns } from '../../src/report/load.js';
import { renderMarkdown } from '../../src/report/render-md.js';
import { csvRows, CSV_COLUMNS } from '../../src/report/render-csv.js';
import { qaRecords, writeRun } from './run-folders.js';

const roots: string[] = [];
afterAll(() => roots.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function root(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'report-table1-'));
  roots.push(d);
  return d;
}
const benchmarks = () => benchmarkNames().map(getBenchmark);
const quiet = { warn: () => {} };
const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);

const METHODS = ['standard', 'cot', 'cot-sc', 'act', 'react', 'cot-sc-react', 'react-cot-sc'];
const LABELS = ['Standard', 'CoT', 'CoT-SC', 'Act', 'ReAct', 'CoT-SC→ReAct', 'ReAct→CoT-SC'];
const USES_WIKI = new Set(['act', 'react', 'cot-sc-react', 'react-cot-sc']);
const ENV = { snapshot: { kind: 'snapshot', pages: 21897 }, live: { kind: 'live', baseUrl: 'https://en.wikipedia.org' } };

/** The seven methods of one benchmark, every run recording the --wiki it was given (as the runner does). */
function writeTask(
  dir: string,
  task: 'hotpotqa' | 'fever',
  wiki: 'snapshot' | 'live',
  indices: number[],
  extra: (m: string) => Record<string, unknown> = () => ({}),
) {
  METHODS.forEach((method, k) => {
    writeRun(dir, {
      runId: `${task}-${method}`,
      task,
      method,
      kind: method.includes('-react') || method.startsWith('react-') ? 'combination' : 'run',
      split: 'react500',
      indices,
      records: qaRecords(indices, 'rrwwrwrrwr'.slice(0, indices.length - 1) + (k % 2 ? 'r' : 'w')),
      settings: { wiki, maxSteps: 'code', ...extra(method) },
      environment: USES_WIKI.has(method) ? ENV[wiki] : null,
    });
  });
}

describe('Table 1 rows', () => {
  it('HotpotQA on the snapshot and FEVER on live Wikipedia: 7 rows for 7 methods, the backends in a note', () => {
    const dir = root();
    writeTask(dir, 'hotpotqa', 'snapshot', range(0, 10));
    writeTask(dir, 'fever', 'live', range(100, 110));
    const c = buildReport(loadRuns([dir], quiet), benchmarks());
    const t1 = c.tables.find((t) => t.id === 'table1')!;
    expect(t1.rows.map((r) => r.label)).toEqual(LABELS);
    // Every row has both columns filled: nothing half empty.
    for (const r of t1.rows) {
      expect(typeof r.cells['0.ours'], r.label).toBe('number');
      expect(typeof r.cells['1.ours'], r.label).toBe('number');
      expect(r.cells['0.n']).toBe('10');
      expect(r.cells['1.n']).toBe('10');
    }
    const md = renderMarkdown(c);
    const section = md.slice(md.indexOf('## Table 1'), md.indexOf('\n## ', md.indexOf('## Table 1') + 1));
    const bodyRows = section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Method') && !l.startsWith('| ---'));
    expect(bodyRows).toHaveLength(7);
    expect(section).not.toMatch(/wiki (live|snapshot)/);
    expect(t1.notes).toContain(
      'Wikipedia differs between the columns: HotpotQA on the offline Wikipedia snapshot; FEVER on live Wikipedia (its search page, as in the released code). Searched by Act, ReAct, CoT-SC→ReAct, ReAct→CoT-SC; Standard, CoT, CoT-SC use no Wikipedia.',
    );
  });

  it('the same backend everywhere is one line; a setting that differs between columns is a note, not a row', () => {
    const dir = root();
    writeTask(dir, 'hotpotqa', 'snapshot', range(0, 10), (m) => (m === 'cot-sc' ? { samples: 21 } : {}));
    writeTask(dir, 'fever', 'snapshot', range(100, 110), (m) => (m === 'cot-sc' ? { samples: 5 } : {}));
    const t1 = buildReport(loadRuns([dir], quiet), benchmarks()).tables.find((t) => t.id === 'table1')!;
    expect(t1.rows.map((r) => r.label)).toEqual(LABELS);
    expect(t1.notes).toContain(
      'Wikipedia: the offline Wikipedia snapshot in every column. Searched by Act, ReAct, CoT-SC→ReAct, ReAct→CoT-SC; Standard, CoT, CoT-SC use no Wikipedia.',
    );
    expect(t1.notes).toContain('CoT-SC: the columns differ in samples (HotpotQA EM 21, FEVER Acc 5).');
  });

  it("FEVER on the shipped snapshot, which lacks the claims' evidence: its searching methods' column is for reference only, by the run notice's rule", () => {
    const dir = root();
    writeTask(dir, 'hotpotqa', 'snapshot', range(0, 10));
    writeTask(dir, 'fever', 'snapshot', range(100, 110));
    const t1 = buildReport(loadRuns([dir], quiet), benchmarks()).tables.find((t) => t.id === 'table1')!;
    const caveat =
      "FEVER Acc: Act, ReAct, CoT-SC→ReAct, ReAct→CoT-SC searched the offline 2017 HotpotQA Wikipedia snapshot; the evidence pages of 0 of its 8 SUPPORTS/REFUTES claims are all in it (its 2 NOT ENOUGH INFO claims name none), so their scores do not measure the paper's task, and the paper's numbers are beside them for reference only; use --split offline (the 345 claims whose pages are all there) or --wiki live.";
    expect(t1.notes).toContain(caveat);
    // The numbers are the ones the run printed before it started (one rule: feverEvidenceGap).
    const notice = getBenchmark('fever').startNotes!({
      method: 'react',
      split: 'react500',
      indices: range(100, 110),
      options: getBenchmark('fever').parseOptions!({ wiki: 'snapshot' }),
    });
    expect(notice[0]).toContain(
      ': the evidence pages of 0 of its 8 SUPPORTS/REFUTES claims are all in it (its 2 NOT ENOUGH INFO claims name none), so',
    );
    // HotpotQA's questions 0..9 have their gold pages in the snapshot: no such caveat for them.
    expect(t1.notes.filter((n) => n.includes('do not measure'))).toEqual([caveat]);
  });

  it("HotpotQA's paper questions on the shipped snapshot, which holds the gold pages of a quarter of them: the column is for reference only, and the run said so", () => {
    const hotpotqa = getBenchmark('hotpotqa');
    const react500 = hotpotqa.split('react500').indices.slice(0, 30);
    const dir = root();
    writeTask(dir, 'hotpotqa', 'snapshot', [...react500]);
    const t1 = buildReport(loadRuns([dir], quiet), benchmarks()).tables.find((t) => t.id === 'table1')!;
    const caveat =
      "HotpotQA EM: Act, ReAct, CoT-SC→ReAct, ReAct→CoT-SC searched the offline 2017 HotpotQA Wikipedia snapshot; the gold pages of 5 of its 30 questions are all in it, so their scores do not measure the paper's task, and the paper's numbers are beside them for reference only; use --split offline500 (the first 500 of the 1906 questions whose pages are all there, in the paper's shuffle order) or --wiki live.";
    expect(t1.notes).toContain(caveat);
    const notice = hotpotqa.startNotes!({
      method: 'react',
      split: 'react500',
      indices: react500,
      options: hotpotqa.parseOptions!({ wiki: 'snapshot' }),
    });
    expect(notice).toEqual([
      "notice: HotpotQA react500 on the offline 2017 HotpotQA Wikipedia snapshot: the gold pages of 5 of its 30 questions are all in it, so its scores do not measure the paper's task; use --split offline500 (the first 500 of the 1906 questions whose pages are all there, in the paper's shuffle order) or --wiki live",
    ]);
    // Questions the snapshot covers (offline500), a method that does not search, live Wikipedia: no notice.
    for (const [method, indices, wiki] of [
      ['react', hotpotqa.split('offline500').indices.slice(0, 30), 'snapshot'],
      ['cot', react500, 'snapshot'],
      ['react', react500, 'live'],
    ] as const)
      expect(hotpotqa.startNotes!({ method, split: 'x', indices, options: hotpotqa.parseOptions!({ wiki }) })).toEqual([]);
  });

  it('no evidence caveat for FEVER on live Wikipedia, on claims the snapshot covers, or on a snapshot of your own', () => {
    const fever = getBenchmark('fever');
    const covered = fever.split('offline').indices.slice(0, 10);
    for (const [wiki, indices, extra] of [
      ['live', range(100, 110), {}],
      ['snapshot', covered, {}],
      ['snapshot', range(100, 110), { wikiSnapshot: '/my/fever-pages.sqlite' }],
    ] as const) {
      const dir = root();
      writeTask(dir, 'fever', wiki, [...indices], () => ({ ...extra }));
      const t1 = buildReport(loadRuns([dir], quiet), benchmarks()).tables.find((t) => t.id === 'table1')!;
      expect(
        t1.notes.filter((n) => n.includes('do not measure')),
        `${wiki} ${JSON.stringify(extra)}`,
      ).toEqual([]);
    }
  });

  it('a row splits only where one column holds two runs of a method; a lone run joins the variant it matches', () => {
    const dir = root();
    const h = range(0, 10);
    writeRun(dir, {
      runId: 'h-react-5',
      method: 'react',
      split: 'react500',
      indices: h,
      records: qaRecords(h, 'rrrrrwwwww'),
      settings: { wiki: 'snapshot', maxSteps: 5 },
      environment: ENV.snapshot,
    });
    writeRun(dir, {
      runId: 'h-react-7',
      method: 'react',
      split: 'react500',
      indices: h,
      records: qaRecords(h, 'rrrrrrrwww'),
      settings: { wiki: 'snapshot', maxSteps: 7 },
      environment: ENV.snapshot,
    });
    writeRun(dir, {
      runId: 'h-cot',
      method: 'cot',
      split: 'react500',
      indices: h,
      records: qaRecords(h, 'rrrwwwwwww'),
      settings: { wiki: 'snapshot' },
    });
    const f = range(100, 104);
    writeRun(dir, {
      runId: 'f-react-7',
      task: 'fever',
      method: 'react',
      split: 'react500',
      indices: f,
      records: qaRecords(f, 'rrrw'),
      settings: { wiki: 'live', maxSteps: 7 },
      environment: ENV.live,
    });
    writeRun(dir, {
      runId: 'f-cot',
      task: 'fever',
      method: 'cot',
      split: 'react500',
      indices: f,
      records: qaRecords(f, 'rrww'),
      settings: { wiki: 'live' },
    });
    const t1 = buildReport(loadRuns([dir], quiet), benchmarks()).tables.find((t) => t.id === 'table1')!;
    const ours = t1.rows.filter((r) => r.cells['0.ours'] !== null || r.cells['1.ours'] !== null);
    expect(ours.map((r) => [r.label, r.cells['0.ours'], r.cells['1.ours']])).toEqual([
      ['CoT', 30, 50],
      ['ReAct (maxSteps 5)', 50, null],
      ['ReAct (maxSteps 7)', 70, 75],
    ]);
  });

  it('CSV provenance, cell by cell: ours with the run id, the paper with its table, other sources as published', () => {
    const dir = root();
    writeTask(dir, 'hotpotqa', 'snapshot', range(0, 10));
    writeTask(dir, 'fever', 'live', range(100, 110));
    const c = buildReport(loadRuns([dir], quiet), benchmarks());
    const col = (name: (typeof CSV_COLUMNS)[number]) => CSV_COLUMNS.indexOf(name);
    const lines = csvRows(c.tables.find((t) => t.id === 'table1')!);
    expect(lines).toHaveLength(7 * 8);
    for (const l of lines) {
      const [column, value, source, ref] = [l[col('column')]!, l[col('value')]!, l[col('source')]!, l[col('source_ref')]!];
      if (/ (Ours|n)$/.test(column)) {
        expect(source, column).toBe('ours');
        expect(ref, `${l[col('row')]} ${column}`).toMatch(/^(hotpotqa|fever)-/);
        expect(ref.startsWith(column.startsWith('HotpotQA') ? 'hotpotqa-' : 'fever-')).toBe(true);
      } else {
        // A paper column: never "ours", and a number always names where it was printed.
        expect(source, `${l[col('row')]} ${column}`).not.toBe('ours');
        if (value !== '') expect(ref).not.toBe('');
      }
    }
    const cell = (row: string, column: string) => lines.find((l) => l[col('row')] === row && l[col('column')] === column)!;
    expect(cell('Standard', 'HotpotQA EM PaLM-540B').slice(3)).toEqual([
      'paper',
      'HotpotQA EM PaLM-540B',
      '28.7',
      '',
      '',
      'Table 1, Yao et al., ReAct (ICLR 2023, arXiv 2210.03629)',
    ]);
    expect(cell('ReAct', 'FEVER Acc GPT-3').slice(3)).toEqual([
      'published',
      'FEVER Acc GPT-3',
      '54.0',
      '',
      '',
      'ysymyth/ReAct README.md @6bdb3a1',
    ]);
    expect(cell('ReAct', 'HotpotQA EM Ours')[col('source_ref')]).toBe('hotpotqa-react');
    // The published-elsewhere table: every number from a paper or another source, none ours.
    const published = c.sections.flatMap((s) => s.tables).find((t) => t.id === 'published-elsewhere')!;
    const sources = new Set(csvRows(published).map((l) => l[col('source')]));
    expect([...sources].sort()).toEqual(['paper', 'published']);
    // Runs: every cell is ours, naming its run.
    for (const l of csvRows(c.runsTable))
      expect([l[col('source')], l[col('source_ref')]]).toEqual([
        'ours',
        l[col('row')]!.startsWith('HotpotQA') ? expect.stringMatching(/^hotpotqa-/) : expect.stringMatching(/^fever-/),
      ]);
  });
});
