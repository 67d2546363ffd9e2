// The HTML report: one self-contained file that opens offline (README "Reports"). Tables, figures (SVG from
// ../svg.ts), run list and a trajectory browser. Nothing external: inline CSS and script, run data as
// JSON in a non-executed <script type="application/json"> with "<" written \u003c, and a
// Content-Security-Policy that loads nothing from anywhere and runs only our own script (by hash), so
// even a model's "<script>" that escaped escaping could not run.
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { fullRecords, type Cell, type ReportTable, type RunView } from '../model.js';
import type { EpisodeRecord } from '../../runlog/schema.js';
import type { EpisodeCorrect } from '../correct.js';
import { fmt } from '../format.js';
import { figureCellText } from '../cost.js';
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
  /** Whether an episode is correct, as its benchmark says (src/report/correct.ts); absent: the default rule. */
  isCorrect?: EpisodeCorrect;
  /** Tags to add to a record's own `tags` (e.g. automatic error-analysis tags). */
  extraTags?: (run: RunView, record: EpisodeRecord) => string[];
  /** A line saying when and from what the report was built. */
  generatedNote?: string;
  /** Table 2's sample to label in the page (labelling.ts); none: no labelling section. */
  labelling?: LabellingData | null;
}

/** JSON that is safe inside <script>: "<" (so no "</script>" or "<!--") and the JS line separators escaped. */
export function scriptJson(value: unknown): string {
  return scriptSafe(JSON.stringify(value));
}

/** JSON text made safe inside <script> (each character on its own, so a text escaped in pieces is escaped whole). */
function scriptSafe(json: string): string {
  return json
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** A note as HTML: its text escaped, a `code` span set as code (as LaTeX sets it in typewriter type). */
function noteHtml(n: string): string {
  return esc(n).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function cellHtml(v: Cell | undefined, numeric: boolean | undefined): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'number') return esc(numeric ? fmt(v) : String(v));
  if (typeof v === 'object') return esc(figureCellText(v));
  return esc(v);
}

/**
 * A table (its intervals as "95% CI" columns), in its own section with its notes. Its
 * ReportColumn.underRow columns are set on a line under their row, as LaTeX sets them: the Runs
 * table's run id, whole, and a published number's source and caveat, a paragraph as wide as the
 * table, rather than columns that make it too wide for a laptop's window.
 */
export function tableHtml(table: ReportTable, opts: { className?: string } = {}): string {
  const t = expandIntervals(table);
  const under = t.columns.filter((c) => c.underRow);
  const columns = t.columns.filter((c) => !under.includes(c));
  const out: string[] = [
    `<section class="report-table" id="${esc(`table-${t.id}`)}">`,
    `<h3>${esc(t.title)}</h3>`,
    opts.className ? `<table class="${esc(opts.className)}">` : '<table>',
    '<thead>',
  ];
  if (columns.some((c) => c.group !== undefined)) {
    const cells = ['<th></th>'];
    for (let i = 0; i < columns.length;) {
      const g = columns[i].group;
      let j = i + 1;
      while (g !== undefined && j < columns.length && columns[j].group === g) j++;
      cells.push(`<th colspan="${j - i}" class="group">${g === undefined ? '' : esc(g)}</th>`);
      i = j;
    }
    out.push(`<tr>${cells.join('')}</tr>`);
  }
  out.push(
    `<tr><th>${esc(t.rowHeader ?? '')}</th>${columns.map((c) => `<th${c.numeric ? ' class="num"' : ''}>${esc(c.label)}</th>`).join('')}</tr>`,
    '</thead>',
    '<tbody>',
  );
  for (const r of t.rows) {
    const lines = under.filter((c) => !['', '—'].includes(cellHtml(r.cells[c.key], c.numeric).trim()));
    out.push(
      `<tr class="${r.source}${lines.length ? ' lined' : ''}"><th scope="row">${esc(r.label)}</th>${columns
        .map((c) => `<td${c.numeric ? ' class="num"' : ''}>${cellHtml(r.cells[c.key], c.numeric)}</td>`)
        .join('')}</tr>`,
    );
    // One cell across the table under the row, a line per column (style.ts: the Runs table's held in
    // view while it scrolls sideways, other tables' wrapped to the table's width).
    if (lines.length)
      out.push(
        `<tr class="${r.source} under-row"><td colspan="${columns.length + 1}">${lines
          .map((c) => `<div class="row-line">${esc(c.label)}: <span class="v">${cellHtml(r.cells[c.key], c.numeric)}</span></div>`)
          .join('')}</td></tr>`,
      );
  }
  out.push('</tbody>', '</table>');
  if (t.notes.length) out.push(`<ul class="notes">${t.notes.map((n) => `<li>${noteHtml(n)}</li>`).join('')}</ul>`);
  out.push('</section>');
  return out.join('\n');
}

