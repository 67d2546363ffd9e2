// Table 2 (error analysis, paper §3.3; docs/protocol.md §1): a seeded sample of 50 correct and 50 incorrect
// trajectories per method, automatic tags where the trajectory itself shows the cause, a CSV in which
// a person labels each sampled trajectory with one of the paper's categories, and the table rebuilt
// from those labels beside the paper's numbers. Pure functions; reading/writing the CSV is the caller's.
import { stringify } from 'csv-stringify/sync';
import type { ReportRow, ReportTable } from './model.js';
import type { StepRecord } from '../methods/types.js';
import { UserError } from '../errors.js';
import { percent } from './numbers.js';
import { mulberry32 } from './stats.js';

/** Tags the trajectory shows by itself (issue 10). */
export type AutoTag = 'search-not-found' | 'repeated-action' | 'step-limit' | 'label-ambiguity';

/** The paper's Table 2 categories; success_* label correct trajectories, failure_* incorrect ones. */
export const SUCCESS_CATEGORIES = ['success_true_positive', 'success_false_positive'] as const;
export const FAILURE_CATEGORIES = [
  'failure_reasoning_error', 'failure_search_result_error', 'failure_hallucination', 'failure_label_ambiguity',
] as const;
export type Category = (typeof SUCCESS_CATEGORIES)[number] | (typeof FAILURE_CATEGORIES)[number];
export const CATEGORY_LABELS: Record<Category, string> = {
  success_true_positive: 'Success: true positive',
  success_false_positive: 'Success: false positive (hallucinated reasoning or facts)',
  failure_reasoning_error: 'Failure: reasoning error (incl. repetitive steps)',
  failure_search_result_error: 'Failure: search result error',
  failure_hallucination: 'Failure: hallucination',
  failure_label_ambiguity: 'Failure: label ambiguity',
};

/** What the tags read from an episode record (EpisodeRecord has it). */
export interface TaggableRecord {
  idx: number;
  metrics: Record<string, number>;
  steps: Pick<StepRecord, 'action' | 'observation'>[];
  error: unknown;
  /** Set by the QA loops when the step limit ran out and finish[] was forced (docs/protocol.md §4 step 5). */
  forced_finish?: unknown;
  [extra: string]: unknown;
}

const normAction = (a: string) => a.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * Automatic tags:
 * - search-not-found: the episode searched, and every search observed "Could not find …" (wikienv's
 *   reply when no page matches, docs/protocol.md §6): search found nothing useful.
 * - repeated-action: the same action twice in a row, or three times in all (the "repetitive steps"
 *   the paper counts as reasoning errors).
 * - step-limit: no answer within the step limit (the loop forced finish[]).
 * - label-ambiguity: partly right: F1 > 0 with EM 0 (QA benchmarks).
 */
