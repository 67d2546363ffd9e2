// Table 3 (ALFWorld success % per task type) from our runs, beside the paper's class-A rows (the
// anchors file: §1's numbers with their source), and a table of every run by prompt set. Rates are the
// exact quotient of counts (rounded once, when shown); the All column carries a 95% bootstrap
// interval over games. ReAct-IM and BUTLER (a trained agent) are shown as the paper's rows only.
//
// "Best of 6", as the paper's figures add up: each column is the best of the six prompt sets for that
// column on its own, and All is the best single prompt set's overall rate. (Were the row one prompt
// set, ReAct's 92/58/96/86/78/41 over 24/31/23/21/18/17 games would make 101/134 = 75% overall, yet
// its All is 71; Act's row would make 63% against an All of 45.) "Avg" is the mean over prompt sets
// of each column.
import type { Cell, Interval, ReportColumn, ReportRow, ReportTable, RunView } from '../../report/model.js';
import { reportAnchors, anchorCitation, anchorProvenance, type Anchor } from '../../report/anchors.js';
import { bootstrapStatisticCI, seedFromText } from '../../report/stats.js';
import { taskTypeOf, TASK_TYPES, type TaskType } from './games.js';
import { formatPromptSet, NOTEBOOK_PROMPT_SET, parsePromptSet, PROMPT_SETS } from './prompt.js';
import type { EpisodeRecord } from '../../runlog/schema.js';
import { JsonFields } from '../../util/json-fields.js';

export const BENCHMARK = 'alfworld';

type Col = TaskType | 'all';
export const COLUMNS: readonly (readonly [Col, string])[] = [
  ['put', 'Pick'],
  ['clean', 'Clean'],
  ['heat', 'Heat'],
  ['cool', 'Cool'],
  ['examine', 'Look'],
  ['puttwo', 'Pick 2'],
  ['all', 'All'],
];

/** Games per task type among the paper's 134 (valid_unseen). */
export const PAPER_COUNTS: Record<TaskType, number> = { put: 24, clean: 31, heat: 23, cool: 21, examine: 18, puttwo: 17 };

/**
 * The paper's Table 3 rows shown beside ours (PaLM-540B prompting, class A in the anchors file, which
 * holds the numbers and their source): which method and aggregate, and whether we have rows of our own
 * for it (ReAct-IM is the paper's only).
 */
export const PAPER_TABLE3: readonly {
  label: string;
  method: string;
  stat: 'best-of-6' | 'avg-of-6' | 'best-of-8';
  ours: 'best' | 'avg' | null;
  model?: string;
  sets?: string;
}[] = [
  { label: 'Act (best of 6)', method: 'act', stat: 'best-of-6', ours: 'best' },
  { label: 'ReAct (avg)', method: 'react', stat: 'avg-of-6', ours: 'avg' },
  { label: 'ReAct (best of 6)', method: 'react', stat: 'best-of-6', ours: 'best' },
  { label: 'ReAct-IM (avg)', method: 'react-im', stat: 'avg-of-6', ours: null },
  { label: 'ReAct-IM (best of 6)', method: 'react-im', stat: 'best-of-6', ours: null },
  // A trained agent the paper prints in its own table on the same 134 games: its row only.
  { label: 'BUTLER (best of 8)', method: 'butler', stat: 'best-of-8', ours: null, model: 'BUTLER (trained)', sets: '8 (trained agents)' },
];

/** The paper's figure for one cell (a task type, or undefined = All), from the anchors file. */
function paperValue(method: string, stat: string, col: Col, used: Anchor[], model = 'PaLM-540B'): number | null {
  const a = reportAnchors().pick({ benchmark: BENCHMARK, method, metric: 'success', subset: col === 'all' ? undefined : col, model, stat });
  if (a && !used.includes(a)) used.push(a);
  return a?.value ?? null;
}

/** Success rates of one run: per column, percent over the scored games of that type. */
export interface RunRates {
  run: RunView;
  method: string;
  model: string;
  promptSet: string;
  rates: Record<Col, number | null>;
  scored: Record<Col, number>;
  planned: number;
  errors: number;
}

