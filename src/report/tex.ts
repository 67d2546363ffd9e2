// LaTeX tables a researcher can paste into a two-column paper (README "Reports": the old tables were 112–600 pt
// wider than a page). booktabs rules; a table goes in one column (`table`, \columnwidth ≈ 3.25in) when
// its estimated width fits, across both (`table*`, \textwidth ≈ 6.75in) otherwise, with a smaller
// font and narrower column gaps tried before either is given up. Still too wide: long text columns
// wrap (never inside a name, and a long identifier only where a URL may break), and then the columns
// are set as several tabulars stacked in the float, each repeating the row labels, rather than one
// tabular scaled down to an illegible size (Table 1 with six column groups came out at 3.5pt).
// Run ids and similar bookkeeping columns are left out of the paper's tables (they belong in the
// HTML/CSV run details); the Runs table shows each run's id on a line of its own under its row, as
// every other format shows it, and the long source and caveat of a published number go on lines of
// their own under its row likewise (TexOptions.lineColumns).
// The caption is short (the title without its own "Table N:", which LaTeX numbers); the notes follow
// the tabular as a \footnotesize block inside the float (plain LaTeX: no threeparttable needed).
// Everything written is plain ASCII: the few non-ASCII characters of the report's text become math
// or text macros pdflatex sets in its default fonts (−, Δ, →, ≤, ·, §...).
// Preamble needed: \usepackage{booktabs} (and \usepackage{graphicx} only if a table is scaled: see
// TexLayout.scale, the last resort when a single column group is wider than the page).
import type { Cell, ReportColumn, ReportTable } from './model.js';
import { fmt } from './format.js';

/** Widths of the standard two-column layouts (pt; 1in = 72.27pt): e.g. ACL/ICLR-style 3.25in / 6.75in. */
export const COLUMN_WIDTH_PT = 3.25 * 72.27;
export const TEXT_WIDTH_PT = 6.75 * 72.27;

/** Columns that identify runs rather than report results: never in a paper table. */
const BOOKKEEPING_COLUMN = /^(run_?id|run|run_dir|dir|path|fingerprint|seed)$/i;

export interface TexOptions {
  /** Column keys to leave out, besides run ids. */
  omitColumns?: string[];
  /** Float placement; default "t". */
  placement?: string;
  /** Target widths in pt (defaults: 3.25in column, 6.75in text). */
  columnWidthPt?: number;
  textWidthPt?: number;
  /** Text height in pt (default 9in): a table taller than a float may be is set in parts. */
  textHeightPt?: number;
  /**
   * Columns set on a line of their own under each row ("Run: <run id>", "Source: ..."), across the
   * tabular, rather than as columns: a long identifier kept whole, a long text as a paragraph the
   * width of the table. A line whose cell is empty is left out.
   */
  lineColumns?: string[];
}

/** How a table is set: which float, font size and column gap, and whether it must be scaled. */
export interface TexLayout {
  env: 'table' | 'table*';
  size: 'normalsize' | 'small' | 'footnotesize';
  tabcolsepPt: number;
  /** Estimated natural width of the tabular at this size (pt). */
  widthPt: number;
  /**
   * When nothing fits even across both columns: text columns that wrap in a paragraph of this width
   * (pt), by column key (LABEL_KEY for the row labels). Long labels and model names are the usual cause.
   */
  wrapPt?: Record<string, number>;
  /** True when even wrapped text columns does not fit and the tabular is scaled to \textwidth (needs graphicx). */
  scale: boolean;
  /**
   * When the columns do not fit side by side even wrapped: the tabulars the columns are set in, one
   * under the other, each repeating the row labels (a column group, or a score and its interval, stays
   * in one), with the column keys and the layout of each (all at this size and column gap).
   */
  parts?: { keys: string[]; layout: TexLayout }[];
}

// Advance widths of Computer Modern Roman 10pt (cmr10.tfm), in pt. Characters not listed are
// counted as 10pt, so estimates err wide (a table may go to table* a little early, never overflow).
const CMR10: Record<string, number> = {
  ' ': 3.33,
  '!': 2.78,
  '"': 5.0,
  '#': 8.33,
  $: 5.0,
  '%': 8.33,
  '&': 7.78,
  "'": 2.78,
  '(': 3.89,
  ')': 3.89,
  '*': 5.0,
  '+': 7.78,
  ',': 2.78,
  '-': 3.33,
  '.': 2.78,
  '/': 5.0,
  ':': 2.78,
  ';': 2.78,
  '<': 7.78,
  '=': 7.78,
  '>': 7.78,
  '?': 4.72,
  '@': 7.78,
  '[': 2.78,
  '\\': 5.0,
  ']': 2.78,
  '^': 5.0,
  _: 5.0,
  '`': 2.78,
  '{': 5.0,
  '|': 2.78,
  '}': 5.0,
  '~': 5.0,
  a: 5.0,
  b: 5.56,
  c: 4.44,
  d: 5.56,
  e: 4.44,
  f: 3.06,
  g: 5.0,
  h: 5.56,
  i: 2.78,
  j: 3.06,
  k: 5.28,
  l: 2.78,
  m: 8.33,
  n: 5.56,
  o: 5.0,
  p: 5.56,
  q: 5.28,
  r: 3.92,
  s: 3.94,
  t: 3.89,
  u: 5.56,
  v: 5.28,
  w: 7.22,
  x: 5.28,
  y: 5.28,
  z: 4.44,
  A: 7.5,
  B: 7.08,
  C: 7.22,
  D: 7.64,
  E: 6.81,
  F: 6.53,
  G: 7.85,
  H: 7.5,
  I: 3.61,
  J: 5.14,
  K: 7.78,
  L: 6.25,
  M: 9.17,
  N: 7.5,
  O: 7.78,
  P: 6.81,
  Q: 7.78,
  R: 7.36,
  S: 5.56,
  T: 7.22,
  U: 7.5,
  V: 7.5,
  W: 10.28,
  X: 7.5,
  Y: 7.5,
  Z: 6.11,
  '0': 5.0,
  '1': 5.0,
  '2': 5.0,
  '3': 5.0,
  '4': 5.0,
  '5': 5.0,
  '6': 5.0,
  '7': 5.0,
  '8': 5.0,
  '9': 5.0,
  '→': 10.0,
  '—': 10.0,
  '–': 5.0,
  '±': 7.78,
  '×': 7.78,
};
// Smaller sizes use cmr9/cmr8, drawn wider than cmr10 scaled down: measured with pdflatex, \small sets
// text at 0.925 of its \normalsize width and \footnotesize at 0.85 (not 0.9 and 0.8).
const SIZE_SCALE: Record<TexLayout['size'], number> = { normalsize: 1, small: 0.93, footnotesize: 0.86 };

