// Table 1 (HotpotQA EM, FEVER accuracy) as a ReportTable: rows = the paper's methods in its order
// (per model when there are several, and a row per variant when runs of a method differ in a
// setting); one column group per benchmark split and item set: ours with its 95% bootstrap interval,
// n, and the paper's class-A numbers (PaLM-540B, Table 1; GPT-3 = text-davinci-002, Table 5 or the
// code's README) from the anchors file. A cell holds one comparable set of episodes (src/report/
// grouping.ts: benchmark, split, items, model): every method of a model in a column group is scored on
// the same items, those scored in all its runs; the notes say how many and what was left out.
import type { ReportColumn, ReportRow, ReportTable, RunView } from '../../../report/model.js';
import type { TaskName } from '../types.js';
import type { EvidenceGap } from '../evidence-gap.js';
import { isQaTask, qaTask, qaTaskNames } from '../task-specs.js';
import { wikiArgv } from '../wiki-env.js';
import { reportAnchors, anchorCitation, anchorProvenance, type Anchor } from '../../../report/anchors.js';
import {
  cohortSentence,
  differingKeys,
  effectiveSettings,
  groupRuns,
  itemSetKey,
  settingText,
  type SettingValues,
} from '../../../report/grouping.js';
import { methodLabelIn } from '../../../report/names.js';
import { QA_METHOD_LABELS } from './names.js';
import { scoreCell } from '../../../report/scores.js';

/** Table 1 row order, as in the paper. */
export const TABLE1_METHODS = ['standard', 'cot', 'cot-sc', 'act', 'react', 'cot-sc-react', 'react-cot-sc'] as const;

// The registered Wikipedia-QA tasks, in registration order (the paper's: HotpotQA, then FEVER).
const TASKS = (): TaskName[] => qaTaskNames();
const taskLabel = (t: TaskName): string => qaTask(t).scoreLabel;
const taskTitle = (t: TaskName): string => qaTask(t).title;
const isTask = isQaTask;
/** A method as the paper writes it: both tasks' Benchmark.methodLabels, read as the report reads them. */
const methodLabel = (method: string): string => methodLabelIn(QA_METHOD_LABELS, method);
/** The split that is the paper's 500 questions / claims (the released code's Random(233) sample). */
export const PAPER_SPLIT = 'react500';
/** The models of the paper's columns, as the anchors file names them. */
const PAPER_MODELS = [
  { key: 'palm', label: 'PaLM-540B', model: 'PaLM-540B' },
  { key: 'gpt3', label: 'GPT-3', model: 'text-davinci-002' },
] as const;

interface Group {
  key: string;
  task: TaskName;
  label: string;
  runs: RunView[];
}

const order = (m: string) => {
  const i = TABLE1_METHODS.findIndex((x) => x === m);
  return i < 0 ? TABLE1_METHODS.length : i;
};

interface RowKey {
  method: string;
  model: string;
  variant: string;
}

const rowId = (k: RowKey) => JSON.stringify([k.method, k.model, k.variant]);

/**
 * Settings of a run that can set it apart from another run of its method. A run without an
 * environment (Standard, CoT, CoT-SC use no Wikipedia) records the Wikipedia flags it was given but
 * never used them: they are not its settings.
 */
function rowSettings(r: RunView): SettingValues {
  const s = effectiveSettings(r);
  if (!(r.full ?? r).manifest.environment) for (const k of Object.keys(s)) if (/^wiki/i.test(k)) delete s[k];
  return s;
}

/**
 * The row each run goes to: its method and model, and — only when one column group holds more than
 * one run of that method and model (two variants on the same items) — the settings that set them
 * apart there. Runs of a method in different column groups share one row whatever their settings:
 * a difference between columns (HotpotQA on the snapshot, FEVER on live Wikipedia) is said in the
 * notes (columnDifferences), never by splitting the row.
 */