/** The run's prompt set as recorded in its settings ('1,0' when absent: the default). */
export function runPromptSet(run: RunView): string {
  const v = JsonFields.orEmpty(run.manifest.settings).get('promptSet');
  try {
    return formatPromptSet(parsePromptSet(v));
  } catch {
    return String(v);
  }
}

const isTaskType = (t: unknown): t is TaskType => TASK_TYPES.some((x) => x === t);

function recordType(r: EpisodeRecord): TaskType | undefined {
  const t = r.task_type;
  return isTaskType(t) ? t : taskTypeOf(r.item);
}

/** A value per column, in COLUMNS order. */
function perColumn<T>(f: (c: Col) => T): Record<Col, T> {
  return { put: f('put'), clean: f('clean'), heat: f('heat'), cool: f('cool'), examine: f('examine'), puttwo: f('puttwo'), all: f('all') };
}

export function runRates(run: RunView): RunRates {
  const wins = perColumn(() => 0);
  const scored = perColumn(() => 0);
  // Rates are over the games the table compares (a report hands in the run restricted to the games
  // scored in every run of its set); planned games and error episodes are the run's own, as stored.
  const whole = run.full ?? run;
  const errors = whole.records.filter((r) => r.error).length;
  for (const r of run.records) {
    if (r.error) continue;
    const t = recordType(r);
    const s = r.metrics?.success ?? 0;
    for (const c of t ? [t, 'all' as const] : ['all' as const]) {
      scored[c]++;
      wins[c] += s;
    }
  }
  const rates = perColumn((c) => (scored[c] ? (100 * wins[c]) / scored[c] : null));
  return {
    run,
    method: run.manifest.method,
    model: run.manifest.model,
    promptSet: runPromptSet(run),
    rates,
    scored,
    planned: whole.manifest.indices?.length ?? whole.records.length,
    errors,
  };
}

function bestOf(xs: (number | null)[]): number | null {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? Math.max(...v) : null;
}

function meanOf(xs: (number | null)[]): number | null {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
}

const METHOD_LABEL: Record<string, string> = { act: 'Act', react: 'ReAct' };

interface Group {
  method: string;
  model: string;
  /** One run per prompt set (the most complete when a prompt set was run more than once). */
  bySet: Map<string, RunRates>;
  duplicates: number;
}

function setOrder(s: string): number {
  const i = PROMPT_SETS.findIndex((p) => formatPromptSet(p) === s);
  return i < 0 ? PROMPT_SETS.length : i;
}

