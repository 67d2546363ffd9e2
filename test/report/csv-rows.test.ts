// The report's CSV names each cell by (table, row, column): where a table has a row per method and
// model, the row says its model, so a pivot finds one cell, also an empty one (README "Reports").
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { benchmarkNames, getBenchmark } from '../../src/benchmarks/registry.js';
import { buildReport } from '../../src/report/build.js';
import { loadRuns } from '../../src/report/load.js';
import { figureTable } from '../../src/report/display.js';
import { CSV_COLUMNS, csvRows, renderCsv } from '../../src/report/render-csv.js';
import type { ReportTable } from '../../src/report/model.js';
import { qaRecords, writeRun } from './run-folders.js';
import { writeShippedResults } from './shipped-results.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'report-csv-rows-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);
/** (table, row, column) of every cell that another cell shares it with. */
const repeatedKeys = (tables: ReportTable[]) => {
  const keys = tables.flatMap((t) => csvRows(t).map((cells) => [cells[0], cells[2], cells[4]].join(' | ')));
  return [...new Set(keys.filter((k, i) => keys.indexOf(k) !== i))];
};

describe('report CSV', () => {
  it('two models: Table 1 rows carry their model, so no (table, row, column) repeats', () => {
    const dir = path.join(tmp, 'two-models');
    const idx = range(0, 10);
    writeRun(dir, { runId: 'a-act', method: 'act', model: 'model-a', indices: idx, records: qaRecords(idx, 'rrrrrwwwww') });
    writeRun(dir, { runId: 'a-cot', method: 'cot', model: 'model-a', indices: idx, records: qaRecords(idx, 'rrrwwwwwww') });
    writeRun(dir, { runId: 'b-cot', method: 'cot', model: 'model-b', indices: idx, records: qaRecords(idx, 'rrwwwwwwww') });
    const c = buildReport(loadRuns([dir], { warn: () => {} }), benchmarkNames().map(getBenchmark));
    const table1 = csvRows(c.tables.find((t) => t.id === 'table1')!).map(
      (cells) => Object.fromEntries(CSV_COLUMNS.map((k, i) => [k, cells[i]])) as Record<(typeof CSV_COLUMNS)[number], string>,
    );
    const keys = table1.map((r) => `${r.row}\u0000${r.column}`);
    expect(new Set(keys).size).toBe(keys.length);
    const ours = (row: string) => table1.find((r) => r.row === row && r.column.startsWith('HotpotQA') && r.column.endsWith(' Ours'))!;
    expect(ours('CoT (model-a)')).toMatchObject({ value: '30.0', source_ref: 'a-cot' });
    expect(ours('CoT (model-b)')).toMatchObject({ value: '20.0', source_ref: 'b-cot' });
    // A method run with one model keeps its plain label.
    expect(ours('Act')).toMatchObject({ value: '50.0', source_ref: 'a-act' });
  });

  it('the Runs table: one method and model on two splits are told apart by their run ids', () => {
    const dir = path.join(tmp, 'two-splits');
    const idx = range(0, 10);
    writeRun(dir, { runId: 'cot-offline', method: 'cot', indices: idx, records: qaRecords(idx, 'rrrrrwwwww') });
    writeRun(dir, { runId: 'cot-dev', method: 'cot', split: 'dev', indices: idx, records: qaRecords(idx, 'rrwwwwwwww') });
    const c = buildReport(loadRuns([dir], { warn: () => {} }), benchmarkNames().map(getBenchmark));
    const names = [...new Set(csvRows(c.runsTable).map((cells) => cells[2]))];
    expect(names.sort()).toEqual(['HotpotQA CoT (cot-dev)', 'HotpotQA CoT (cot-offline)']);
  });

  it('every table of a report of HotpotQA and FEVER runs: no (table, row, column) names two cells', () => {
    // Table 2's automatic tags have an "n" after Incorrect and after Correct in each run's group, and
    // "Published elsewhere" one source's number for HotpotQA and for FEVER with the same method and model.
    const dir = path.join(tmp, 'every-table');
    const idx = range(0, 10);
    for (const task of ['hotpotqa', 'fever'])
      for (const method of ['cot', 'react'])
        writeRun(dir, { runId: `${task}-${method}`, task, method, indices: idx, records: qaRecords(idx, 'rrrrrwwwww') });
    const c = buildReport(loadRuns([dir], { warn: () => {} }), benchmarkNames().map(getBenchmark));
    const lines = renderCsv(c).trimEnd().split('\n').slice(1);
    expect(lines.some((l) => l.startsWith('table2-auto-'))).toBe(true);
    expect(lines.some((l) => l.startsWith('published-elsewhere,'))).toBe(true);
    const tables = [...c.tables, ...c.sections.flatMap((s) => s.tables), c.runsTable];
    const keys = tables.flatMap((t) => csvRows(t).map((cells) => [cells[0], cells[2], cells[4]].join('\u0000')));
    const repeated = keys.filter((k, i) => keys.indexOf(k) !== i).map((k) => k.replaceAll('\u0000', ' | '));
    expect(repeated).toEqual([]);
    // A repeated heading is named for the column it counts; the rows told apart by what differs.
    const cells = tables.flatMap((t) => csvRows(t));
    expect(cells.find((r) => r[0] === 'table2-auto-hotpotqa' && r[4] === 'CoT Correct n')).toBeDefined();
    expect(cells.find((r) => r[0] === 'published-elsewhere' && r[2].endsWith(', FEVER)'))).toBeDefined();
  });

  it('a report of runs of all four benchmarks: every (table, row, column) is one cell, the model kept', () => {
    // "Published elsewhere" then holds one source's numbers for two models, two metrics and several
    // benchmarks, so rows are told apart by more than one cell.
    const c = buildReport(
      loadRuns([writeShippedResults(path.join(tmp, 'shipped'))], { warn: () => {} }),
      benchmarkNames().map(getBenchmark),
    );
    expect(new Set(c.runs.map((r) => r.manifest.task))).toEqual(new Set(['hotpotqa', 'fever', 'alfworld', 'webshop']));
    const tables = [...c.tables, ...c.figures.map(figureTable), ...c.sections.flatMap((s) => s.tables), c.runsTable];
    expect(repeatedKeys(tables)).toEqual([]);
    const published = new Set(csvRows(tables.find((t) => t.id === 'published-elsewhere')!).map((cells) => cells[2]));
    expect(published).toContain('ReAct (text-davinci-002, ysymyth/ReAct README.md @6bdb3a1, HotpotQA)');
    expect(published).toContain('ReAct (PaLM-540B, ysymyth/ReAct README.md @6bdb3a1, HotpotQA)');
    expect(published).toContain('Act (gpt-3.5-turbo, Score)');
    expect(published).toContain('Act (gpt-3.5-turbo, SR)');
  });

  it('three rows alike but for different cells, and rows alike in every cell: each named apart', () => {
    const row = (label: string, cells: Record<string, string>) => ({ label, source: 'published' as const, ref: 'src', cells });
    const t: ReportTable = {
      id: 't',
      title: 'T',
      columns: [
        { key: 'model', label: 'Model' },
        { key: 'metric', label: 'Metric' },
        { key: 'bench', label: 'Benchmark', identifies: true },
      ],
      rows: [
        row('A', { model: 'm', metric: 'score', bench: 'X' }),
        row('A', { model: 'm', metric: 'success', bench: 'X' }),
        row('A', { model: 'm', metric: 'score', bench: 'Y' }),
        row('A', { model: 'n', metric: 'score', bench: 'Y' }),
        row('A', { model: 'n', metric: 'score', bench: 'Y' }),
        row('B', { model: 'm', metric: 'score', bench: 'X' }),
      ],
      notes: [],
    };
    expect(repeatedKeys([t])).toEqual([]);
    expect([...new Set(csvRows(t).map((cells) => cells[2]))]).toEqual([
      'A (m, X, score)',
      'A (m, X, success)',
      'A (m, Y)',
      'A (n, #1)',
      'A (n, #2)',
      'B',
    ]);
  });
});