function rowKeys(runs: RunView[], groupOf: (r: RunView) => string): Map<RunView, RowKey> {
  const out = new Map<RunView, RowKey>();
  const pairs = new Map(runs.map((r) => [JSON.stringify([r.manifest.method, r.cohort!.model]), [r.manifest.method, r.cohort!.model]]));
  for (const [method, model] of pairs.values()) {
    const rs = runs.filter((r) => r.manifest.method === method && r.cohort!.model === model);
    const byGroup = new Map<string, RunView[]>();
    for (const r of rs) byGroup.set(groupOf(r), [...(byGroup.get(groupOf(r)) ?? []), r]);
    // Variants named within their column group: the settings that differ among its runs of the method.
    const defined: { keys: string[]; values: Record<string, string>; variant: string }[] = [];
    const alone: RunView[] = [];
    for (const g of byGroup.values()) {
      if (g.length === 1) {
        alone.push(g[0]);
        continue;
      }
      const settings = g.map(rowSettings);
      const keys = differingKeys(settings);
      g.forEach((r, i) => {
        const values = Object.fromEntries(keys.map((k) => [k, settingText(settings[i][k])]));
        const variant = keys.map((k) => `${k} ${values[k]}`).join(', ');
        defined.push({ keys, values, variant });
        out.set(r, { method, model, variant });
      });
    }
    // A run alone in its group joins the variant row whose settings it shares, when exactly one does.
    for (const r of alone) {
      const s = rowSettings(r);
      const fits = [...new Set(defined.filter((d) => d.keys.every((k) => settingText(s[k]) === d.values[k])).map((d) => d.variant))];
      out.set(r, { method, model, variant: fits.length === 1 ? fits[0] : '' });
    }
  }
  // Two runs of one cell (they differ only in what the settings do not show): name them by run id.
  for (const r of runs) {
    const k = out.get(r)!;
    const clash = runs.some((x) => x !== r && groupOf(x) === groupOf(r) && rowId(out.get(x)!) === rowId(k));
    if (clash) out.set(r, { ...k, variant: [k.variant, `run ${r.manifest.runId.slice(-8)}`].filter(Boolean).join(', ') });
  }
  return out;
}

/** How a run's Wikipedia is named in the notes (manifest.environment.kind). */
const WIKI_KIND: Record<string, string> = {
  snapshot: 'the offline Wikipedia snapshot',
  live: 'live Wikipedia (its search page, as in the released code)',
  api: 'the Wikipedia API',
  replay: 'a recorded Wikipedia session (replay)',
};

function wikiOf(r: RunView): string | null {
  const env = (r.full ?? r).manifest.environment;
  if (!env) return null;
  return typeof env.kind === 'string' ? (WIKI_KIND[env.kind] ?? `Wikipedia backend ${env.kind}`) : 'a Wikipedia backend';
}

/**
 * Notes on what differs between the columns of one row: which Wikipedia each column's interactive
 * runs used (the methods without one named as such), and any other setting a row's runs do not share.
 */