/** Estimated width of text set in cmr10 at 10pt (pt). */
export function textWidthPt(s: string): number {
  let w = 0;
  for (const ch of s.normalize('NFC')) w += CMR10[ch] ?? 10;
  return w;
}

const ACCENTS: Record<string, string> = {
  '\u0301': "\\'",
  '\u0300': '\\`',
  '\u0302': '\\^',
  '\u0308': '\\"',
  '\u0303': '\\~',
  '\u0327': '\\c',
  '\u030c': '\\v',
};
const SPECIAL: Record<string, string> = {
  '\\': '\\textbackslash{}',
  '&': '\\&',
  '%': '\\%',
  $: '\\$',
  '#': '\\#',
  _: '\\_',
  '{': '\\{',
  '}': '\\}',
  '~': '\\textasciitilde{}',
  '^': '\\textasciicircum{}',
  '<': '\\textless{}',
  '>': '\\textgreater{}',
  '|': '\\textbar{}',
  '"': "''",
  '→': '$\\rightarrow$',
  '—': '---',
  '–': '--',
  '±': '$\\pm$',
  '×': '$\\times$',
  '…': '\\ldots{}',
  '\u00a0': '~',
  '’': "'",
  '‘': '`',
  '“': '``',
  '”': "''",
  // Math and symbols the report's text uses (a minus sign, Δ, sums, bounds...): math mode in the default fonts.
  '−': '$-$',
  '←': '$\\leftarrow$',
  '↔': '$\\leftrightarrow$',
  '⇒': '$\\Rightarrow$',
  '≤': '$\\le$',
  '≥': '$\\ge$',
  '≈': '$\\approx$',
  '≠': '$\\ne$',
  '·': '$\\cdot$',
  '•': '$\\bullet$',
  '°': '$^\\circ$',
  '∞': '$\\infty$',
  '√': '$\\surd$',
  '∈': '$\\in$',
  Δ: '$\\Delta$',
  Σ: '$\\Sigma$',
  α: '$\\alpha$',
  β: '$\\beta$',
  γ: '$\\gamma$',
  δ: '$\\delta$',
  ε: '$\\epsilon$',
  θ: '$\\theta$',
  λ: '$\\lambda$',
  μ: '$\\mu$',
  π: '$\\pi$',
  σ: '$\\sigma$',
  τ: '$\\tau$',
  χ: '$\\chi$',
  '§': '\\S{}',
  '¶': '\\P{}',
  '©': '\\copyright{}',
  '£': '\\pounds{}',
  '€': 'EUR',
  '✓': 'yes',
  '✗': 'no',
  ß: '{\\ss}',
  æ: '{\\ae}',
  Æ: '{\\AE}',
  ø: '{\\o}',
  Ø: '{\\O}',
  å: '{\\aa}',
  Å: '{\\AA}',
  œ: '{\\oe}',
  Œ: '{\\OE}',
  ł: '{\\l}',
  Ł: '{\\L}',
  '\u200b': '',
  '\u2009': '\\,',
  '\u202f': '\\,',
};

/**
 * Text as LaTeX that compiles with plain pdflatex (OT1, utf8 input): the ten specials escaped, a few
 * typographic characters mapped, accented Latin letters as accent macros, anything else as "?".
 */
