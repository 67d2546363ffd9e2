// The page the LaTeX tables are laid out for (report --tex-page, --tex-page-size): the templates'
// presets, lengths with units, one-line errors naming the flag, the default page's output unchanged,
// and the layout choosing other splits for ACL's 11pt columns and ICLR's one 5.5in column.
import { describe, expect, it } from 'vitest';
import { texPageOf } from '../../src/cli/commands/report.js';
import { UserError } from '../../src/errors.js';
import { chooseLayout } from '../../src/report/tex/layout.js';
import { COLUMN_WIDTH_PT, TEXT_HEIGHT_PT, TEXT_WIDTH_PT } from '../../src/report/tex/options.js';
import { pageComment, pageOptions, TEX_PAGES, texPage, withPageSize } from '../../src/report/tex/page.js';
import { texTable } from '../../src/report/tex/float.js';
import { table1, table4, wideRuns } from './sample-tables.js';

const CM = 72.27 / 2.54;
const message = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return (e as Error).message;
  }
  throw new Error('expected an error');
};

describe('--tex-page presets', () => {
  it("the default is ICML's two 3.25in columns at 10pt, given to the layout as before (no options)", () => {
    expect(texPageOf(undefined, undefined)).toBeUndefined();
    const icml = texPage('icml');
    expect([icml.columnWidthPt, icml.textWidthPt, icml.textHeightPt]).toEqual([COLUMN_WIDTH_PT, TEXT_WIDTH_PT, TEXT_HEIGHT_PT]);
    expect(pageOptions(icml)).toEqual({});
    expect(pageComment(icml)).toBeNull();
  });

  it('acl (and emnlp, naacl): two 7.7cm columns in 16cm at 11pt, given to the layout in 10pt units', () => {
    const acl = texPage('acl');
    expect(texPage('EMNLP')).toBe(acl);
    expect(texPage('naacl')).toBe(acl);
    expect(acl.font).toBe('11pt');
    expect(acl.columnWidthPt).toBeCloseTo(7.7 * CM, 6);
    expect(acl.textWidthPt).toBeCloseTo(16 * CM, 6);
    expect(acl.textHeightPt).toBeCloseTo(24.7 * CM, 6);
    const o = pageOptions(acl);
    // 10.95pt type: every width 1.095 times the 10pt estimate; the written lengths multiplied back.
    expect(o.lengthScale).toBe(1.095);
    expect(o.columnWidthPt).toBeCloseTo((7.7 * CM) / 1.095, 6);
    expect(o.textWidthPt).toBeCloseTo((16 * CM) / 1.095, 6);
    // Baselines grow more than the type (11pt \footnotesize: 11pt on 9.5pt).
    expect(o.textHeightPt).toBeCloseTo((24.7 * CM * 9.5) / 11, 6);
    expect(pageComment(acl)).toBe(
      '% Laid out for --tex-page acl: 11pt type, columns 7.7cm, text 16cm wide, 24.7cm high; for another page run report --format tex again with its --tex-page.',
    );
  });

  it('iclr and neurips: one 5.5in column (table and table* alike); their 9pt \\footnotesize counted', () => {
    for (const name of ['iclr', 'neurips']) {
      const p = texPage(name);
      expect(p.columnWidthPt).toBe(5.5 * 72.27);
      expect(p.textWidthPt).toBe(5.5 * 72.27);
      expect(p.textHeightPt).toBe(9 * 72.27);
      const o = pageOptions(p);
      expect(o.columnWidthPt).toBe(o.textWidthPt);
      // cmr9 at 9pt is 0.925 of cmr10; the layout's \footnotesize estimate is 0.86.
      expect(o.lengthScale).toBeCloseTo(0.925 / 0.86, 6);
      expect(pageComment(p)).toContain('one column 5.5in wide, 9in high');
    }
  });

  it('an unknown name is a one-line error naming the flag and the presets', () => {
    expect(message(() => texPage('acm'))).toBe('--tex-page: expected one of icml, acl, iclr, neurips, emnlp, naacl, got "acm"');
    expect(message(() => texPageOf(['acl', 'iclr'], undefined))).toBe('--tex-page: given more than once');
  });
});