function columnDifferences(groups: Group[], rowIds: RowKey[], keys: Map<RunView, RowKey>): string[] {
  const notes: string[] = [];
  const withEnv = groups
    .map((g) => ({ g, wikis: [...new Set(g.runs.map(wikiOf).filter((w): w is string => w !== null))] }))
    .filter((x) => x.wikis.length);
  if (withEnv.length) {
    const users = [...new Set(groups.flatMap((g) => g.runs.filter((r) => wikiOf(r) !== null).map((r) => r.manifest.method)))].sort(
      (a, b) => order(a) - order(b),
    );
    const none = [...new Set(groups.flatMap((g) => g.runs.filter((r) => wikiOf(r) === null).map((r) => r.manifest.method)))].sort(
      (a, b) => order(a) - order(b),
    );
    const all = [...new Set(withEnv.flatMap((x) => x.wikis))];
    const list = (ms: string[]) => ms.map(methodLabel).join(', ');
    const column = (g: Group) => g.label.replace(taskLabel(g.task), taskTitle(g.task));
    const where =
      all.length === 1
        ? `Wikipedia: ${all[0]} in every column`
        : `Wikipedia differs between the columns: ${withEnv.map((x) => `${column(x.g)} on ${x.wikis.join(' and ')}`).join('; ')}`;
    notes.push(`${where}. Searched by ${list(users)}${none.length ? `; ${list(none)} use no Wikipedia` : ''}.`);
  }
  for (const k of rowIds) {
    const rs = groups.flatMap((g) => g.runs.filter((r) => rowId(keys.get(r)!) === rowId(k)).map((r) => ({ g, r })));
    if (rs.length < 2) continue;
    const settings = rs.map((x) => rowSettings(x.r));
    const differ = differingKeys(settings).filter((key) => !/^wiki$/i.test(key));
    if (!differ.length) continue;
    const name =
      methodLabel(k.method) +
      (k.variant ? ` (${k.variant})` : '') +
      (k.model && new Set(rowIds.map((x) => x.model)).size > 1 ? `, ${k.model}` : '');
    notes.push(
      `${name}: the columns differ in ${differ.map((key) => `${key} (${rs.map((x, i) => `${x.g.label} ${settingText(settings[i][key])}`).join(', ')})`).join('; ')}.`,
    );
  }
  return notes;
}

/**
 * What a run recorded about its Wikipedia, put to its task's evidence rule (QaTaskSpec.evidenceGap, the
 * rule of the run's own start notice): the gap, or null. A run searched Wikipedia when its manifest
 * records an environment (a combination records its ReAct run's, whose Wikipedia its own settings do not
 * say): a snapshot only when that environment is one; its flags are its recorded settings.
 */
function evidenceGapOf(r: RunView): EvidenceGap | null {
  const rule = qaTask(r.manifest.task).evidenceGap;
  const m = (r.full ?? r).manifest;
  if (!rule || !m.environment || (m.environment as { kind?: unknown }).kind !== 'snapshot') return null;
  let wiki;
  try {
    wiki = wikiArgv(m.settings).argv;
  } catch {
    return null; // settings not as a run writes them: nothing can be said
  }
  return rule({ searches: true, wiki, split: m.split, indices: m.indices });
}

/**
 * The caveat on a column whose runs searched a Wikipedia that lacks the items' evidence (FEVER on the
 * shipped HotpotQA snapshot): which methods, how little is there, and that the paper's numbers beside
 * them are for reference only, as for a column off the paper's items.
 */
function evidenceNotes(groups: Group[]): string[] {
  return groups.flatMap((g) => {
    const gaps = g.runs.map((r) => ({ r, gap: evidenceGapOf(r) })).filter((x): x is { r: RunView; gap: EvidenceGap } => x.gap !== null);
    if (!gaps.length) return [];
    const methods = [...new Set(gaps.map((x) => x.r.manifest.method))].sort((a, b) => order(a) - order(b)).map(methodLabel);
    // The runs of a column share its items, so they share the gap: said once.
    const { wikipedia, coverage, remedy } = gaps[0].gap;
    return [
      `${g.label}: ${methods.join(', ')} searched ${wikipedia}; ${coverage}, so their scores do not measure the paper's task, and the paper's numbers are beside them for reference only; use ${remedy}.`,
    ];
  });
}

/** A column group: one benchmark's split and item set (whatever the model). */
const groupKey = (r: RunView) => JSON.stringify([r.manifest.task, r.manifest.split, itemSetKey((r.full ?? r).manifest.indices)]);

