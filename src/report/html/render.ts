// The HTML report: one self-contained file that opens offline (README "Reports"). Tables, figures (SVG from
// ../svg.ts), run list and a trajectory browser. Nothing external: inline CSS and script, run data as
// JSON in a non-executed <script type="application/json"> with "<" written \u003c, and a
// Content-Security-Policy that loads nothing from anywhere and runs only our own script (by hash), so
// even a model's "<script>" that escaped escaping could not run.
import { createHash } from 'node:crypto';
import { fullRecords, type ReportTable, type RunView } from '../model.js';
import type { EpisodeRecord } from '../../runlog/schema.js';
import { fmt } from '../format.js';
import { expandIntervals } from '../display.js';
import { xmlEscape as esc } from '../svg.js';
import {
  browserEpisode,
  browserRun,
  splitEpisode,
  type BrowserData,
  type BrowserEpisode,
  type EpisodeBody,
  type EpisodeSummary,
} from './episodes.js';
import { CLIENT_JS } from './client.js';
import { REPORT_CSS } from './style.js';
import { LABEL_CSS, LABEL_JS, labellingSectionHtml, type LabellingData } from './labelling.js';

export interface HtmlFigure {
  title: string;
  /** Markup from src/report/svg.ts (trusted: built by our code with every text escaped). */
  svg: string;
}

export interface HtmlSection {
  id: string;
  title: string;
  intro?: string;
  tables: ReportTable[];
}

export interface HtmlReportInput {
  title?: string;
  tables: ReportTable[];
  figures: HtmlFigure[];
  /** Further sections after the figures (comparisons, ablations, error analysis, published elsewhere). */
  sections?: HtmlSection[];
  runs: RunView[];
  /** The table of runs to show (default: a short list of the runs' ids, splits and episodes). */
  runsTable?: ReportTable;
  /** Sentences on how the runs were grouped (reruns, superseded shards). */
  notes?: string[];
  /** Whether a scored episode is correct (undefined: the default, its run's primary metric = 1, full marks). */
  isCorrect?: (run: RunView, record: EpisodeRecord) => boolean | undefined;
  /** Tags to add to a record's own `tags` (e.g. automatic error-analysis tags). */
  extraTags?: (run: RunView, record: EpisodeRecord) => string[];
  /** A line saying when and from what the report was built. */
  generatedNote?: string;
  /** Table 2's sample to label in the page (labelling.ts); none: no labelling section. */
  labelling?: LabellingData | null;
}

/** JSON that is safe inside <script>: "<" (so no "</script>" or "<!--") and the JS line separators escaped. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function cellHtml(v: unknown, numeric: boolean | undefined): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'number') return esc(numeric ? fmt(v) : String(v));
  return esc(String(v));
}

/** A table (its intervals as "95% CI" columns), in its own section with its notes. */
export function tableHtml(table: ReportTable, opts: { className?: string } = {}): string {
  const t = expandIntervals(table);
  const out: string[] = [
    `<section class="report-table" id="${esc(`table-${t.id}`)}">`,
    `<h3>${esc(t.title)}</h3>`,
    opts.className ? `<table class="${esc(opts.className)}">` : '<table>',
    '<thead>',
  ];
  if (t.columns.some((c) => c.group !== undefined)) {
    const cells = ['<th></th>'];
    for (let i = 0; i < t.columns.length;) {
      const g = t.columns[i].group;
      let j = i + 1;
      while (g !== undefined && j < t.columns.length && t.columns[j].group === g) j++;
      cells.push(`<th colspan="${j - i}" class="group">${g === undefined ? '' : esc(g)}</th>`);
      i = j;
    }
    out.push(`<tr>${cells.join('')}</tr>`);
  }
  out.push(
    `<tr><th>${esc(t.rowHeader ?? '')}</th>${t.columns.map((c) => `<th${c.numeric ? ' class="num"' : ''}>${esc(c.label)}</th>`).join('')}</tr>`,
    '</thead>',
    '<tbody>',
  );
  for (const r of t.rows) {
    out.push(
      `<tr class="${r.source}"><th scope="row">${esc(r.label)}</th>${t.columns
        .map((c) => `<td${c.numeric ? ' class="num"' : ''}>${cellHtml(r.cells[c.key], c.numeric)}</td>`)
        .join('')}</tr>`,
    );
  }
  out.push('</tbody>', '</table>');
  if (t.notes.length) out.push(`<ul class="notes">${t.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>`);
  out.push('</section>');
  return out.join('\n');
}

