// The page the LaTeX tables are laid out for (report --tex-page, --tex-page-size; README "Reports"):
// a template's type sizes, column and text widths and text height. The layout engine estimates in
// Computer Modern at the article class's 10pt sizes, and every estimate there scales linearly with the
// type: a page whose type is larger (11pt, or ICLR's 9pt \footnotesize) is given to it in those units
// (its widths and height divided by how much larger), and the lengths written out multiplied back.
import { UserError } from '../../errors.js';
import { BASELINE, SIZE_SCALE } from './font-metrics.js';
import type { TexLayout } from './layout.js';
import { COLUMN_WIDTH_PT, TEXT_HEIGHT_PT, TEXT_WIDTH_PT, type TexOptions } from './options.js';

/** The article class's type sizes (its 10pt, 11pt and 12pt options). */
export type TexFontSize = '10pt' | '11pt' | '12pt';

/** A class's or style's \normalsize, \small and \footnotesize: type size and baseline skip, pt. */
type Sizes = Record<TexLayout['size'], [type: number, baseline: number]>;

const ARTICLE: Record<TexFontSize, Sizes> = {
  '10pt': { normalsize: [10, 12], small: [9, 11], footnotesize: [8, 9.5] },
  '11pt': { normalsize: [10.95, 13.6], small: [10, 12], footnotesize: [9, 11] },
  '12pt': { normalsize: [12, 14.5], small: [10.95, 13.6], footnotesize: [10, 12] },
};

/** Width of Computer Modern at each size against cmr10 at 10pt (cmr9 and cmr8 are drawn wider than scaled cmr10; font-metrics.ts). */
const CM_WIDTH: Record<number, number> = { 8: 0.85, 9: 0.925, 10: 1, 10.95: 1.095, 12: 1.2 };

export interface TexPage {
  /** The preset's name, or the preset a --tex-page-size changed ("acl, textheight=22cm"). */
  name: string;
  font: TexFontSize;
  /** Each length as given (for the file's header) and in pt. */
  columnwidth: string;
  textwidth: string;
  textheight: string;
  columnWidthPt: number;
  textWidthPt: number;
  textHeightPt: number;
  /**
   * How much wider and taller than the layout engine's 10pt estimates (SIZE_SCALE, BASELINE) the
   * page sets its tables: the largest ratio over \normalsize, \small and \footnotesize of each of
   * its class's and style's sizes, so that every estimate, scaled, still errs wide and tall.
   */
  scale: { width: number; height: number };
}

function scaleOf(...sets: Sizes[]): TexPage['scale'] {
  const sizes = sets.flatMap((set) => (Object.keys(set) as TexLayout['size'][]).map((k) => ({ k, v: set[k] })));
  return {
    width: Math.max(...sizes.map(({ k, v }) => CM_WIDTH[v[0]] / SIZE_SCALE[k])),
    height: Math.max(...sizes.map(({ k, v }) => v[1] / BASELINE[k])),
  };
}

const IN = 72.27;
const CM = 72.27 / 2.54;

/**
 * The templates' pages, read from their style files:
 * - icml (the default): icml2024.sty, \textwidth 6.75in, \columnsep 0.25in (columns of 3.25in),
 *   \textheight 9.0in, the article class at 10pt (in Times, narrower than Computer Modern).
 * - acl (ACL, EMNLP, NAACL: acl-org/acl-style-files latex/acl.sty): geometry a4paper, margin=2.5cm
 *   (16cm by 24.7cm of text), \columnsep 0.6cm (columns of 7.7cm), \documentclass[11pt]{article};
 *   acl.sty sets \small and \footnotesize at 9pt on 10pt.
 * - iclr (iclr2024_conference.sty) and neurips (neurips_2024.sty): one column, \textwidth 5.5in,
 *   \textheight 9in, \normalsize 10pt on 11pt, \small and \footnotesize 9pt on 10pt (wider than the
 *   article class's 8pt \footnotesize); table and table* both the text width.
 */
const ONE_COLUMN_10PT: Sizes = { normalsize: [10, 11], small: [9, 10], footnotesize: [9, 10] };
export const TEX_PAGES: Record<string, TexPage> = {
  icml: page('icml', '10pt', scaleOf(ARTICLE['10pt']), [3.25, 'in'], [6.75, 'in'], [9, 'in']),
  acl: page(
    'acl',
    '11pt',
    scaleOf(ARTICLE['11pt'], { ...ARTICLE['11pt'], small: [9, 10], footnotesize: [9, 10] }),
    [7.7, 'cm'],
    [16, 'cm'],
    [24.7, 'cm'],
  ),
  iclr: page('iclr', '10pt', scaleOf(ARTICLE['10pt'], ONE_COLUMN_10PT), [5.5, 'in'], [5.5, 'in'], [9, 'in']),
  neurips: page('neurips', '10pt', scaleOf(ARTICLE['10pt'], ONE_COLUMN_10PT), [5.5, 'in'], [5.5, 'in'], [9, 'in']),
};
/** Other names of the same pages. */
const ALIASES: Record<string, string> = { emnlp: 'acl', naacl: 'acl' };

export const DEFAULT_TEX_PAGE = 'icml';

function page(name: string, font: TexFontSize, scale: TexPage['scale'], ...[c, t, h]: [number, 'in' | 'cm'][]): TexPage {
  const pt = ([v, u]: [number, 'in' | 'cm']) => v * (u === 'in' ? IN : CM);
  return {
    name,
    font,
    columnwidth: `${c[0]}${c[1]}`,
    textwidth: `${t[0]}${t[1]}`,
    textheight: `${h[0]}${h[1]}`,
    columnWidthPt: pt(c),
    textWidthPt: pt(t),
    textHeightPt: pt(h),
    scale,
  };
}