/** "PaLM-540B: Table 1, Yao et al. …; GPT-3 (text-davinci-002): HotpotQA ReAct: Table 5, …; FEVER ReAct: README …". */
function sourcesText(used: Anchor[]): string {
  return PAPER_MODELS.map((p) => {
    const mine = used.filter((a) => a.model === p.model);
    if (mine.length === 0) return null;
    const cites = [...new Set(mine.map(anchorCitation))];
    const name = p.model === p.label ? p.label : `${p.label} (${p.model})`;
    if (cites.length === 1) return `${name}: ${cites[0]}`;
    return `${name}: ${cites
      .map(
        (c) =>
          `${mine
            .filter((a) => anchorCitation(a) === c)
            .map((a) => `${isTask(a.benchmark) ? taskLabel(a.benchmark).split(' ')[0] : a.benchmark} ${methodLabel(a.method)}`)
            .join(', ')} from ${c}`,
      )
      .join('; ')}`;
  })
    .filter(Boolean)
    .join('; ');
}

/**
 * Gives column groups that would share a heading (one split, as many items, other items: unmerged
 * shards, or two --indices lists) headings of their own: the shard where each group is one shard,
 * else "set A", "set B" in column order. Groups on other items never read as one.
 */
function distinguishLabels(groups: Group[]): void {
  for (const label of new Set(groups.map((g) => g.label))) {
    const same = groups.filter((g) => g.label === label);
    if (same.length < 2) continue;
    const shardOf = (g: Group) => {
      const shards = new Set(g.runs.map((r) => r.manifest.shard ?? null));
      return shards.size === 1 ? [...shards][0] : null;
    };
    const shards = same.map(shardOf);
    const byShard = shards.every((s) => s !== null) && new Set(shards).size === same.length;
    same.forEach((g, i) => {
      const tag = byShard ? `shard ${shards[i]}` : `set ${String.fromCharCode(65 + (i % 26))}${i >= 26 ? Math.floor(i / 26) : ''}`;
      g.label = g.label.endsWith(')') ? `${g.label.slice(0, -1)}, ${tag})` : `${g.label} (${tag})`;
    });
  }
}