function runsTableHtml(runs: RunView[]): string {
  const rows = runs.map((r) => {
    const m = r.manifest;
    const errors = r.records.filter((x) => x.error).length;
    return `<tr><th scope="row"><code>${esc(m.runId)}</code></th><td>${esc(m.task)}</td><td>${esc(m.method)}</td><td>${esc(m.split)}${m.shard ? ` (shard ${esc(m.shard)})` : ''}</td><td>${esc(m.model)}</td><td class="num">${r.records.length}/${m.indices?.length ?? r.records.length}</td><td class="num">${errors}</td></tr>`;
  });
  // In a table's section, as tableHtml's tables are: wider than a narrow window, it scrolls there (style.ts).
  return `<section class="report-table" id="table-runs"><table class="runs"><thead><tr><th>Run</th><th>Benchmark</th><th>Method</th><th>Split</th><th>Model</th><th class="num">Episodes</th><th class="num">Errors</th></tr></thead><tbody>${rows.join('')}</tbody></table></section>`;
}

/**
 * Episodes per page block. A block is one element: a page of an element per episode took Chromium
 * minutes to parse at a million episodes (bench/results-report.md), a thousand elements take no
 * longer than the page's bytes. Opening an episode scans one block's text for its line: small enough
 * to scan at once, few enough blocks that reading every block's index is fast.
 */
const BLOCK = 1000;
/** At most about this many characters of body lines in a block (it then closes with fewer episodes). */
const BLOCK_BODY_CHARS = 16_000_000;

const OUTCOME_CODE = { correct: 'c', incorrect: 'i', error: 'e' } as const;
const OUTCOME_OF: Record<string, BrowserEpisode['outcome']> = { c: 'correct', i: 'incorrect', e: 'error' };

/** A block's index (its last line): what the list, the filters and the counts read of its episodes. */
interface BlockIndex {
  /** How many episodes the block holds. */
  n: number;
  /** The episodes' runs (positions in BrowserData.runs), run-length coded: run, count, run, count... */
  run: number[];
  /** The episodes' idx, coded as runs of consecutive values: first, count, first, count... */
  idx: number[];
  /** One letter per episode: c(orrect), i(ncorrect), e(rror). */
  outcome: string;
  /** The distinct tag lists of the block's episodes (the first is always the empty one). */
  sets: string[][];
  /** Each episode's tag list, a position in `sets`. */
  tags: number[];
}

/** A row line: what a drawn row shows beside the index (item, answer, gold, scores). */
type RowLine = [EpisodeSummary['item'], EpisodeSummary['answer'], EpisodeSummary['gold'], EpisodeSummary['metrics']];

/** One block's index and row lines, built as its episodes are written (only its summaries are held). */
class BlockBuilder {
  n = 0;
  private runs: number[] = [];
  private idx: number[] = [];
  private outcome: string[] = [];
  private sets: string[][] = [[]];
  private setAt = new Map<string, number>([['[]', 0]]);
  private tags: number[] = [];
  private rows: string[] = [];