export function texEscape(s: string): string {
  let out = '';
  let prev = ' ';
  for (const ch of s.normalize('NFC')) {
    // A straight double quote opens after a space or bracket, else closes; "--" stays two hyphens (no en dash ligature).
    const mapped = ch === '"' ? (/[\s([{]/.test(prev) ? '``' : "''") : ch === '-' && prev === '-' ? '{}-' : SPECIAL[ch];
    prev = ch;
    if (mapped !== undefined) out += mapped;
    else if (ch === '\n' || ch === '\r' || ch === '\t') out += ' ';
    else if (ch >= ' ' && ch <= '~') out += ch;
    else {
      const [base, ...marks] = [...ch.normalize('NFD')];
      const accent = marks.length === 1 ? ACCENTS[marks[0]] : undefined;
      out += accent && base && /^[A-Za-z]$/.test(base) ? `{${accent}${base === 'i' ? '\\i' : base}}` : '?';
    }
  }
  return out;
}

/** A cell as shown in print: numbers with one decimal in numeric columns (rounded once, as every format), "--" for nothing. */
export function cellText(c: Cell, col: ReportColumn): string {
  if (c === null || c === undefined) return '\u2013';
  if (typeof c === 'number') return col.numeric ? fmt(c).replace(/^—$/, '\u2013') : String(c);
  return c === '—' ? '\u2013' : c;
}

/** The columns a paper table shows. */
export function paperColumns(t: ReportTable, opts: TexOptions = {}): ReportColumn[] {
  const omit = new Set(opts.omitColumns ?? []);
  return t.columns.filter(
    (c) => !omit.has(c.key) && !opts.lineColumns?.includes(c.key) && !BOOKKEEPING_COLUMN.test(c.key) && !/^run( id)?$/i.test(c.label),
  );
}

/** The table's columns set on lines under its rows (TexOptions.lineColumns), in the table's order. */
function lineColumns(t: ReportTable, opts: TexOptions): ReportColumn[] {
  return opts.lineColumns?.length ? t.columns.filter((c) => opts.lineColumns!.includes(c.key)) : [];
}

/** A row's lines under it: "Label: text" for each line column with a value. */
function rowLines(r: ReportTable['rows'][number], lines: readonly ReportColumn[]): { label: string; text: string }[] {
  return lines
    .map((c) => ({ label: c.label, text: cellText(r.cells[c.key] ?? null, c) }))
    .filter((l) => l.text !== '\u2013' && l.text.trim() !== '');
}

/** Where the lines under the rows may go: the columns, and the widest the tabular may get for them (pt). */
interface LineSpec {
  columns: ReportColumn[];
  maxPt: number;
}

/** Runs of adjacent columns sharing a group: [group, first, last] with 0-based column positions (label column excluded). */
function groupSpans(cols: ReportColumn[]): { group: string | undefined; from: number; to: number }[] {
  const spans: { group: string | undefined; from: number; to: number }[] = [];
  cols.forEach((c, i) => {
    const last = spans.at(-1);
    if (last && c.group !== undefined && last.group === c.group) last.to = i;
    else spans.push({ group: c.group, from: i, to: i });
  });
  return spans;
}

/** Key of the row-label column in TexLayout.wrapPt. */
export const LABEL_KEY = '#label';

/** Columns of names (the row labels: methods; models; benchmarks): a name never breaks, except after a slash (org/model). */
const NAME_COLUMN = /^(model|benchmark|method)$/i;
const isNameColumn = (key: string) => key === LABEL_KEY || NAME_COLUMN.test(key);

const MARK = /[_.\-#@?=&]/;
/**
 * A token in the pieces a line may end between: after a slash (not between two: "https://"), and before
 * _ . - # @ ? = & (as a URL breaks, so a line never ends in a hyphen that reads as hyphenation; not
 * after another such mark, not inside a number like 3.5, not before closing punctuation). A name
 * (`name`) breaks only after a slash: "gpt-3.5-turbo-0613" stays whole.
 */
export function tokenPieces(tok: string, name = false): string[] {
  const chars = [...tok];
  const out: string[] = [];
  let cur = '';
  chars.forEach((ch, i) => {
    const prev = chars[i - 1] ?? '';
    const next = chars[i + 1] ?? '';
    const before =
      !name &&
      cur !== '' &&
      MARK.test(ch) &&
      !MARK.test(prev) &&
      prev !== '/' &&
      /[A-Za-z0-9]/.test(next) &&
      !(ch === '.' && /\d/.test(prev) && /\d/.test(next));
    if (before) {
      out.push(cur);
      cur = '';
    }
    cur += ch;
    if (ch === '/' && next !== '' && next !== '/') {
      out.push(cur);
      cur = '';
    }
  });
  if (cur) out.push(cur);
  return out;
}

/** The widest piece of any of the texts at 10pt: the narrowest a paragraph of them can be without a line overrunning it. */
function widestPiecePt(texts: readonly string[], name: boolean): number {
  let w = 0;
  for (const s of texts) for (const tok of s.split(/\s+/)) for (const p of tokenPieces(tok, name)) w = Math.max(w, textWidthPt(p));
  return w;
}

/**
 * The text of a cell that wraps in a paragraph `widthPt` wide at `size`: words break only at spaces
 * (the float turns TeX's hyphenation off: \hyphenpenalty, \exhyphenpenalty), and a token wider than
 * the paragraph only at its tokenPieces points.
 */
function wrappedText(s: string, name: boolean, widthPt: number, size: TexLayout['size']): string {
  return s
    .split(/(\s+)/)
    .map((tok) =>
      /^\s*$/.test(tok) || textWidthPt(tok) * SIZE_SCALE[size] * 1.01 <= widthPt
        ? texEscape(tok)
        : tokenPieces(tok, name).map(texEscape).join('\\allowbreak{}'),
    )
    .join('');
}

/** What the float sets before its tabulars when cells wrap: no hyphenation, no break after a hyphen. */
const NO_HYPHENATION = '\\hyphenpenalty=10000 \\exhyphenpenalty=10000';

interface ColumnWidth {
  key: string;
  /** Natural width at 10pt. */
  width: number;
  wrappable: boolean;
  /** The widest piece of its text (tokenPieces) at 10pt: it never wraps narrower. */
  minWidth: number;
}

/** The largest of many numbers (no spread: a table may have more rows than a call has arguments). */
function maxOf(values: Iterable<number>, start = 0): number {
  let m = start;
  for (const v of values) if (v > m) m = v;
  return m;
}

/**
 * Widths of a column's texts, by the rows they were measured on: a layout measures the same column of
 * the same rows many times (every font size, every way of cutting the columns into parts).
 */
const measured = new WeakMap<readonly ReportTable['rows'][number][], Map<string, { width: number; minWidth: number }>>();

function measure(rows: ReportTable['rows'], key: string, texts: () => string[], name: boolean): { width: number; minWidth: number } {
  let byKey = measured.get(rows);
  if (!byKey) measured.set(rows, (byKey = new Map<string, { width: number; minWidth: number }>()));
  let m = byKey.get(key);
  if (!m) {
    const all = texts();
    m = { width: maxOf(all.map(textWidthPt)), minWidth: widestPiecePt(all, name) };
    byKey.set(key, m);
  }
  return m;
}

/** Natural width of each column's content at 10pt (label first), before scaling and gaps. */
function naturalWidths(t: ReportTable, cols: ReportColumn[]): ColumnWidth[] {
  const label = measure(t.rows, `${LABEL_KEY}\u0000${t.rowHeader ?? ''}`, () => [...t.rows.map((r) => r.label), t.rowHeader ?? ''], true);
  return [
    { key: LABEL_KEY, ...label, wrappable: true },
    ...cols.map((c) => ({
      key: c.key,
      ...measure(
        t.rows,
        `${c.key}\u0000${c.label}\u0000${c.numeric ? 1 : 0}`,
        () => [c.label, ...t.rows.map((r) => cellText(r.cells[c.key] ?? null, c))],
        isNameColumn(c.key),
      ),
      wrappable: !c.numeric,
    })),
  ];
}

/** The indent of a line under a row (TexOptions.lineColumns), pt at 10pt: 1em. */
const LINE_INDENT_PT = 10;

/**
 * Estimated width (pt) of the tabular at a font size and column gap, from cmr10 advance widths;
 * columns in `wrapPt` are paragraphs of that width; `lines`: the lines under the rows, which widen
 * the tabular for an identifier that fits in lines.maxPt (text wraps in the width the tabular has).
 */
export function estimateWidthPt(
  t: ReportTable,
  cols: ReportColumn[],
  size: TexLayout['size'],
  tabcolsepPt: number,
  wrapPt: Record<string, number> = {},
  lines?: LineSpec,
): number {
  const k = SIZE_SCALE[size];
  const widths = naturalWidths(t, cols).map((c) => (wrapPt[c.key] !== undefined ? wrapPt[c.key] / k : c.width));
  // A group heading wider than its columns widens them (LaTeX puts the excess in the last one).
  for (const s of groupSpans(cols)) {
    if (s.group === undefined) continue;
    const spanned = widths.slice(s.from + 1, s.to + 2).reduce((a, b) => a + b, 0) + ((s.to - s.from) * 2 * tabcolsepPt) / k;
    const need = textWidthPt(s.group);
    if (need > spanned) widths[s.to + 1] += need - spanned;
  }
  // TFM widths are rounded here to 0.01pt: 0.5% more keeps the estimate at or above TeX's own.
  const content = widths.reduce((a, b) => a + b, 0) * k * 1.005;
  const width = content + (cols.length + 1) * 2 * tabcolsepPt;
  if (!lines?.columns.length) return width;
  return Math.max(width, widestLinePt(t, lines, size, tabcolsepPt) + 2 * tabcolsepPt);
}

/** The widths at 10pt of the identifier lines under the rows (widestLinePt), by rows and line columns. */
const lineWidths = new WeakMap<readonly ReportTable['rows'][number][], Map<string, number[]>>();

/**
 * The widest line under the rows (indent included) that gives one identifier (no space: a run id) and
 * fits on one line of lines.maxPt: the width a tabular is widened to for it (pt). Text with spaces
 * wraps in the width the tabular has.
 */
function widestLinePt(t: ReportTable, lines: LineSpec, size: TexLayout['size'], tabcolsepPt: number): number {
  const k = SIZE_SCALE[size] * 1.005;
  const key = lines.columns.map((c) => `${c.key}\u0000${c.label}`).join('\u0000');
  let byKey = lineWidths.get(t.rows);
  if (!byKey) lineWidths.set(t.rows, (byKey = new Map<string, number[]>()));
  let widths = byKey.get(key);
  if (!widths) {
    widths = t.rows
      .flatMap((r) => rowLines(r, lines.columns).filter((l) => !/\s/.test(l.text.trim())))
      .map((l) => textWidthPt(`${l.label}: ${l.text}`) + LINE_INDENT_PT);
    byKey.set(key, widths);
  }
  let best = 0;
  for (const w of widths) if (w * k + 2 * tabcolsepPt <= lines.maxPt) best = Math.max(best, w * k);
  return best;
}

/** The narrowest wrap width a text column is given (pt); below it the columns are set in several tabulars instead. */
const MIN_WRAP_PT = 50;

type Try = [TexLayout['env'], TexLayout['size'], number, number];

/** Across both columns, largest type first (what a table set in several tabulars may use). */
function wideTries(text: number): Try[] {
  return [
    ['table*', 'normalsize', 6, text],
    ['table*', 'small', 6, text],
    ['table*', 'small', 4, text],
    ['table*', 'footnotesize', 3, text],
  ];
}

/**
 * The first of `tries` the columns fit at; else \footnotesize across both columns with the long text
 * columns (row labels, model names, sources) wrapping, sharing what the other columns leave (each keeps
 * its natural width if it is narrower than its share, none under MIN_WRAP_PT or its widest piece);
 * null when even that is too wide.
 */
function fitColumns(t: ReportTable, cols: ReportColumn[], opts: TexOptions, tries: Try[], text: number): TexLayout | null {
  const lines: LineSpec = { columns: lineColumns(t, opts), maxPt: text };
  for (const [env, size, sep, limit] of tries) {
    const w = estimateWidthPt(t, cols, size, sep, {}, lines);
    if (w <= limit) return { env, size, tabcolsepPt: sep, widthPt: w, scale: false };
  }
  const size = 'footnotesize';
  const k = SIZE_SCALE[size] * 1.005;
  const natural = naturalWidths(t, cols).map((c) => ({
    ...c,
    width: c.width * k,
    floor: Math.max(MIN_WRAP_PT, Math.ceil(c.minWidth * k) + 1),
  }));
  const wrapping = natural.filter((c) => c.wrappable && c.width > c.floor).sort((a, b) => a.width - b.width);
  const fixed = natural.filter((c) => !wrapping.includes(c)).reduce((a, c) => a + c.width, 0);
  // Widths in proportion to the columns' natural widths (a long source or caveat column gets more room
  // than a model name, so rows stay as short as they can).
  // (estimateWidthPt adds 0.5% to every width: so does the budget.)
  let budget = (text - (cols.length + 1) * 2 * 3) / 1.005 - fixed - 1;
  const wrapPt: Record<string, number> = {};
  let pool = [...wrapping];
  while (pool.length) {
    const total = pool.reduce((a, c) => a + c.width, 0);
    const share = (c: (typeof pool)[number]) => (budget * c.width) / total;
    const settled = pool.filter((c) => share(c) >= c.width || share(c) < c.floor);
    if (!settled.length) {
      for (const c of pool) wrapPt[c.key] = Math.floor(share(c));
      break;
    }
    for (const c of settled) {
      const w = share(c) >= c.width ? Math.floor(c.width) : c.floor;
      wrapPt[c.key] = w;
      budget -= w;
    }
    pool = pool.filter((c) => !settled.includes(c));
  }
  const ok = wrapping.length > 0 && wrapping.every((c) => wrapPt[c.key] >= c.floor);
  if (ok) {
    const w = estimateWidthPt(t, cols, size, 3, wrapPt, lines);
    if (w <= text) return { env: 'table*', size, tabcolsepPt: 3, widthPt: w, wrapPt, scale: false };
  }
  return null;
}

/**
 * The columns in the pieces a part may take: a column group whole, a score with its interval (the
 * "95% CI" column after it); `split`: a group in its pieces too.
 */
function columnUnits(cols: ReportColumn[], split = false): ReportColumn[][] {
  const units: ReportColumn[][] = [];
  for (const c of cols) {
    const last = units.at(-1);
    const prev = last?.at(-1);
    const sameGroup = !split && c.group !== undefined && prev?.group === c.group;
    const itsInterval = prev !== undefined && c.key === `${prev.key}.ci`;
    if (last && (sameGroup || itsInterval)) last.push(c);
    else units.push([c]);
  }
  return units;
}

/**
 * Columns too many for the page side by side, in the fewest tabulars that each fit across both columns
 * (one under the other, each with the row labels and the columns that identify rows), as even as they
 * can be; null when one column group (or one column) alone is too wide.
 */
function chunkColumns(t: ReportTable, cols: ReportColumn[], opts: TexOptions, text: number): TexLayout | null {
  const lines: LineSpec = { columns: lineColumns(t, opts), maxPt: text };
  // Columns that tell rows apart with their labels (Table 1's Model: "CoT" of model a and of model b)
  // come first in every part.
  const lead = cols.filter((c) => c.identifies);
  const rest = cols.filter((c) => !c.identifies);
  const fits = (part: ReportColumn[]) => fitColumns(t, part, opts, wideTries(text), text);
  const fitsAlone = (u: ReportColumn[]) => fits([...lead, ...u]);
  let units = columnUnits(rest);
  if (units.some((u) => !fitsAlone(u))) units = columnUnits(rest, true);
  if (units.length < 2 || units.some((u) => !fitsAlone(u))) return null;
  const m = units.length;
  const slice = (i: number, j: number) => [...lead, ...units.slice(i, j).flat()];
  // Of the partitions into the fewest parts, the one with (in this order) the fewest parts whose text
  // columns must wrap, the fewest cuts between two like units (two scores, two text columns of no
  // group: a cut between text and scores, or between two column groups, keeps what is read together),
  // and the narrowest widest part.
  const kind = (u: ReportColumn[]) => `${u[0].numeric ? 'n' : 't'}|${u[0].group ?? ''}`;
  const cut = (i: number) => (i > 0 && i < m && kind(units[i - 1]) === kind(units[i]) ? 1 : 0);
  type Cost = [wraps: number, cuts: number, width: number];
  const less = (a: Cost, b: Cost) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
  const memo = new Map<string, Cost | null>();
  const span = (i: number, j: number): Cost | null => {
    const key = `${i}:${j}`;
    if (!memo.has(key)) {
      const part = slice(i, j);
      const l = fits(part);
      memo.set(key, l && [l.wrapPt ? 1 : 0, cut(i), estimateWidthPt(t, part, 'footnotesize', 3, {}, lines)]);
    }
    return memo.get(key)!;
  };
  // How far a part starting at unit i may reach: adding columns never narrows a part, so past the first
  // span that does not fit none does (measured once, not for every pair of cuts).
  const reach = units.map((_, i) => {
    let j = i + 1;
    while (j < m && span(i, j + 1)) j++;
    return j;
  });
  // The fewest parts there can be: as many as filling each part as far as it reaches takes.
  let fewest = 0;
  for (let i = 0; i < m; i = reach[i]) fewest++;
  // best[p][j]: the least cost of setting the first j units in p parts (null: cannot).
  for (let k = Math.max(2, fewest); k <= m; k++) {
    const best: (Cost | null)[][] = [[[0, 0, 0], ...Array<null>(m).fill(null)]];
    const from: number[][] = [[]];
    for (let p = 1; p <= k; p++) {
      best.push(Array<Cost | null>(m + 1).fill(null));
      from.push(Array<number>(m + 1).fill(-1));
      for (let j = p; j <= m; j++)
        for (let i = p - 1; i < j; i++) {
          if (j > reach[i]) continue;
          const before = best[p - 1][i];
          const s = before && span(i, j);
          if (!before || !s) continue;
          const c: Cost = [before[0] + s[0], before[1] + s[1], Math.max(before[2], s[2])];
          const cur = best[p][j];
          if (!cur || less(c, cur) < 0) {
            best[p][j] = c;
            from[p][j] = i;
          }
        }
    }
    if (!best[k][m]) continue;
    const bounds: [number, number][] = [];
    for (let p = k, j = m; p > 0; p--) {
      const i = from[p][j];
      bounds.unshift([i, j]);
      j = i;
    }
    const parts = bounds.map(([i, j]) => slice(i, j));
    // The largest type every part fits at without wrapping; else \footnotesize, each part wrapping as it needs.
    const common = wideTries(text).find(([, size, sep, limit]) => parts.every((p) => estimateWidthPt(t, p, size, sep, {}, lines) <= limit));
    const layouts = parts.map((p) =>
      common
        ? {
            env: 'table*' as const,
            size: common[1],
            tabcolsepPt: common[2],
            widthPt: estimateWidthPt(t, p, common[1], common[2], {}, lines),
            scale: false,
          }
        : fits(p)!,
    );
    const [size, sep] = common ? [common[1], common[2]] : (['footnotesize', 3] as const);
    return {
      env: 'table*',
      size,
      tabcolsepPt: sep,
      widthPt: Math.max(...layouts.map((l) => l.widthPt)),
      scale: false,
      parts: parts.map((p, i) => ({ keys: p.map((c) => c.key), layout: { ...layouts[i], size, tabcolsepPt: sep } })),
    };
  }
  return null;
}

/** Layouts chosen, by table and options: the preamble line and the float both ask (a wide table's takes seconds). */
const layouts = new WeakMap<ReportTable, Map<string, TexLayout>>();

/** The first layout that fits, narrowest float first; a 4% margin covers kerning and rounding. */
export function chooseLayout(t: ReportTable, opts: TexOptions = {}): TexLayout {
  let byOpts = layouts.get(t);
  if (!byOpts) layouts.set(t, (byOpts = new Map<string, TexLayout>()));
  const key = JSON.stringify(opts);
  let layout = byOpts.get(key);
  if (!layout) byOpts.set(key, (layout = layoutOf(t, opts)));
  return layout;
}

function layoutOf(t: ReportTable, opts: TexOptions): TexLayout {
  const cols = paperColumns(t, opts);
  const column = (opts.columnWidthPt ?? COLUMN_WIDTH_PT) * 0.96;
  const text = (opts.textWidthPt ?? TEXT_WIDTH_PT) * 0.96;
  const tries: Try[] = [
    ['table', 'normalsize', 6, column],
    ['table', 'small', 6, column],
    ['table', 'small', 4, column],
    ...wideTries(text),
  ];
  const single = fitColumns(t, cols, opts, tries, text);
  if (single) return single;
  // Still too wide: the columns in several tabulars, one under the other, rather than one scaled down.
  const parts = chunkColumns(t, cols, opts, text);
  if (parts) return parts;
  return {
    env: 'table*',
    size: 'footnotesize',
    tabcolsepPt: 3,
    widthPt: estimateWidthPt(t, cols, 'footnotesize', 3, {}, { columns: lineColumns(t, opts), maxPt: text }),
    scale: true,
  };
}

/** The tabular alone (booktabs rules, group headings with \multicolumn and \cmidrule); a layout in parts gives its tabulars one under the other. */
export function texTabular(t: ReportTable, opts: TexOptions = {}, layout: TexLayout = chooseLayout(t, opts)): string {
  if (layout.parts) return layout.parts.map((p) => texTabular(partTable(t, p.keys, opts), opts, p.layout)).join('\n\\par\\medskip\n');
  const cols = paperColumns(t, opts);
  const under = lineColumns(t, opts);
  const wrap = layout.wrapPt ?? {};
  // A wrapped cell is a top-aligned paragraph box in an l column (no array package needed, and the
  // row's \\ stays outside \raggedright's reach).
  const cell = (key: string, s: string) =>
    wrap[key] !== undefined
      ? `\\parbox[t]{${wrap[key]}pt}{\\raggedright ${wrappedText(s, isNameColumn(key), wrap[key], layout.size)}\\strut}`
      : texEscape(s);
  const spec = 'l' + cols.map((c) => (c.numeric && wrap[c.key] === undefined ? 'r' : 'l')).join('');
  const lines = [`\\begin{tabular}{${spec}}`, '\\toprule'];
  const spans = groupSpans(cols);
  if (spans.some((s) => s.group !== undefined)) {
    const heads = [''];
    const rules: string[] = [];
    for (const s of spans) {
      const n = s.to - s.from + 1;
      if (s.group === undefined) heads.push(...Array<string>(n).fill(''));
      else {
        heads.push(`\\multicolumn{${n}}{c}{${texEscape(s.group)}}`);
        rules.push(`\\cmidrule(lr){${s.from + 2}-${s.to + 2}}`);
      }
    }
    lines.push(heads.join(' & ') + ' \\\\', rules.join(' '));
  }
  // A line under a row: across the tabular, indented, its label in italics; a longer one a paragraph
  // as wide as the tabular (its columns, or its widest identifier line).
  const k = SIZE_SCALE[layout.size];
  const lineSpec: LineSpec = { columns: under, maxPt: (opts.textWidthPt ?? TEXT_WIDTH_PT) * 0.96 };
  const box = Math.max(
    estimateWidthPt(t, cols, layout.size, layout.tabcolsepPt, wrap) - 2 * layout.tabcolsepPt,
    widestLinePt(t, lineSpec, layout.size, 0),
  );
  const lineWidth = Math.floor(box - LINE_INDENT_PT * k);
  const line = (l: { label: string; text: string }) => {
    const text = `\\textit{${texEscape(l.label)}:} `;
    const fits = textWidthPt(`${l.label}: ${l.text}`) * k * 1.005 <= lineWidth;
    const body = fits
      ? text + texEscape(l.text)
      : `\\parbox[t]{${lineWidth}pt}{\\raggedright ${text}${wrappedText(l.text, false, lineWidth, layout.size)}\\strut}`;
    return `\\multicolumn{${cols.length + 1}}{l}{\\hspace{1em}${body}} \\\\`;
  };
  const corner = t.rowHeader === undefined ? '' : cell(LABEL_KEY, t.rowHeader);
  lines.push([corner, ...cols.map((c) => cell(c.key, c.label))].join(' & ') + ' \\\\', '\\midrule');
  let prev: string | undefined;
  for (const r of t.rows) {
    // Our rows and the paper's are separate blocks, with a rule between them.
    if (prev !== undefined && r.source !== prev) lines.push('\\midrule');
    prev = r.source;
    lines.push([cell(LABEL_KEY, r.label), ...cols.map((c) => cell(c.key, cellText(r.cells[c.key] ?? null, c)))].join(' & ') + ' \\\\');
    lines.push(...rowLines(r, under).map(line));
  }
  lines.push('\\bottomrule', '\\end{tabular}');
  return lines.join('\n');
}

/** The table with only these of its printed columns (and those it sets on lines under its rows). */
function partTable(t: ReportTable, keys: readonly string[], opts: TexOptions): ReportTable {
  const keep = new Set(keys);
  const printed = new Set(paperColumns(t, opts).map((c) => c.key));
  return { ...t, columns: t.columns.filter((c) => keep.has(c.key) || !printed.has(c.key)) };
}

/**
 * A caption without the number the title carries ("Table 1: HotpotQA and FEVER"): LaTeX numbers its
 * floats itself, so a paper shows one number. Which of the ReAct paper's tables or figures it
 * reproduces is said after the text ("HotpotQA and FEVER (as ReAct's Table 1)").
 */
export function captionText(title: string): string {
  const m = /^\s*(Table|Figure)\s+(\d+[a-z]?)\s*(?:\(([^)]*)\))?\s*[:.]?\s*/i.exec(title);
  if (!m) return title.trim();
  const rest = [m[3], title.slice(m[0].length).trim()].filter(Boolean).join(': ');
  const text = rest ? rest[0].toUpperCase() + rest.slice(1) : `${m[1]} ${m[2]}`;
  return `${text} (as ReAct's ${m[1][0].toUpperCase()}${m[1].slice(1).toLowerCase()} ${m[2]})`;
}

/** A token longer than this (a run id, a path, a URL) gets break points so it cannot overrun a line of a caption or a note. */
const LONG_TOKEN = 18;

/**
 * Text as LaTeX (texEscape) that may break inside long tokens: after / _ . - @ : , = and, in a run
 * of letters and digits longer than LONG_TOKEN, every 12 characters. (For captions and notes; a
 * table's cells break as wrappedText says.)
 */
export function texEscapeBreakable(s: string, long = LONG_TOKEN): string {
  return s
    .split(/(\s+)/)
    .map((tok) => {
      if (/^\s+$/.test(tok) || [...tok].length <= long) return texEscape(tok);
      // Words are left to TeX's hyphenation; a run with digits (a hash, an id) or past 20 characters is cut.
      const pieces = tok
        .split(/(?<=[/_.\-@:,=#])/)
        .flatMap((p) => (p.length > long && (/\d/.test(p) || p.length > 20) ? (p.match(/.{1,10}/gsu) ?? [p]) : [p]));
      return pieces.map(texEscape).join('\\allowbreak{}');
    })
    .join('');
}

/** Text with `code` spans (as the notes write commands) in typewriter type. */
export function texWithCode(s: string): string {
  return s
    .split(/(`[^`]+`)/)
    .map((part) => (/^`[^`]+`$/.test(part) ? `\\texttt{${texEscapeBreakable(part.slice(1, -1), 12)}}` : texEscapeBreakable(part)))
    .join('');
}

export function texNotes(notes: readonly string[]): string | null {
  const paras = notes
    .map((n) => n.trim())
    .filter(Boolean)
    .map((n) => texWithCode(/[.!?)`]$/.test(n) ? n : `${n}.`));
  if (!paras.length) return null;
  return ['\\par\\smallskip', '{\\footnotesize\\raggedright', ...paras.map((p) => `${p}\\par`), '}'].join('\n');
}

/** Text height of the usual two-column page (9in), pt. */
export const TEXT_HEIGHT_PT = 9 * 72.27;
/** Baseline skips of the article class at 10pt (pt). */
const BASELINE: Record<TexLayout['size'], number> = { normalsize: 12, small: 11, footnotesize: 9.5 };

/** Lines a text takes in a paragraph `widthPt` wide, filled word by word as wrappedText breaks it. */
function wrappedLines(s: string, name: boolean, widthPt: number, k: number): number {
  const pieces = s
    .split(/\s+/)
    .filter(Boolean)
    .flatMap((tok) =>
      textWidthPt(tok) * k * 1.01 <= widthPt
        ? [{ w: textWidthPt(tok) * k, space: true }]
        : tokenPieces(tok, name).map((p, i) => ({ w: textWidthPt(p) * k, space: i === 0 })),
    );
  let lines = 1;
  let used = 0;
  for (const p of pieces) {
    const add = used === 0 ? p.w : p.w + (p.space ? 3.33 * k : 0);
    if (used > 0 && used + add > widthPt) {
      lines++;
      used = p.w;
    } else used += add;
  }
  return lines;
}

/** Estimated height of one row (pt): the most lines any wrapped cell takes, with a margin for ragged breaks, and the lines under it. */
function rowHeightPt(
  t: ReportTable,
  r: ReportTable['rows'][number],
  layout: TexLayout,
  cols: ReportColumn[],
  opts: TexOptions = {},
): number {
  // Asked again and again while rows are cut into parts and parts packed into floats: once per row and layout.
  let byRow = heights.get(layout);
  if (!byRow) heights.set(layout, (byRow = new WeakMap()));
  let h = byRow.get(r);
  if (h === undefined) byRow.set(r, (h = measureRowPt(t, r, layout, cols, opts)));
  return h;
}
const heights = new WeakMap<TexLayout, WeakMap<ReportTable['rows'][number], number>>();

function measureRowPt(t: ReportTable, r: ReportTable['rows'][number], layout: TexLayout, cols: ReportColumn[], opts: TexOptions): number {
  if (layout.parts)
    return Math.max(
      ...layout.parts.map((p) =>
        rowHeightPt(
          t,
          r,
          p.layout,
          cols.filter((c) => p.keys.includes(c.key)),
          opts,
        ),
      ),
    );
  const k = SIZE_SCALE[layout.size];
  let lines = 1;
  for (const [key, w] of Object.entries(layout.wrapPt ?? {})) {
    const col = cols.find((c) => c.key === key);
    const text = key === LABEL_KEY ? r.label : col ? cellText(r.cells[key] ?? null, col) : '';
    lines = Math.max(lines, Math.ceil((textWidthPt(text) * k * 1.25) / w), wrappedLines(text, isNameColumn(key), w, k));
  }
  const lineWidth = layout.widthPt - 2 * layout.tabcolsepPt - LINE_INDENT_PT * k;
  for (const l of rowLines(r, lineColumns(t, opts))) lines += wrappedLines(`${l.label}: ${l.text}`, false, lineWidth, k);
  return lines * BASELINE[layout.size] + 1;
}

/** Estimated height of the notes block (pt) at a width. */
function notesHeightPt(notes: readonly string[], widthPt: number): number {
  return notes.reduce((a, n) => a + Math.ceil((textWidthPt(n) * SIZE_SCALE.footnotesize * 1.1) / widthPt) * BASELINE.footnotesize, 0) + 6;
}

/**
 * The table's rows in parts that each fit a float on a page (at most 0.68 of the text height: a top
 * float's share); one part when the whole fits. A long table (every run, every number published
 * elsewhere) becomes "part 1 of 3"..., the notes under the last part.
 */
export function splitRows(t: ReportTable, layout: TexLayout, opts: TexOptions = {}, reserveNotes = true): ReportTable['rows'][] {
  const cols = paperColumns(t, opts);
  const budget = (opts.textHeightPt ?? TEXT_HEIGHT_PT) * 0.68 - 3 * BASELINE[layout.size] - 30; // heading rows, caption, rules
  const width = layout.env === 'table' ? (opts.columnWidthPt ?? COLUMN_WIDTH_PT) : (opts.textWidthPt ?? TEXT_WIDTH_PT);
  const parts: ReportTable['rows'][] = [[]];
  let used = 0;
  for (const r of t.rows) {
    const h = rowHeightPt(t, r, layout, cols, opts);
    if (used + h > budget && parts.at(-1)!.length) {
      parts.push([]);
      used = 0;
    }
    parts.at(-1)!.push(r);
    used += h;
  }
  // The notes go under the last part: move rows on to a part of their own while they do not fit (a
  // table in several tabulars makes room for them by whole tabulars instead: packUnits).
  if (!reserveNotes) return parts;
  const notes = notesHeightPt(t.notes, width);
  const last = () => parts.at(-1)!.reduce((a, r) => a + rowHeightPt(t, r, layout, cols, opts), 0);
  while (last() + notes > budget && parts.at(-1)!.length > 1) {
    const moved: ReportTable['rows'] = [];
    while (last() + notes > budget && parts.at(-1)!.length > 1) moved.unshift(parts.at(-1)!.pop()!);
    parts.push(moved);
  }
  return parts;
}

/** One tabular of a float: some of the table's rows, in some of its columns. */
interface TexUnit {
  table: ReportTable;
  layout: TexLayout;
}

/** Estimated height of a tabular (pt): its heading rows, rows and rules. */
function unitHeightPt(u: TexUnit, opts: TexOptions): number {
  const cols = paperColumns(u.table, opts);
  const heading: ReportTable['rows'][number] = {
    label: u.table.rowHeader ?? '',
    source: 'ours',
    cells: Object.fromEntries(cols.map((c) => [c.key, c.label])),
  };
  const groups = cols.some((c) => c.group !== undefined) ? BASELINE[u.layout.size] + 2 : 0;
  const rows = u.table.rows.reduce((a, r) => a + rowHeightPt(u.table, r, u.layout, cols, opts), 0);
  return groups + rowHeightPt(u.table, heading, u.layout, cols, opts) + rows + 8;
}

/**
 * A table set in several tabulars (TexLayout.parts): each part of its rows in each part of its columns,
 * in that order, as many to a float as fit a top float's share of the page (the notes under the last).
 */
function packUnits(t: ReportTable, layout: TexLayout, opts: TexOptions): { floats: TexUnit[][]; tall: boolean } {
  const units = splitRows(t, layout, opts, false).flatMap((rows) =>
    layout.parts!.map((p) => ({ table: { ...partTable(t, p.keys, opts), rows }, layout: p.layout })),
  );
  const page = opts.textHeightPt ?? TEXT_HEIGHT_PT;
  const GAP = 8; // \medskip between two tabulars
  const height = (us: TexUnit[]) => us.reduce((a, u) => a + unitHeightPt(u, opts), 0) + GAP * Math.max(0, us.length - 1);
  const notes = notesHeightPt(t.notes, opts.textWidthPt ?? TEXT_WIDTH_PT);
  const budget = page * 0.68 - 30; // a top float's share, less the caption
  // The whole table in one float (one table number) when it fits a page: on a float page if it is taller than a top float may be.
  const whole = height(units) + notes;
  if (whole <= page * 0.9 - 30) return { floats: [units], tall: whole > budget };
  const floats: TexUnit[][] = [[]];
  for (const u of units) {
    if (floats.at(-1)!.length && height([...floats.at(-1)!, u]) > budget) floats.push([]);
    floats.at(-1)!.push(u);
  }
  // The notes go under the last float: move tabulars on to a float of their own while they do not fit.
  const last = () => floats.at(-1)!;
  if (height(last()) + notes > budget && last().length > 1) {
    const moved: TexUnit[] = [];
    while (height(last()) + notes > budget && last().length > 1) moved.unshift(last().pop()!);
    floats.push(moved);
  }
  return { floats, tall: false };
}

/**
 * One float (or, for a table taller than a page, one per part): short caption, the tabular in `table`
 * or `table*` (or its tabulars, one under the other, when its columns do not fit side by side), then
 * the notes; label tab:<id>.
 */
export function texTable(t: ReportTable, opts: TexOptions = {}): string {
  const layout = chooseLayout(t, opts);
  const label = t.id.replace(/[^A-Za-z0-9:._-]/g, '-');
  const { floats, tall } = layout.parts
    ? packUnits(t, layout, opts)
    : { floats: splitRows(t, layout, opts).map((rows): TexUnit[] => [{ table: { ...t, rows }, layout }]), tall: false };
  return floats
    .map((units, i) => {
      const caption = captionText(t.title) + (floats.length > 1 ? `, part ${i + 1} of ${floats.length}` : '');
      const last = i === floats.length - 1;
      // Paragraphs in cells or under rows: no hyphenation (set in a group, so the notes keep theirs).
      const noHyphens = units.some((u) => u.layout.wrapPt) || lineColumns(t, opts).length > 0;
      const group = layout.size !== 'normalsize' || noHyphens;
      const tabulars = units.map((u) => {
        const tabular = texTabular(u.table, opts, u.layout);
        return u.layout.scale ? `\\resizebox{\\textwidth}{!}{%\n${tabular}}` : tabular;
      });
      return [
        `\\begin{${layout.env}}[${opts.placement ?? (floats.length > 1 || tall ? 'tp' : 't')}]`,
        '\\centering',
        // A table in parts keeps one number: each continuation takes its first part's.
        i > 0 ? '\\addtocounter{table}{-1}' : null,
        `\\caption{${texEscapeBreakable(caption)}}`,
        `\\label{tab:${label}${i ? `-part${i + 1}` : ''}}`,
        '\\smallskip',
        group ? `{${layout.size === 'normalsize' ? '' : `\\${layout.size}`}` : null,
        layout.tabcolsepPt === 6 ? null : `\\setlength{\\tabcolsep}{${layout.tabcolsepPt}pt}`,
        noHyphens ? NO_HYPHENATION : null,
        tabulars.join('\n\\par\\medskip\n'),
        group ? '}' : null,
        last ? texNotes(t.notes) : null,
        `\\end{${layout.env}}`,
      ]
        .filter((l): l is string => l !== null)
        .join('\n');
    })
    .join('\n\n');
}

export function renderTexTables(tables: ReportTable[], opts: TexOptions = {}, extra: { preamble?: string[] } = {}): string {
  return [texHead(tables, opts, extra.preamble), ...tables.map((t) => texTable(t, opts))].join('\n\n') + '\n';
}

/** The first line: what the preamble needs for these tables, each set with its options (and whatever else is given). */
export function texHead(
  tables: readonly ReportTable[],
  opts: TexOptions | ((t: ReportTable) => TexOptions) = {},
  more: readonly string[] = [],
): string {
  const optsOf = typeof opts === 'function' ? opts : () => opts;
  const needsGraphicx = tables.some((t) => chooseLayout(t, optsOf(t)).scale);
  const preamble = ['\\usepackage{booktabs}', ...(needsGraphicx ? ['\\usepackage{graphicx}'] : []), ...more];
  return `% Generated by react-repro report --format tex. Preamble: ${preamble.join(' ')}`;
}