/** The preset --tex-page names. */
export function texPage(name: string): TexPage {
  // own keys only: "toString" or "__proto__" names no page
  const key = name.toLowerCase();
  const known = Object.hasOwn(ALIASES, key) ? ALIASES[key] : key;
  const p = Object.hasOwn(TEX_PAGES, known) ? TEX_PAGES[known] : undefined;
  if (!p) throw new UserError(`--tex-page: expected one of ${texPageNames().join(', ')}, got "${name}"`);
  return p;
}

export function texPageNames(): string[] {
  return [...Object.keys(TEX_PAGES), ...Object.keys(ALIASES)];
}

/** TeX's units, in pt. */
const UNITS: Record<string, number> = { pt: 1, bp: 72.27 / 72, in: IN, cm: CM, mm: CM / 10, pc: 12 };
const KEYS = ['columnwidth', 'textwidth', 'textheight', 'font'] as const;

/**
 * A page changed by --tex-page-size "columnwidth=7cm,textwidth=15cm,textheight=22cm,font=11pt": any
 * of the keys, each a length with its unit (pt, bp, in, cm, mm, pc; font 10pt, 11pt or 12pt).
 */
export function withPageSize(base: TexPage, spec: string): TexPage {
  const flag = '--tex-page-size';
  const expected = `expected key=length pairs separated by commas, keys ${KEYS.join(', ')}, e.g. columnwidth=7.7cm,textwidth=16cm,font=11pt`;
  const out: TexPage = { ...base };
  const given: (typeof KEYS)[number][] = [];
  const items = spec.split(',').map((s) => s.trim());
  if (items.some((s) => s === '')) throw new UserError(`${flag}: ${expected}, got "${spec}"`);
  for (const item of items) {
    const m = /^([a-z]+)\s*=\s*(.+)$/i.exec(item);
    const key = KEYS.find((k) => k === m?.[1]!.toLowerCase());
    if (!m || !key) throw new UserError(`${flag}: ${expected}, got "${item}"`);
    if (given.includes(key)) throw new UserError(`${flag}: ${key} given twice`);
    given.push(key);
    const value = m[2].trim();
    if (key === 'font') {
      if (!Object.hasOwn(ARTICLE, value))
        throw new UserError(`${flag}: font: expected 10pt, 11pt or 12pt (the article class's sizes), got "${value}"`);
      // The preset's own size keeps its style's sizes (ICLR's 9pt \footnotesize); another is the article class's.
      out.scale = value === base.font ? base.scale : scaleOf(ARTICLE[value as TexFontSize]);
      out.font = value as TexFontSize;
      continue;
    }
    const len = /^(\d+(?:\.\d+)?|\.\d+)\s*([a-z]+)$/i.exec(value);
    const unit = len?.[2]!.toLowerCase();
    if (!len || !unit || !Object.hasOwn(UNITS, unit))
      throw new UserError(
        `${flag}: ${key}: expected a length with its unit (${Object.keys(UNITS).join(', ')}), e.g. 7.7cm, got "${value}"`,
      );
    const pt = Number(len[1]) * UNITS[unit];
    if (!(pt > 0)) throw new UserError(`${flag}: ${key}: expected a length above 0, got "${value}"`);
    out[key] = `${len[1]}${unit}`;
    out[key === 'columnwidth' ? 'columnWidthPt' : key === 'textwidth' ? 'textWidthPt' : 'textHeightPt'] = pt;
  }
  if (out.columnWidthPt > out.textWidthPt + 1e-9)
    throw new UserError(`${flag}: columnwidth ${out.columnwidth} is wider than textwidth ${out.textwidth}`);
  out.name = `${base.name}, ${given.map((k) => `${k}=${out[k]}`).join(', ')}`;
  return out;
}

/** True for the page the writer has always laid out for: its output is unchanged. */
export function isDefaultPage(p: TexPage): boolean {
  return (
    p.scale.width === 1 &&
    p.scale.height === 1 &&
    p.columnWidthPt === COLUMN_WIDTH_PT &&
    p.textWidthPt === TEXT_WIDTH_PT &&
    p.textHeightPt === TEXT_HEIGHT_PT
  );
}

/** The page as the layout engine takes it: in 10pt units, and the factor its written lengths are set at. */
export function pageOptions(p: TexPage): Pick<TexOptions, 'columnWidthPt' | 'textWidthPt' | 'textHeightPt' | 'lengthScale'> {
  if (isDefaultPage(p)) return {};
  const s = p.scale;
  return {
    columnWidthPt: p.columnWidthPt / s.width,
    textWidthPt: p.textWidthPt / s.width,
    textHeightPt: p.textHeightPt / s.height,
    ...(s.width !== 1 ? { lengthScale: s.width } : {}),
  };
}

/** The header line that says what page the tables were laid out for (none for the default page, whose output is as it was). */
export function pageComment(p: TexPage): string | null {
  if (isDefaultPage(p)) return null;
  const cols = p.columnWidthPt < p.textWidthPt ? `columns ${p.columnwidth}, text ${p.textwidth} wide` : `one column ${p.textwidth} wide`;
  return `% Laid out for --tex-page ${p.name}: ${p.font} type, ${cols}, ${p.textheight} high; for another page run report --format tex again with its --tex-page.`;
}