describe('--tex-page-size', () => {
  it('changes the preset: lengths in pt, bp, in, cm, mm, pc; font 10pt, 11pt or 12pt', () => {
    const p = texPageOf('icml', 'columnwidth=3.3in, textwidth=7in,textheight=229mm')!;
    expect(p.columnWidthPt).toBeCloseTo(3.3 * 72.27, 6);
    expect(p.textWidthPt).toBeCloseTo(7 * 72.27, 6);
    expect(p.textHeightPt).toBeCloseTo(22.9 * CM, 6);
    expect(p.name).toBe('icml, columnwidth=3.3in, textwidth=7in, textheight=229mm');
    expect(pageOptions(p).lengthScale).toBeUndefined();
    expect(texPageOf(undefined, 'textwidth=400pt')!.textWidthPt).toBe(400);
    expect(texPageOf(undefined, 'textheight=54pc')!.textHeightPt).toBe(648);
    expect(texPageOf(undefined, 'textwidth=500bp')!.textWidthPt).toBeCloseTo(501.875, 6);
    const big = texPageOf('iclr', 'font=12pt')!;
    expect(big.font).toBe('12pt');
    expect(pageOptions(big).lengthScale).toBe(1.2);
    // A preset's own type size changes nothing: ICLR's 9pt \footnotesize still counts.
    expect(pageOptions(texPageOf('iclr', 'font=10pt')!)).toEqual(pageOptions(TEX_PAGES.iclr!));
    expect(texTable(table1(), pageOptions(texPageOf('iclr', 'font=10pt')!))).toBe(texTable(table1(), pageOptions(TEX_PAGES.iclr!)));
    // The default page's own numbers are the default page: output unchanged.
    expect(pageOptions(texPageOf('acl', 'font=10pt,columnwidth=3.25in,textwidth=6.75in,textheight=9in')!)).toEqual({});
  });

  it('a bad size is a one-line error naming the flag and the key', () => {
    expect(message(() => withPageSize(TEX_PAGES.icml!, 'textwidth=16'))).toBe(
      '--tex-page-size: textwidth: expected a length with its unit (pt, bp, in, cm, mm, pc), e.g. 7.7cm, got "16"',
    );
    expect(message(() => withPageSize(TEX_PAGES.icml!, 'textwidth=-3cm'))).toMatch(/^--tex-page-size: textwidth: expected a length/);
    expect(message(() => withPageSize(TEX_PAGES.icml!, 'textwidth=0cm'))).toBe(
      '--tex-page-size: textwidth: expected a length above 0, got "0cm"',
    );
    expect(message(() => withPageSize(TEX_PAGES.icml!, 'width=16cm'))).toBe(
      '--tex-page-size: expected key=length pairs separated by commas, keys columnwidth, textwidth, textheight, font, e.g. columnwidth=7.7cm,textwidth=16cm,font=11pt, got "width=16cm"',
    );
    expect(message(() => withPageSize(TEX_PAGES.icml!, 'textwidth=16cm,'))).toMatch(/^--tex-page-size: expected key=length pairs/);
    expect(message(() => withPageSize(TEX_PAGES.icml!, 'font=9pt'))).toBe(
      '--tex-page-size: font: expected 10pt, 11pt or 12pt (the article class\'s sizes), got "9pt"',
    );
    expect(message(() => withPageSize(TEX_PAGES.icml!, 'textwidth=3in'))).toBe(
      '--tex-page-size: columnwidth 3.25in is wider than textwidth 3in',
    );
    expect(message(() => withPageSize(TEX_PAGES.icml!, 'textwidth=7in,textwidth=6in'))).toBe('--tex-page-size: textwidth given twice');
    // Names an object has of its own kind (toString, __proto__) are no size, unit or page.
    for (const m of ['font=toString', 'font=__proto__', 'textwidth=3constructor'])
      expect(message(() => withPageSize(TEX_PAGES.icml!, m))).toMatch(/^--tex-page-size: (font|textwidth): expected/);
    for (const name of ['toString', '__proto__', 'hasOwnProperty'])
      expect(message(() => texPage(name))).toMatch(/^--tex-page: expected one of/);
    for (const m of ['textwidth=16', 'width=16cm', 'font=9pt']) expect(message(() => withPageSize(TEX_PAGES.icml!, m))).not.toContain('\n');
  });
});

describe('the layout on other pages', () => {
  it('the runs table: one tabular of wrapped cells across ICML text; stacked tabulars in the narrower ACL and ICLR text', () => {
    const icml = chooseLayout(wideRuns(), pageOptions(texPage('icml')));
    expect(icml).toMatchObject({ env: 'table*', size: 'footnotesize', scale: false });
    expect(icml.parts).toBeUndefined();
    expect(Object.keys(icml.wrapPt ?? {}).sort()).toEqual(['#label', 'model', 'tokens']);
    for (const name of ['acl', 'iclr']) {
      const o = pageOptions(texPage(name));
      const l = chooseLayout(wideRuns(), o);
      expect(l.scale).toBe(false);
      expect(l.parts?.map((p) => p.keys.length)).toEqual([7, 1]);
      for (const p of l.parts!) expect(p.layout.widthPt).toBeLessThanOrEqual(o.textWidthPt! * 0.96);
    }
  });

  it('Table 1: across both ICML columns; in the one ICLR column as a table at \\small', () => {
    expect(chooseLayout(table1(), pageOptions(texPage('icml')))).toMatchObject({ env: 'table*', size: 'normalsize' });
    expect(chooseLayout(table1(), pageOptions(texPage('iclr')))).toMatchObject({ env: 'table', size: 'small', tabcolsepPt: 4 });
    // Table 4 fits a column anywhere.
    for (const name of ['icml', 'acl', 'iclr']) expect(chooseLayout(table4(), pageOptions(texPage(name))).env).toBe('table');
  });

  it("lengths written for an 11pt page are the layout's times 1.095; at 10pt as they were", () => {
    const icml = texTable(wideRuns(), pageOptions(texPage('icml')));
    expect(icml).toBe(texTable(wideRuns()));
    expect(icml).toContain('\\setlength{\\tabcolsep}{3pt}');
    const opts = pageOptions(texPage('acl'));
    const acl = texTable(wideRuns(), opts);
    expect(acl).toContain(`\\setlength{\\tabcolsep}{${Math.round(3 * 1.095 * 100) / 100}pt}`);
    const boxes = [...acl.matchAll(/\\parbox\[t\]\{([\d.]+)pt\}/g)].map((m) => Number(m[1]));
    expect(boxes.length).toBeGreaterThan(0);
    // Each box holds what the layout wrapped for its width in 10pt units.
    for (const b of boxes) expect(b).toBeLessThanOrEqual(opts.textWidthPt! * 1.095);
  });
});