  add(s: EpisodeSummary): void {
    const rl = this.runs.length;
    if (rl > 0 && this.runs[rl - 2] === s.run) this.runs[rl - 1]++;
    else this.runs.push(s.run, 1);
    const il = this.idx.length;
    if (il > 0 && this.idx[il - 2] + this.idx[il - 1] === s.idx) this.idx[il - 1]++;
    else this.idx.push(s.idx, 1);
    this.outcome.push(OUTCOME_CODE[s.outcome]);
    const key = JSON.stringify(s.tags);
    let at = this.setAt.get(key);
    if (at === undefined) {
      at = this.sets.length;
      this.sets.push(s.tags);
      this.setAt.set(key, at);
    }
    this.tags.push(at);
    const row: RowLine = [s.item, s.answer, s.gold, s.metrics];
    this.rows.push(scriptJson(row));
    this.n++;
  }

  /** The block's text: its row lines, then its index, and the element's end. */
  close(): string {
    const index: BlockIndex = {
      n: this.n,
      run: this.runs,
      idx: this.idx,
      outcome: this.outcome.join(''),
      sets: this.sets,
      tags: this.tags,
    };
    return `${this.rows.join('\n')}\n${scriptJson(index)}</script>\n`;
  }
}

/**
 * zlib level of a block's bodies: zlib's default, the knee. Measured 2026-11-27 on 1,000-episode blocks
 * of bench/report.ts's 35,000 folder (23 MB of body lines: levels 1 / 6 / 9 took 0.13 / 0.09 / 0.19 s
 * and came to 12.6 / 15.5 / 16.8 × smaller; its texts repeat) and on natural text (HotpotQA and FEVER
 * dev lines: 11 / 26 / 35 ms per MB, 2.5 / 2.8 / 2.9 × smaller). Level 6 costs ~25 s of a million
 * episodes' ~4-minute write and makes the page ~12 % smaller than level 1; level 9 buys ~1 % more.
 */
const GZIP_LEVEL = 6;

/** A block's body lines as the page holds them: one gzip member, base64 (the page's text is ASCII). */
function bodiesElement(lines: readonly string[]): string {
  const gz = gzipSync(lines.join('\n'), { level: GZIP_LEVEL });
  return `<script type="application/octet-stream" class="episode-bodies">${gz.toString('base64')}</script>\n`;
}

/**
 * The trajectory browser's data as page blocks, in document order: `report-data` (the runs), then the
 * episodes (in run order, n their position over all runs) in blocks of BLOCK. A block is two elements:
 * `<script type="application/json" class="episode-block">` of lines (JSON never holds a raw newline),
 * the episodes' row lines (RowLine), then the block's index (BlockIndex); right after it,
 * `<script type="application/octet-stream" class="episode-bodies">`, the episodes' bodies (EpisodeBody,
 * one a line) gzip-compressed and base64-coded: most of the page's bytes, and what the viewer needs
 * only when an episode is opened or searched, so the page's parser sees a fraction of them. The
 * viewer reads every block's last line when the page opens, a row line when it is drawn, and a
 * block's bodies (decoded asynchronously) when one of them is opened or a search reaches it. Built
 * one episode at a time: a slim run's records are read back from its file here; only one block's
 * summaries and body lines are held until it closes.
 */
function* episodeBlocks(input: HtmlReportInput): Generator<string> {
  const opts = { isCorrect: input.isCorrect, extraTags: input.extraTags };
  const infos = input.runs.map(browserRun);
  yield `<script type="application/json" id="report-data">${scriptJson({ runs: infos })}</script>\n`;
  let block = new BlockBuilder();
  let bodies: string[] = [];
  let bodyChars = 0;
  const close = () => `<script type="application/json" class="episode-block">${block.close()}${bodiesElement(bodies)}`;
  for (let i = 0; i < input.runs.length; i++) {
    const run = input.runs[i];
    for (const r of fullRecords(run)) {
      const { summary, body } = splitEpisode(browserEpisode(run, i, infos[i], r, opts));
      block.add(summary);
      const line = JSON.stringify(body);
      bodies.push(line);
      bodyChars += line.length;
      // A block of long trajectories closes early: what the writer and a page's decoded block hold
      // stays bounded (the viewer takes any count a block says it has).
      if (block.n >= BLOCK || bodyChars >= BLOCK_BODY_CHARS) {
        yield close();
        block = new BlockBuilder();
        bodies = [];
        bodyChars = 0;
      }
    }
  }
  if (block.n > 0) yield close();
}