function groupRuns(rates: RunRates[]): Group[] {
  const groups = new Map<string, Group>();
  for (const r of rates) {
    const key = `${r.method}\u0000${r.model}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { method: r.method, model: r.model, bySet: new Map(), duplicates: 0 }));
    const prev = g.bySet.get(r.promptSet);
    if (prev) {
      g.duplicates++;
      const better = r.scored.all > prev.scored.all || (r.scored.all === prev.scored.all && r.run.manifest.runId > prev.run.manifest.runId);
      if (!better) continue;
    }
    g.bySet.set(r.promptSet, r);
  }
  const order = (m: string) => (m === 'act' ? 0 : m === 'react' ? 1 : 2);
  return [...groups.values()].sort((a, b) => order(a.method) - order(b.method) || a.model.localeCompare(b.model));
}

function statLabel(method: string, stat: 'best' | 'avg', sets: string[]): string {
  const m = METHOD_LABEL[method] ?? method;
  if (sets.length === 1) return `${m} (prompt set ${sets[0]})`;
  return stat === 'best' ? `${m} (best of ${sets.length})` : sets.length === 6 ? `${m} (avg)` : `${m} (avg of ${sets.length})`;
}

/** Success per game (1/0) of a run, by game index; error games absent. */
function wins(r: RunRates): Map<number, number> {
  return new Map(r.run.records.filter((x) => !x.error).map((x) => [x.idx, x.metrics?.success ?? 0]));
}

/**
 * The All column's 95% interval for a row over prompt sets: games scored in every set are resampled
 * together, and the row's statistic (best set's rate, or the mean of the sets' rates) recomputed.
 */
function allInterval(rs: RunRates[], stat: 'best' | 'avg'): Interval {
  const maps = rs.map(wins);
  const games = [...maps[0].keys()].filter((g) => maps.every((m) => m.has(g)));
  if (games.length === 0) return { lo: null, hi: null };
  const table = maps.map((m) => games.map((g) => m.get(g)!));
  const seed = seedFromText(`table3:${stat}:${rs.map((r) => r.run.manifest.runId).join('|')}`);
  return bootstrapStatisticCI(
    games.length,
    (pos) => {
      const rates = table.map((w) => {
        let s = 0;
        for (const p of pos) s += w[p];
        return (100 * s) / pos.length;
      });
      return stat === 'best' ? Math.max(...rates) : rates.reduce((a, b) => a + b, 0) / rates.length;
    },
    { seed },
  );
}

function cellsOf(values: (number | null)[], extra: Record<string, Cell>): Record<string, Cell> {
  const cells: Record<string, Cell> = { ...extra };
  COLUMNS.forEach(([c], i) => (cells[c] = values[i] ?? null));
  return cells;
}

function columns(withSets: boolean): ReportColumn[] {
  return [
    { key: 'model', label: 'Model', identifies: true },
    ...(withSets ? [{ key: 'sets', label: 'Prompt sets' }] : []),
    ...COLUMNS.map(([key, label]) => ({ key, label, numeric: true })),
    { key: 'n', label: 'n' },
    { key: 'errors', label: 'errors' },
  ];
}

/** Table 3: our Act (best of k), ReAct (avg) and ReAct (best of k) per model, beside the paper's rows. */
export function buildTable3(runs: RunView[]): ReportTable {
  const rates = runs.filter((r) => r.manifest.task === BENCHMARK).map(runRates);
  const groups = groupRuns(rates);
  const ours = (method: string, stat: 'best' | 'avg'): ReportRow[] =>
    groups
      .filter((g) => g.method === method && (stat === 'best' || g.bySet.size > 1))
      .map((g) => {
        const sets = [...g.bySet.keys()].sort((a, b) => setOrder(a) - setOrder(b));
        const rs = sets.map((s) => g.bySet.get(s)!);
        const f = stat === 'best' ? bestOf : meanOf;
        const values = COLUMNS.map(([c]) => f(rs.map((r) => r.rates[c])));
        const scored = rs.reduce((a, r) => a + r.scored.all, 0);
        const planned = rs.reduce((a, r) => a + r.planned, 0);
        const errors = rs.reduce((a, r) => a + r.errors, 0);
        return {
          label: statLabel(method, stat, sets),
          source: 'ours' as const,
          ref: rs.map((r) => r.run.manifest.runId).join(' '),
          cells: cellsOf(values, { model: g.model, sets: sets.join(' '), n: `${scored}/${planned}`, errors }),
          ci: { all: allInterval(rs, stat) },
        };
      });
  const used: Anchor[] = [];
  const paperRow = (p: (typeof PAPER_TABLE3)[number]): ReportRow => {
    const before = used.length;
    const cells = cellsOf(
      COLUMNS.map(([c]) => paperValue(p.method, p.stat, c, used, p.model)),
      { model: p.model ?? 'PaLM-540B', sets: p.sets ?? '6', n: '134', errors: null },
    );
    const mine = used.slice(before);
    const prov = mine.length ? anchorProvenance(mine[0]) : { source: 'paper' as const };
    return { label: p.label, ...prov, ref: [...new Set(mine.map(anchorCitation))].join('; ') || undefined, cells };
  };
  const rows: ReportRow[] = [];
  for (const p of PAPER_TABLE3) {
    if (p.ours) rows.push(...ours(p.method, p.ours));
    rows.push(paperRow(p));
  }

  const notes = [
    `Success % over the scored games of each type; split ${[...new Set(rates.map((r) => r.run.manifest.split))].join(', ') || 'valid_unseen'} (the paper's: valid_unseen, 134 games: Pick ${PAPER_COUNTS.put}, Clean ${PAPER_COUNTS.clean}, Heat ${PAPER_COUNTS.heat}, Cool ${PAPER_COUNTS.cool}, Look ${PAPER_COUNTS.examine}, Pick 2 ${PAPER_COUNTS.puttwo}). n = scored/planned episodes summed over a row's runs; episodes with an infrastructure error are counted apart, not as failures.`,
    "Best of k: each column is the best of the k prompt sets for that column, and All the best prompt set overall; this is how the paper's rows add up (ReAct's best-of-6 per-type figures would give 75% overall if they came from one prompt set, yet its All is 71). Avg: the mean over prompt sets of each column.",
    `A prompt set i,j is exemplars react_<type>_i then react_<type>_j (act_* for Act); the paper's six are every ordered pair of the three. The notebook runs ${formatPromptSet(NOTEBOOK_PROMPT_SET)}: GPT-3 (text-davinci-002) ReAct with it scored 78.4 overall (Table 5).`,
    `Paper rows (class A): PaLM-540B, ${[...new Set(used.map(anchorCitation))].join('; ')}; ReAct-IM and BUTLER (Shridhar et al. 2020b, a trained agent, best of 8 on the same 134 games) are the paper's rows only.`,
    'The All column has a 95% bootstrap interval over games (10,000 resamples, seeded; games scored in every prompt set of the row, resampled together).',
  ];
  for (const g of groups) {
    const sets = [...g.bySet.values()];
    const label = `${METHOD_LABEL[g.method] ?? g.method}, ${g.model}`;
    if (sets.length < 6)
      notes.push(
        `${label}: ${sets.length} of the 6 prompt sets run (${[...g.bySet.keys()].sort((a, b) => setOrder(a) - setOrder(b)).join(' ')}).`,
      );
    const partial = sets.filter((r) => r.scored.all < 134);
    if (partial.length) {
      notes.push(
        `${label}: fewer than the 134 games scored in prompt set ${partial.map((r) => `${r.promptSet} (${r.scored.all})`).join(', ')}: rates are over the scored games only.`,
      );
    }
    if (g.duplicates) notes.push(`${label}: a prompt set was run more than once; the run with the most scored games is used.`);
    const errs = sets.filter((r) => r.errors > 0);
    if (errs.length)
      notes.push(
        `${label}: ${errs.map((r) => `prompt set ${r.promptSet} has ${r.errors} error episode${r.errors === 1 ? '' : 's'} of ${r.planned} planned`).join(', ')} (an infrastructure error: left out, never counted as a failure; \`run --retry-errors\` reruns them).`,
      );
  }
  return { id: 'table3', title: 'Table 3: ALFWorld success rates (%) by task type', columns: columns(true), rows, notes };
}

/** Every ALFWorld run by method, model and prompt set (the runs behind Table 3's rows). */
export function buildPromptSetTable(runs: RunView[]): ReportTable {
  const rates = runs
    .filter((r) => r.manifest.task === BENCHMARK)
    .map(runRates)
    .sort(
      (a, b) =>
        (a.method === 'act' ? 0 : 1) - (b.method === 'act' ? 0 : 1) ||
        a.model.localeCompare(b.model) ||
        setOrder(a.promptSet) - setOrder(b.promptSet) ||
        a.run.manifest.runId.localeCompare(b.run.manifest.runId),
    );
  const rows: ReportRow[] = rates.map((r) => ({
    label: `${METHOD_LABEL[r.method] ?? r.method} ${r.promptSet}`,
    source: 'ours',
    ref: r.run.manifest.runId,
    cells: cellsOf(
      COLUMNS.map(([c]) => r.rates[c]),
      { model: r.model, n: `${r.scored.all}/${r.planned}`, errors: r.errors },
    ),
    ci: { all: allInterval([r], 'avg') },
  }));
  const splits = [...new Set(rates.map((r) => r.run.manifest.split))].join(', ') || 'valid_unseen';
  return {
    id: 'table3-prompt-sets',
    title: 'ALFWorld success rates (%) by prompt set',
    columns: columns(false),
    rows,
    notes: [
      `One row per run: success % over its scored games of each type (split ${splits}); n = scored/planned games; All with its 95% bootstrap interval.`,
    ],
  };
}

export function buildAlfworldTables(runs: RunView[]): ReportTable[] {
  if (!runs.some((r) => r.manifest.task === BENCHMARK)) return [];
  return [buildTable3(runs), buildPromptSetTable(runs)];
}