export function autoTags(r: TaggableRecord): AutoTag[] {
  const tags: AutoTag[] = [];
  const steps = r.steps ?? [];
  const searches = steps.filter((s) => /^search\[/i.test(s.action.trim()));
  if (searches.length > 0 && searches.every((s) => s.observation.trim().startsWith('Could not find'))) tags.push('search-not-found');
  const actions = steps.map((s) => normAction(s.action)).filter((a) => a !== '');
  const counts = new Map<string, number>();
  let repeated = false;
  actions.forEach((a, i) => {
    counts.set(a, (counts.get(a) ?? 0) + 1);
    if ((i > 0 && actions[i - 1] === a) || counts.get(a)! >= 3) repeated = true;
  });
  if (repeated) tags.push('repeated-action');
  if (r.forced_finish === true) tags.push('step-limit');
  const em = r.metrics?.em;
  const f1 = r.metrics?.f1;
  if (typeof em === 'number' && typeof f1 === 'number' && em === 0 && f1 > 0) tags.push('label-ambiguity');
  return tags;
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
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * The paper's sample: `perClass` correct and `perClass` incorrect trajectories (primary metric > 0 or
 * = 0; error episodes are outages, not trajectories, and are never drawn), each in item order.
 */
export function sampleForAnalysis<R extends TaggableRecord>(records: readonly R[], opts: { primary: string; seed?: number; perClass?: number }): AnalysisSample<R> {
  const per = opts.perClass ?? 50;
  const seed = opts.seed ?? 233;
  const scored = records.filter((r) => !r.error);
  const correct = scored.filter((r) => (r.metrics[opts.primary] ?? 0) > 0);
  const incorrect = scored.filter((r) => !((r.metrics[opts.primary] ?? 0) > 0));
  const pick = (xs: R[], s: number) => seededShuffle(xs, s).slice(0, per).sort((a, b) => a.idx - b.idx);
  return {
    // Two streams from one seed, so adding incorrect episodes never changes the correct draw.
    correct: pick(correct, seed),
    incorrect: pick(incorrect, (seed ^ 0x9e3779b9) >>> 0),
    available: { correct: correct.length, incorrect: incorrect.length },
  };
}

/** One labelled trajectory (a line of the labels CSV). */
export interface LabelRow {
  run: string;
  method: string;
  idx: number;
  outcome: 'correct' | 'incorrect';
  /** One of the paper's categories; '' = not labelled yet. */
  label: Category | '';
  auto_tags: string[];
  note: string;
  /** What a person reads to label it (written to the sheet, ignored when the labels are read back). */
  benchmark?: string;
  question?: string;
  gold?: string;
  answer?: string;
  /** The episode after the few-shot prompt: the question and every Thought/Action/Observation. */
  trajectory?: string;
}

/** The columns the labels are read from (a sheet may carry more, for reading). */
export const LABEL_COLUMNS = ['run', 'method', 'idx', 'outcome', 'label', 'auto_tags', 'note'] as const;
/** The sheet `report --label-sheet` writes: the label columns with what a person needs to judge, label and note last. */
export const SHEET_COLUMNS = ['run', 'benchmark', 'method', 'idx', 'outcome', 'question', 'gold', 'answer', 'auto_tags', 'trajectory', 'label', 'note'] as const;

/**
 * The labels CSV (header + one row per sampled trajectory); auto tags joined with ";". With `sheet`,
 * the reading columns too (SHEET_COLUMNS).
 */
export function labelsToCsv(rows: readonly LabelRow[], opts: { sheet?: boolean } = {}): string {
  const cols: readonly string[] = opts.sheet ? SHEET_COLUMNS : LABEL_COLUMNS;
  const value = (r: LabelRow, c: string): string => {
    if (c === 'idx') return String(r.idx);
    if (c === 'auto_tags') return r.auto_tags.join(';');
    const v = (r as unknown as Record<string, unknown>)[c];
    return v === null || v === undefined ? '' : String(v);
  };
  return stringify([[...cols], ...rows.map((r) => cols.map((c) => value(r, c)))], { record_delimiter: '\n' });
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
    const ch = s[i]!;
    if (quoted) {
      if (ch === '"') {
        if (s[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        if (i < s.length && s[i] !== ',' && s[i] !== '\n' && s[i] !== '\r') throw new UserError(`${file}:${line}: a quoted field must end at a comma or the line end`);
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

const ALL_CATEGORIES = new Set<string>([...SUCCESS_CATEGORIES, ...FAILURE_CATEGORIES]);

/**
 * Reads a labels CSV written by labelsToCsv (either layout) and edited by a person; columns are found
 * by their header names, so a sheet with its reading columns reads the same. UserError names the file,
 * line and column.
 */
export function parseLabelsCsv(text: string, file: string): LabelRow[] {
  const records = parseCsvLines(text, file);
  const header = (records[0]?.fields ?? []).map((h) => h.trim());
  const missing = LABEL_COLUMNS.filter((c) => !header.includes(c));
  if (records.length === 0 || missing.length) throw new UserError(`${file}:1: expected the header ${LABEL_COLUMNS.join(',')} (columns in any order; missing: ${missing.join(', ')})`);
  const at = Object.fromEntries(LABEL_COLUMNS.map((c) => [c, header.indexOf(c)])) as Record<(typeof LABEL_COLUMNS)[number], number>;
  // Line numbers are the physical lines a record starts on (a quoted trajectory spans several), as an editor shows them.
  return records.slice(1).map(({ fields: f, line }) => {
    if (f.length !== header.length) throw new UserError(`${file}:${line}: expected ${header.length} fields, got ${f.length}`);
    const [run, method, idxText, outcome, label, tags, note] = LABEL_COLUMNS.map((c) => f[at[c]]!) as [string, string, string, string, string, string, string];
    if (!/^\d+$/.test(idxText)) throw new UserError(`${file}:${line}: idx: expected a non-negative integer, got ${JSON.stringify(idxText)}`);
    if (outcome !== 'correct' && outcome !== 'incorrect') throw new UserError(`${file}:${line}: outcome: expected correct or incorrect, got ${JSON.stringify(outcome)}`);
    const l = label.trim();
    if (l !== '' && !ALL_CATEGORIES.has(l)) throw new UserError(`${file}:${line}: label: expected one of ${[...ALL_CATEGORIES].join(', ')} or empty, got ${JSON.stringify(l)}`);
    if (l !== '' && (outcome === 'correct') !== l.startsWith('success_')) throw new UserError(`${file}:${line}: label: ${l} does not fit a${outcome === 'correct' ? ' correct' : 'n incorrect'} trajectory`);
    return { run, method, idx: Number(idxText), outcome, label: l as Category | '', auto_tags: tags === '' ? [] : tags.split(';'), note };
  });
}

/**
 * Table 2 from labels: per method, each category's share of its labelled correct (success_*) or
 * incorrect (failure_*) trajectories, beside the paper's figure where given. Unlabelled rows are not
 * counted; the notes say how many were labelled.
 */
export function table2FromLabels(rows: readonly LabelRow[], paper: (method: string, category: Category) => number | null, methods?: string[]): ReportTable {
  const ms = methods ?? [...new Set(rows.map((r) => r.method))];
  const columns = ms.flatMap((m) => [
    { key: `${m}_ours`, label: 'Ours', group: m, numeric: true },
    { key: `${m}_n`, label: 'n', group: m },
    { key: `${m}_paper`, label: 'Paper', group: m, numeric: true },
  ]);
  const notes: string[] = [];
  const tableRows: ReportRow[] = [...SUCCESS_CATEGORIES, ...FAILURE_CATEGORIES].map((cat) => {
    const cells: ReportRow['cells'] = {};
    for (const m of ms) {
      const pool = rows.filter((r) => r.method === m && r.label !== '' && r.label.startsWith(cat.startsWith('success_') ? 'success_' : 'failure_'));
      const k = pool.filter((r) => r.label === cat).length;
      cells[`${m}_ours`] = percent(k, pool.length);
      cells[`${m}_n`] = `${k}/${pool.length}`;
      cells[`${m}_paper`] = paper(m, cat);
    }
    return { label: CATEGORY_LABELS[cat], cells, source: 'ours' };
  });
  for (const m of ms) {
    const mine = rows.filter((r) => r.method === m);
    const done = mine.filter((r) => r.label !== '');
    notes.push(`${m}: ${done.length} of ${mine.length} sampled trajectories labelled (${mine.filter((r) => r.outcome === 'correct').length} correct, ${mine.filter((r) => r.outcome === 'incorrect').length} incorrect).`);
  }
  notes.push('Shares are of the labelled correct (success) or incorrect (failure) trajectories. Paper: Table 2 (PaLM-540B, HotpotQA).');
  return { id: 'table2', title: 'Error analysis (Table 2)', columns, rows: tableRows, notes };
}