function runsTableHtml(runs: RunView[]): string {
  const rows = runs.map((r) => {
    const m = r.manifest;
    const errors = r.records.filter((x) => x.error).length;
    return `<tr><td><code>${esc(m.runId)}</code></td><td>${esc(m.task)}</td><td>${esc(m.method)}</td><td>${esc(m.split)}${m.shard ? ` (shard ${esc(m.shard)})` : ''}</td><td>${esc(m.model)}</td><td class="num">${r.records.length}/${m.indices?.length ?? r.records.length}</td><td class="num">${errors}</td></tr>`;
  });
  return `<table class="runs"><thead><tr><th>Run</th><th>Benchmark</th><th>Method</th><th>Split</th><th>Model</th><th class="num">Episodes</th><th class="num">Errors</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** Episode summaries per index block: small enough to parse in one go, few enough blocks to find fast. */
const INDEX_BLOCK = 2000;

/**
 * The trajectory browser's data as page blocks, in document order: `report-data` (the runs), then
 * per episode its body block (`ep-<n>`, n its position over all runs) and, every INDEX_BLOCK
 * episodes, an `episode-index` block of their summaries. Built one episode at a time: a slim run's
 * records are read back from its file here, each written out before the next is read.
 */
function* episodeBlocks(input: HtmlReportInput): Generator<string> {
  const opts = { isCorrect: input.isCorrect, extraTags: input.extraTags };
  const infos = input.runs.map(browserRun);
  yield `<script type="application/json" id="report-data">${scriptJson({ runs: infos })}</script>\n`;
  // Each summary held as its JSON text until its block is written (the array's JSON is its elements'
  // joined, and scriptJson's escapes are per character): a block's objects would outlive a few young
  // collections and be promoted, garbage only a full collection frees, piling up over a long page.
  let pending: string[] = [];
  let n = 0;
  const flush = () => {
    const text = `<script type="application/json" class="episode-index">[${pending.join(',')}]</script>\n`;
    pending = [];
    return text;
  };
  for (let i = 0; i < input.runs.length; i++) {
    const run = input.runs[i];
    for (const r of fullRecords(run)) {
      const { summary, body } = splitEpisode(browserEpisode(run, i, infos[i], r, opts));
      pending.push(scriptJson(summary));
      yield `<script type="application/json" id="ep-${n++}">${scriptJson(body)}</script>\n`;
      if (pending.length >= INDEX_BLOCK) yield flush();
    }
  }
  if (pending.length) yield flush();
}

/** The browser data a page holds, put back together (its index blocks and episode blocks): for tests and tools. */
export function pageData(html: string): BrowserData {
  const runs = (
    JSON.parse(/<script type="application\/json" id="report-data">(.*?)<\/script>/.exec(html)![1]) as { runs: BrowserData['runs'] }
  ).runs;
  const bodies = new Map<number, EpisodeBody>();
  for (const m of html.matchAll(/<script type="application\/json" id="ep-(\d+)">(.*?)<\/script>/g))
    bodies.set(Number(m[1]), JSON.parse(m[2]) as EpisodeBody);
  const episodes: BrowserEpisode[] = [];
  for (const m of html.matchAll(/<script type="application\/json" class="episode-index">(.*?)<\/script>/g)) {
    for (const s of JSON.parse(m[1]) as EpisodeSummary[]) episodes.push({ ...s, ...bodies.get(episodes.length)! });
  }
  return { runs, episodes };
}

/** The page as one string (small reports, tests); renderHtmlChunks for a file of any size. */
export function renderHtmlReport(input: HtmlReportInput): string {
  return [...renderHtmlChunks(input)].join('');
}

/** The page piece by piece, never as one string (above ~185,000 episodes one string exceeds V8's limit). */
export function* renderHtmlChunks(input: HtmlReportInput): Generator<string> {
  const title = input.title ?? 'ReAct reproduction report';
  const labelling = input.labelling ?? null;
  const scripts = labelling ? [CLIENT_JS, LABEL_JS] : [CLIENT_JS];
  const hashes = scripts.map((js) => `'sha256-${createHash('sha256').update(js, 'utf8').digest('base64')}'`).join(' ');
  const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src ${hashes}; base-uri 'none'; form-action 'none'`;
  yield [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(title)}</title>`,
    `<style>${REPORT_CSS}${labelling ? LABEL_CSS : ''}</style>`,
    '</head><body>',
    `<header><h1>${esc(title)}</h1>${input.generatedNote ? `<p class="meta">${esc(input.generatedNote)}</p>` : ''}`,
    `<nav>${[['tables', 'Tables'], ['figures', 'Figures'], ...(input.sections ?? []).map((x) => [x.id, x.title]), ['runs', 'Runs'], ['trajectories', 'Trajectories'], ...(labelling ? [['labelling', 'Label Table 2']] : [])].map(([id, t]) => `<a href="#${esc(id)}">${esc(t)}</a>`).join(' · ')}</nav></header>`,
    '<main>',
    '<section id="tables"><h2>Tables</h2>',
    ...(input.tables.length ? input.tables.map((t) => tableHtml(t)) : ['<p class="meta">No tables.</p>']),
    '</section>',
    '<section id="figures"><h2>Figures</h2>',
    ...(input.figures.length
      ? input.figures.map((f) => `<figure><figcaption>${esc(f.title)}</figcaption>\n${f.svg}\n</figure>`)
      : ['<p class="meta">No figures.</p>']),
    '</section>',
    ...(input.sections ?? []).flatMap((sec) => [
      `<section id="${esc(sec.id)}" class="extra"><h2>${esc(sec.title)}</h2>`,
      ...(sec.intro ? [`<p class="meta">${esc(sec.intro)}</p>`] : []),
      ...sec.tables.map((t) => tableHtml(t)),
      '</section>',
    ]),
    '<section id="runs"><h2>Runs</h2>',
    input.runsTable ? tableHtml(input.runsTable, { className: 'runs' }) : runsTableHtml(input.runs),
    ...(input.notes?.length ? [`<ul class="notes">${input.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>`] : []),
    '<h3>Few-shot prompts (one per run)</h3><div id="run-prompts"></div>',
    '</section>',
    '<section id="trajectories"><h2>Trajectories</h2>',
    '<div class="filters">',
    '<label>Benchmark <select id="filter-benchmark"></select></label>',
    '<label>Method <select id="filter-method"></select></label>',
    '<label>Outcome <select id="filter-outcome"><option value="">all outcomes</option><option value="correct">correct</option><option value="incorrect">incorrect</option><option value="error">error</option></select></label>',
    '<label>Tag <select id="filter-tag"></select></label>',
    '<label>Search <input id="filter-search" type="search" placeholder="text in question, steps, answer"></label>',
    '</div>',
    '<p id="episode-count" class="meta"></p>',
    '<div id="episode-list"></div>',
    '</section>',
    ...(labelling ? [labellingSectionHtml(labelling)] : []),
    '</main>',
    '',
  ].join('\n');
  yield* episodeBlocks(input);
  yield [
    ...(labelling ? [`<script type="application/json" id="label-data">${scriptJson(labelling)}</script>`] : []),
    ...scripts.map((js) => `<script>${js}</script>`),
    '</body></html>',
    '',
  ].join('\n');
}