/** Each block's text and its bodies' lines (gunzipped), in page order. */
function* pageBlocks(html: string): Generator<{ lines: string[]; bodies: string[] }> {
  const re =
    /<script type="application\/json" class="episode-block">([^<]*)<\/script>\n(?:<script type="application\/octet-stream" class="episode-bodies">([^<]*)<\/script>)?/g;
  for (const m of html.matchAll(re)) {
    // a block without its bodies after it: a page of another layout, not one with no episodes
    if (m[2] === undefined) throw new Error('pageData: an episode block without its bodies element');
    yield { lines: m[1].split('\n'), bodies: gunzipSync(Buffer.from(m[2], 'base64')).toString('utf8').split('\n') };
  }
}

/** The browser data a page holds, put back together from its episode blocks: for tests and tools. */
export function pageData(html: string): BrowserData {
  const runs = (
    JSON.parse(/<script type="application\/json" id="report-data">(.*?)<\/script>/.exec(html)![1]) as { runs: BrowserData['runs'] }
  ).runs;
  const episodes: BrowserEpisode[] = [];
  for (const { lines, bodies } of pageBlocks(html)) {
    const index = JSON.parse(lines[lines.length - 1]) as BlockIndex;
    const expand = (coded: number[], step: number) => {
      const out: number[] = [];
      for (let k = 0; k < coded.length; k += 2) for (let j = 0; j < coded[k + 1]; j++) out.push(coded[k] + step * j);
      return out;
    };
    const runOf = expand(index.run, 0);
    const idxOf = expand(index.idx, 1);
    for (let k = 0; k < index.n; k++) {
      const [item, answer, gold, metrics] = JSON.parse(lines[k]) as RowLine;
      const body = JSON.parse(bodies[k]) as EpisodeBody;
      const outcome = OUTCOME_OF[index.outcome[k]];
      const summary: EpisodeSummary = {
        run: runOf[k],
        idx: idxOf[k],
        item,
        answer,
        gold,
        metrics,
        outcome,
        tags: [...index.sets[index.tags[k]]],
      };
      episodes.push({ ...summary, ...body });
    }
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
    ...(input.notes?.length ? [`<ul class="notes">${input.notes.map((n) => `<li>${noteHtml(n)}</li>`).join('')}</ul>`] : []),
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
  if (labelling) {
    yield* labelDataElement(labelling);
    yield '\n';
  }
  yield [...scripts.map((js) => `<script>${js}</script>`), '</body></html>', ''].join('\n');
}

/** Label rows per piece of the label data (a piece of a few hundred KB). */
const LABEL_ROWS_PER_PIECE = 1000;

/**
 * The label data element, `scriptJson(d)` in pieces of rows: the sample of a million-episode report
 * is 57,200 rows, ~16 MB of JSON, which as one string (and its escaped copies) was the page write's
 * largest allocation.
 */
function* labelDataElement(d: LabellingData): Generator<string> {
  const fields: Omit<LabellingData, 'rows'> = { columns: d.columns, categories: d.categories, methodLabels: d.methodLabels };
  const head = JSON.stringify(fields);
  yield `<script type="application/json" id="label-data">${scriptSafe(`${head.slice(0, -1)},"rows":[`)}`;
  for (let i = 0; i < d.rows.length; i += LABEL_ROWS_PER_PIECE) {
    const piece = d.rows.slice(i, i + LABEL_ROWS_PER_PIECE).map((r) => JSON.stringify(r));
    yield (i > 0 ? ',' : '') + scriptSafe(piece.join(','));
  }
  yield ']}</script>';
}