function tableFor(runs: RunView[]): ReportTable {
  const book = reportAnchors();
  const models = [...new Set(runs.map((r) => r.cohort!.model))];
  const groups: Group[] = [];
  for (const task of TASKS()) {
    const keys = [...new Set(runs.filter((r) => r.manifest.task === task).map(groupKey))];
    keys.forEach((key) => {
      const rs = runs.filter((r) => groupKey(r) === key);
      const split = rs[0].manifest.split;
      const planned = new Set((rs[0].full ?? rs[0]).manifest.indices).size;
      const sameSplit = keys.filter((k) => runs.find((r) => groupKey(r) === k)!.manifest.split === split).length > 1;
      const label = keys.length > 1 ? `${taskLabel(task)} (${split}${sameSplit ? `, ${planned} items` : ''})` : taskLabel(task);
      groups.push({ key, task, label, runs: rs });
    });
  }
  distinguishLabels(groups);
  // Both columns of the paper even when only one task was run, so the paper's numbers are all there.
  for (const task of TASKS())
    if (!groups.some((g) => g.task === task)) groups.push({ key: `paper:${task}`, task, label: taskLabel(task), runs: [] });
  groups.sort((a, b) => TASKS().indexOf(a.task) - TASKS().indexOf(b.task));

  const columns: ReportColumn[] = groups.flatMap((g, i) => [
    { key: `${i}.ours`, label: 'Ours', group: g.label, numeric: true },
    { key: `${i}.n`, label: 'n', group: g.label },
    ...PAPER_MODELS.map((p) => ({ key: `${i}.${p.key}`, label: p.label, group: g.label, numeric: true })),
  ]);

  const groupOf = new Map(groups.flatMap((g) => g.runs.map((r) => [r, g.key] as const)));
  const keys = rowKeys(runs, (r) => groupOf.get(r)!);
  const rowIds = [...new Map([...keys.values()].map((k) => [rowId(k), k])).values()];
  for (const m of TABLE1_METHODS) if (!rowIds.some((x) => x.method === m)) rowIds.push({ method: m, model: '', variant: '' });
  rowIds.sort((a, b) => order(a.method) - order(b.method) || a.model.localeCompare(b.model) || a.variant.localeCompare(b.variant));

  const used: Anchor[] = [];
  const rows: ReportRow[] = rowIds.map(({ method, model, variant }) => {
    const cells: ReportRow['cells'] = {};
    const ci: NonNullable<ReportRow['ci']> = {};
    const cellSources: NonNullable<ReportRow['cellSources']> = {};
    const id = rowId({ method, model, variant });
    if (models.length > 1) cells.model = model || null;
    groups.forEach((g, i) => {
      const run = g.runs.find((r) => rowId(keys.get(r)!) === id);
      if (run) {
        const s = scoreCell(run.records, 'em', run.manifest.runId);
        cells[`${i}.ours`] = s.value;
        cells[`${i}.n`] = String(s.n);
        ci[`${i}.ours`] = s.ci;
        cellSources[`${i}.ours`] = cellSources[`${i}.n`] = { source: 'ours', ref: run.manifest.runId };
      } else {
        cells[`${i}.ours`] = null;
        cells[`${i}.n`] = null;
      }
      for (const p of PAPER_MODELS) {
        const a = book.pick({ benchmark: g.task, method, metric: 'em', model: p.model });
        cells[`${i}.${p.key}`] = a?.value ?? null;
        // A paper column holds the paper's figure (or nothing): never a number of ours.
        cellSources[`${i}.${p.key}`] = a ? anchorProvenance(a) : { source: 'paper' };
        if (a && !used.includes(a)) used.push(a);
      }
    });
    // Every row carries the paper's columns; a method we have not run shows "—" in ours (not a separate "paper" block).
    return { label: methodLabel(method) + (variant ? ` (${variant})` : ''), source: 'ours', cells, ci, cellSources };
  });

  const methodOf = (id: string) => {
    const r = runs.find((x) => x.manifest.runId === id)!;
    const k = keys.get(r)!;
    return methodLabel(k.method) + (k.variant ? ` (${k.variant})` : '');
  };
  const cohortNotes = groups.flatMap((g) => {
    const cohorts = [...new Map(g.runs.map((r) => [r.cohort!.key, r.cohort!])).values()];
    return cohorts.map((c) => `${g.label}${models.length > 1 ? `, ${c.model}` : ''}: split ${c.split}, ${cohortSentence(c, methodOf)}.`);
  });
  const notes = [
    ...cohortNotes,
    ...columnDifferences(groups, rowIds, keys),
    'Ours: EM / accuracy in percent (one decimal) with its 95% bootstrap interval (10,000 resamples, seeded); every method of a column group on the same items. Episodes with an infrastructure error are left out, never scored as wrong.',
    `Paper columns (class A: the paper's protocol and items, split ${PAPER_SPLIT}): ${sourcesText(used)}. Other published numbers are under "Published elsewhere".`,
  ];
  const off = groups.filter((g) => g.runs.length && g.runs[0].manifest.split !== PAPER_SPLIT);
  if (off.length)
    notes.push(
      `${off.map((g) => `${g.label} (split ${g.runs[0].manifest.split})`).join(', ')}: not the paper's items (its 500 are split ${PAPER_SPLIT}); the paper's numbers are beside them for reference only.`,
    );
  notes.push(...evidenceNotes(groups));
  return {
    id: 'table1',
    title: `Table 1: HotpotQA and FEVER${models.length === 1 ? ` (model ${models[0]})` : ''}`,
    columns: models.length > 1 ? [{ key: 'model', label: 'Model', identifies: true }, ...columns] : columns,
    rows,
    notes,
  };
}

/** Table 1 from the HotpotQA/FEVER runs given (grouped here when the report has not grouped them). */
export function buildTable1(runs: RunView[]): ReportTable {
  const mine = runs.filter((r) => isTask(r.manifest.task));
  return tableFor(mine.every((r) => r.cohort) ? mine : groupRuns(mine).aligned);
}
