// Table 2 (error analysis, paper §3.3; docs/protocol.md §1), the parts every benchmark shares: a seeded
// sample of 50 correct and 50 incorrect trajectories per run, a CSV in which a person labels each
// sampled trajectory with one of the benchmark's categories, and the table rebuilt from those labels
// beside the published shares. What counts as correct is the benchmark's rule (src/report/correct.ts);
// the categories and the automatic tags are its Benchmark.errorAnalysis. Pure functions;
// reading/writing the CSV is the caller's.
import { csvText } from '../util/csv.js';
import type { LabelRow, ReportRow, ReportTable } from './model.js';
export type { LabelRow } from './model.js';
import type { AnalysedEpisode, AnalysisLabel } from '../runlog/schema.js';
import { UserError } from '../errors.js';
import { percent } from '../util/numbers.js';
import { mulberry32 } from '../util/mulberry32.js';

/** An episode record as the sampler reads it: error episodes are outages, never drawn. */
export interface SampledRecord extends AnalysedEpisode {
  error: unknown;
}

export interface AnalysisSample<R> {
  correct: R[];
  incorrect: R[];
  /** How many there were to draw from. */
  available: { correct: number; incorrect: number };
}

/** Fisher–Yates with mulberry32: the same seed gives the same order. */
export function seededShuffle<T>(xs: readonly T[], seed: number): T[] {
  const out = [...xs];
  const rng = mulberry32(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * The paper's sample: `perClass` correct and `perClass` incorrect trajectories (as the benchmark's
 * isCorrect says; error episodes are outages, not trajectories, and are never drawn), each in item order.
 */
export function sampleForAnalysis<R extends SampledRecord>(
  records: readonly R[],
  opts: { isCorrect: (r: R) => boolean; seed?: number; perClass?: number },
): AnalysisSample<R> {
  const per = opts.perClass ?? 50;
  const seed = opts.seed ?? 233;
  const scored = records.filter((r) => !r.error);
  const correct = scored.filter((r) => opts.isCorrect(r));
  const incorrect = scored.filter((r) => !opts.isCorrect(r));
  const pick = (xs: R[], s: number) =>
    seededShuffle(xs, s)
      .slice(0, per)
      .sort((a, b) => a.idx - b.idx);
  return {
    // Two streams from one seed, so adding incorrect episodes never changes the correct draw.
    correct: pick(correct, seed),
    incorrect: pick(incorrect, (seed ^ 0x9e3779b9) >>> 0),
    available: { correct: correct.length, incorrect: incorrect.length },
  };
}

/** The columns the labels are read from (a sheet may carry more, for reading). */
export const LABEL_COLUMNS = ['run', 'method', 'idx', 'outcome', 'label', 'auto_tags', 'note'] as const;
/** The sheet `report --label-sheet` writes: the label columns with what a person needs to judge, label and note last. */
export const SHEET_COLUMNS = [
  'run',
  'benchmark',
  'method',
  'idx',
  'outcome',
  'question',
  'gold',
  'answer',
  'auto_tags',
  'trajectory',
  'label_choices',
  'label',
  'note',
] as const;

/** The categories that fit an outcome (success_* a correct trajectory, failure_* an incorrect one), as the sheet's label_choices. */
export function labelChoices(categories: readonly AnalysisLabel[], outcome: 'correct' | 'incorrect'): string {
  return categories
    .filter((c) => outcomeOfCategory(c.key) === outcome)
    .map((c) => c.key)
    .join(' | ');
}

/**
 * The labels CSV (header + one row per sampled trajectory); auto tags joined with ";". With `sheet`,
 * the reading columns too (SHEET_COLUMNS).
 */
export function labelsToCsv(rows: readonly LabelRow[], opts: { sheet?: boolean } = {}): string {
  const cols: readonly string[] = opts.sheet ? SHEET_COLUMNS : LABEL_COLUMNS;
  const row = (r: LabelRow): string[] => {
    const fields = new Map<string, unknown>(Object.entries(r));
    return cols.map((c) => {
      if (c === 'idx') return String(r.idx);
      if (c === 'auto_tags') return r.auto_tags.join(';');
      const v = fields.get(c);
      return v === null || v === undefined ? '' : String(v);
    });
  };
  return csvText(rows.map(row), { header: cols });
}

/** RFC 4180 fields: quoted fields with "" for a quote; a quoted field may hold commas and newlines. */
/** The records with the physical line each starts on (a quoted field may span lines). */
function parseCsvLines(text: string, file: string): { fields: string[]; line: number }[] {
  const rows: { fields: string[]; line: number }[] = [];
  let row: string[] = [];
  let rowLine = 1;
  let field = '';
  let i = 0;
  let line = 1;
  let quoted = false;
  const s = text.startsWith('\ufeff') ? text.slice(1) : text;
  while (i < s.length) {
    const ch = s[i];
    if (quoted) {
      if (ch === '"') {
        if (s[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        if (i < s.length && s[i] !== ',' && s[i] !== '\n' && s[i] !== '\r')
          throw new UserError(`${file}:${line}: a quoted field must end at a comma or the line end`);
        continue;
      }
      if (ch === '\n') line++;
      field += ch;
      i++;
      continue;
    }
    if (ch === '"' && field === '') {
      quoted = true;
      i++;
    } else if (ch === ',') {
      row.push(field);
      field = '';
      i++;
    } else if (ch === '\n' || ch === '\r') {
      row.push(field);
      rows.push({ fields: row, line: rowLine });
      row = [];
      field = '';
      i += ch === '\r' && s[i + 1] === '\n' ? 2 : 1;
      line++;
      rowLine = line;
    } else {
      field += ch;
      i++;
    }
  }
  if (quoted) throw new UserError(`${file}:${line}: a quoted field is not closed`);
  if (field !== '' || row.length) {
    row.push(field);
    rows.push({ fields: row, line: rowLine });
  }
  return rows.filter((r) => !(r.fields.length === 1 && r.fields[0] === ''));
}

/** A category key: success_* for a correct trajectory, failure_* for an incorrect one. */
const CATEGORY_KEY = /^(success|failure)_[a-z0-9_]+$/;

/** The outcome a category key labels. */
export const outcomeOfCategory = (key: string): 'correct' | 'incorrect' => (key.startsWith('success_') ? 'correct' : 'incorrect');

/**
 * Reads a labels CSV written by labelsToCsv (either layout) and edited by a person; columns are found
 * by their header names, so a sheet with its reading columns reads the same. UserError names the file,
 * line and column. Whether a label is one of its benchmark's categories is checked where the runs are
 * known (checkLabels); here only its form and its fit to the outcome.
 */
export function parseLabelsCsv(text: string, file: string, opts: { categories?: readonly AnalysisLabel[] } = {}): LabelRow[] {
  // With the known categories, a message about a label lists the ones that fit the row.
  const fitting = (outcome: 'correct' | 'incorrect') =>
    [...new Set((opts.categories ?? []).map((c) => c.key))].filter((k) => outcomeOfCategory(k) === outcome);
  const a = (outcome: string) => (outcome === 'correct' ? 'a correct' : 'an incorrect');
  const records = parseCsvLines(text, file);
  const header = (records[0]?.fields ?? []).map((h) => h.trim());
  const missing = LABEL_COLUMNS.filter((c) => !header.includes(c));
  if (records.length === 0 || missing.length)
    throw new UserError(`${file}:1: expected the header ${LABEL_COLUMNS.join(',')} (columns in any order; missing: ${missing.join(', ')})`);
  const at = (c: (typeof LABEL_COLUMNS)[number]) => header.indexOf(c);
  // Line numbers are the physical lines a record starts on (a quoted trajectory spans several), as an editor shows them.
  return records.slice(1).map(({ fields: f, line }) => {
    if (f.length !== header.length) throw new UserError(`${file}:${line}: expected ${header.length} fields, got ${f.length}`);
    const [run, method, idxText, outcome, label, tags, note] = [
      f[at('run')],
      f[at('method')],
      f[at('idx')],
      f[at('outcome')],
      f[at('label')],
      f[at('auto_tags')],
      f[at('note')],
    ];
    if (!/^\d+$/.test(idxText))
      throw new UserError(`${file}:${line}: idx: expected a non-negative integer, got ${JSON.stringify(idxText)}`);
    if (outcome !== 'correct' && outcome !== 'incorrect')
      throw new UserError(`${file}:${line}: outcome: expected correct or incorrect, got ${JSON.stringify(outcome)}`);
    const l = label.trim();
    const fit = fitting(outcome);
    if (l !== '' && !CATEGORY_KEY.test(l)) {
      const expected = fit.length
        ? `one of ${fit.join(', ')} (the categories of ${a(outcome)} trajectory)`
        : 'a category (success_… for a correct trajectory, failure_… for an incorrect one)';
      throw new UserError(`${file}:${line}: label: expected ${expected} or empty, got ${JSON.stringify(l)}`);
    }
    if (l !== '' && outcomeOfCategory(l) !== outcome) {
      throw new UserError(
        `${file}:${line}: label: ${l} does not fit ${a(outcome)} trajectory${fit.length ? ` (expected one of ${fit.join(', ')}, or empty)` : ''}`,
      );
    }
    return {
      run,
      method,
      idx: Number(idxText),
      outcome,
      label: l,
      auto_tags: tags === '' ? [] : tags.split(';'),
      note,
      at: `${file}:${line}`,
    };
  });
}

/** UserError for the first label that is not one of its benchmark's categories (naming the file and line where known). */
export function checkLabels(rows: readonly LabelRow[], categories: readonly AnalysisLabel[], title: string): void {
  const keys = categories.map((c) => c.key);
  for (const r of rows) {
    if (r.label !== '' && !keys.includes(r.label)) {
      throw new UserError(
        `${r.at ?? `run ${r.run}, idx ${r.idx}`}: label: expected one of ${keys.join(', ')} (${title}) or empty, got ${JSON.stringify(r.label)}`,
      );
    }
  }
}

/**
 * Table 2 from labels: per method, each category's share of its labelled correct (success_*) or
 * incorrect (failure_*) trajectories, beside the published figure where `paper` gives one (no paper
 * columns when `paper` is null). Unlabelled rows are not counted; the notes say how many were labelled.
 */
export function table2FromLabels(
  rows: readonly LabelRow[],
  categories: readonly AnalysisLabel[],
  paper: ((method: string, category: string) => number | null) | null,
  methods?: string[],
): ReportTable {
  const ms = methods ?? [...new Set(rows.map((r) => r.method))];
  const columns = ms.flatMap((m) => [
    { key: `${m}_ours`, label: 'Ours', group: m, numeric: true },
    { key: `${m}_n`, label: 'n', group: m },
    ...(paper ? [{ key: `${m}_paper`, label: 'Paper', group: m, numeric: true }] : []),
  ]);
  const notes: string[] = [];
  const tableRows: ReportRow[] = categories.map((cat) => {
    const cells: ReportRow['cells'] = {};
    const side = outcomeOfCategory(cat.key);
    for (const m of ms) {
      const pool = rows.filter((r) => r.method === m && r.label !== '' && outcomeOfCategory(r.label) === side);
      const k = pool.filter((r) => r.label === cat.key).length;
      cells[`${m}_ours`] = percent(k, pool.length);
      cells[`${m}_n`] = `${k}/${pool.length}`;
      if (paper) cells[`${m}_paper`] = paper(m, cat.key);
    }
    return { label: cat.label, cells, source: 'ours' };
  });
  for (const m of ms) {
    const mine = rows.filter((r) => r.method === m);
    const done = mine.filter((r) => r.label !== '');
    notes.push(
      `${m}: ${done.length} of ${mine.length} sampled trajectories labelled (${mine.filter((r) => r.outcome === 'correct').length} correct, ${mine.filter((r) => r.outcome === 'incorrect').length} incorrect).`,
    );
  }
  notes.push('Shares are of the labelled correct (success) or incorrect (failure) trajectories.');
  return { id: 'table2', title: 'Error analysis (Table 2)', columns, rows: tableRows, notes };
}
