// The LaTeX of a whole report in a two-column article, compiled with pdflatex and read back with
// pdftotext: plain ASCII in (−, Δ, → become math), no character pdflatex cannot set, no overfull box,
// no float taller than a page, one number per caption ("Table 1: HotpotQA ...", never "Table 1:
// Table 1:"), the notes under the tables, Figure 2 a pgfplots plot (its table only on request).
// A report with Table 1 in six column groups (unmerged shards), every number published elsewhere and
// dozens of runs stays legible: nothing scaled below 7pt type (word heights read back with
// pdftotext -bbox), no name or identifier broken across lines, the run ids there as in Markdown.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { benchmarkNames, getBenchmark } from '../../src/benchmarks/registry.js';
import { buildReport } from '../../src/report/build.js';
import { loadRuns } from '../../src/report/load.js';
import { renderTex } from '../../src/report/render-tex.js';
import { captionText } from '../../src/report/tex/caption.js';
import { texEscape } from '../../src/report/tex/escape.js';
import { texPage } from '../../src/report/tex/page.js';
import { PDFLATEX, PDFTOTEXT, PGFPLOTS, preambleOf } from '../support/pdflatex.js';
import { qaRecords, writeRun } from './run-folders.js';
import { writeShippedResults } from './shipped-results.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'report-tex-paper-'));
afterAll(() => {
  if (!process.env.KEEP_TMP) fs.rmSync(tmp, { recursive: true, force: true });
});
const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);

/** A results folder as the shipped experiments make it (shipped-results.ts). */
const results = () => writeShippedResults(path.join(tmp, 'results'));

/** Three unmerged shards of each task, as a sharded run leaves them before `merge`: Table 1 has six column groups. */
function sharded(): string {
  const dir = path.join(tmp, 'sharded');
  if (fs.existsSync(dir)) return dir;
  const methods = ['standard', 'cot', 'cot-sc', 'act', 'react', 'cot-sc-react', 'react-cot-sc'];
  for (const [task, wiki, base] of [
    ['hotpotqa', 'snapshot', 0],
    ['fever', 'live', 100],
  ] as const)
    for (let s = 0; s < 3; s++) {
      const idx = range(base + 20 * s, base + 20 * s + 20);
      methods.forEach((method, k) =>
        writeRun(dir, {
          runId: `${task}-${method}-react500-gpt-3.5-turbo-instruct-0914-${s + 1}of3-${(0x3f9c2a1b + 7 * s + k).toString(16)}`,
          task,
          method,
          split: 'react500',
          shard: `${s + 1}/3`,
          model: 'gpt-3.5-turbo-instruct-0914',
          indices: idx,
          records: qaRecords(idx, 'rrwrrwrwrrwwrrrwrrwr'.slice(k) + 'rrrrrrr'.slice(0, k)),
          kind: method.includes('-react') || method.startsWith('react-') ? 'combination' : 'run',
          settings: { wiki, samples: 5 },
          environment: ['act', 'react', 'cot-sc-react', 'react-cot-sc'].includes(method) ? { kind: wiki } : null,
        }),
      );
    }
  return dir;
}

/** The pages of the templates (report --tex-page; tex/page.ts), as article and geometry set them. */
const PAGES: Record<string, string[]> = {
  icml: [
    '\\documentclass[twocolumn]{article}',
    '\\usepackage[paperwidth=8.5in,paperheight=11in,textwidth=6.75in,columnsep=0.25in,textheight=9in]{geometry}',
  ],
  acl: [
    '\\documentclass[11pt,twocolumn]{article}',
    '\\usepackage[T1]{fontenc}',
    '\\usepackage[a4paper,margin=2.5cm,columnsep=0.6cm]{geometry}',
  ],
  iclr: ['\\documentclass{article}', '\\usepackage[letterpaper,textwidth=5.5in,textheight=9in]{geometry}'],
};

/** pdflatex on LaTeX in a two-column article (the preamble the report asks for); the log, and the PDF read back with pdftotext. */
function compile(name: string, tex: string, body: string = tex, page: string[] = PAGES.icml!) {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'paper.tex'),
    [
      ...page,
      preambleOf(tex),
      '\\extrafloats{100}',
      '\\begin{document}',
      'Text of the paper around the tables and figures.',
      body,
      '\\end{document}',
    ].join('\n'),
  );
  execFileSync(PDFLATEX!, ['-interaction=nonstopmode', '-halt-on-error', 'paper.tex'], { cwd: dir, stdio: 'pipe', timeout: 180_000 });
  const pdftotext = (...args: string[]) => {
    execFileSync(PDFTOTEXT!, [...args, 'paper.pdf', 'out.txt'], { cwd: dir, stdio: 'pipe' });
    return fs.readFileSync(path.join(dir, 'out.txt'), 'utf8');
  };
  return {
    log: fs.readFileSync(path.join(dir, 'paper.log'), 'latin1'),
    /** The text in reading order, white space as one space. */
    text: pdftotext().replace(/\s+/g, ' '),
    /** The text laid out as on the page, line by line. */
    lines: pdftotext('-layout').split('\n'),
    /** Every word with the height of its box (pt): about 0.885 of the type size (8.85 for 10pt text, 7.08 for \footnotesize). */
    words: [...pdftotext('-bbox').matchAll(/yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)</g)].map((m) => ({
      word: m[3]!,
      height: Number(m[2]) - Number(m[1]),
    })),
  };
}

/** The floats of a table (all its parts) in the report's LaTeX. */
const floatsOf = (tex: string, id: string) =>
  [...tex.matchAll(/\\begin\{table\*?\}[\s\S]*?\\end\{table\*?\}/g)]
    .map((m) => m[0])
    .filter((f) => f.includes(`\\label{tab:${id}}`) || f.includes(`\\label{tab:${id}-part`));

describe('texEscape and captions', () => {
  it('sets −, Δ, →, ≤, ·, § in math or macros; everything written is ASCII', () => {
    expect(texEscape('ReAct − Act: Δ 3.5 ≤ 4 · 2 → §4')).toBe('ReAct $-$ Act: $\\Delta$ 3.5 $\\le$ 4 $\\cdot$ 2 $\\rightarrow$ \\S{}4');
    expect(texEscape('"quoted" and --flag')).toBe("``quoted'' and -{}-flag");
  });

  it("one number per caption: LaTeX numbers the float, the paper's number is said after the text", () => {
    expect(captionText('Table 1: HotpotQA and FEVER (model m)')).toBe("HotpotQA and FEVER (model m) (as ReAct's Table 1)");
    expect(captionText('Table 2 (automatic tags): HotpotQA')).toBe("Automatic tags: HotpotQA (as ReAct's Table 2)");
    expect(captionText('Figure 2: FEVER Acc vs CoT-SC samples')).toBe("FEVER Acc vs CoT-SC samples (as ReAct's Figure 2)");
    expect(captionText('Runs')).toBe('Runs');
  });
});

describe.skipIf(!PDFLATEX || !PDFTOTEXT || !PGFPLOTS)('the whole report in a two-column article (pdflatex, pdftotext)', () => {
  it('compiles clean: no overfull box, no missing character, no float too large, one caption number; Figure 2 is a plot', () => {
    const c = buildReport(loadRuns([results()], { warn: () => {} }), benchmarkNames().map(getBenchmark));
    const tex = renderTex(c);
    // Plain ASCII for pdflatex.
    expect(tex).toMatch(/^[\x09\x0a\x20-\x7e]*$/);
    expect(tex).toContain('ReAct $-$ Act');
    expect(tex).toContain('\\begin{tikzpicture}');
    expect(tex).not.toMatch(/\\caption\{(Table|Figure) \d/);
    const dir = path.join(tmp, 'paper');
    fs.mkdirSync(dir, { recursive: true });
    const filler = 'Text of the paper around the tables and figures. '.repeat(30);
    fs.writeFileSync(
      path.join(dir, 'paper.tex'),
      [
        '\\documentclass[twocolumn]{article}',
        '\\usepackage[paperwidth=8.5in,paperheight=11in,textwidth=6.75in,columnsep=0.25in,textheight=9in]{geometry}',
        preambleOf(tex),
        '\\extrafloats{100}',
        // Report every character a font lacks.
        '\\tracinglostchars=2',
        '\\begin{document}',
        filler,
        tex,
        filler,
        '\\end{document}',
      ].join('\n'),
    );
    execFileSync(PDFLATEX!, ['-interaction=nonstopmode', '-halt-on-error', 'paper.tex'], { cwd: dir, stdio: 'pipe', timeout: 180_000 });
    const log = fs.readFileSync(path.join(dir, 'paper.log'), 'latin1');
    expect(log).not.toMatch(/^! /m);
    expect(log).not.toMatch(/Overfull \\[hv]box/);
    expect(log).not.toMatch(/Missing character/);
    expect(log).not.toMatch(/Float too large/);
    execFileSync(PDFTOTEXT!, ['paper.pdf', 'paper.txt'], { cwd: dir, stdio: 'pipe' });
    const text = fs.readFileSync(path.join(dir, 'paper.txt'), 'utf8').replace(/\s+/g, ' ');
    // Every caption has one number: never "Table 1: Table 1:".
    expect(text).not.toMatch(/(Table|Figure) \d+: (Table|Figure) \d/);
    expect(text).toContain('Table 1: HotpotQA and FEVER (model gpt-3.5-turbo-instruct-0914) (as ReAct’s Table 1)');
    expect(text).toContain('Figure 1: HotpotQA EM vs CoT-SC samples');
    expect(text).toContain('Figure 2: FEVER Acc vs CoT-SC samples');
    expect(text).not.toContain('Figure 3:');
    // The minus sign came out as one (math), not as "?".
    expect(text).toContain('ReAct − Act');
    expect(text).not.toMatch(/ReAct \? Act/);
    // Table 1: one row per method; the backends in a note under it.
    expect(text).toContain('Wikipedia differs between the columns');
    expect(text).not.toMatch(/wiki (live|snapshot)/);
  });

  it('Figure 2 as its table too, on request', () => {
    const c = buildReport(loadRuns([results()], { warn: () => {} }), benchmarkNames().map(getBenchmark));
    const plain = renderTex(c);
    const both = renderTex(c, { figureTables: true });
    expect(plain.match(/\\begin\{tikzpicture\}/g)).toHaveLength(2);
    expect(both.match(/\\begin\{tikzpicture\}/g)).toHaveLength(2);
    expect(both.match(/\\label\{tab:figure2-/g)).toHaveLength(2);
    expect(plain).not.toMatch(/\\label\{tab:figure2-/);
  });
});

describe.skipIf(!PDFLATEX || !PDFTOTEXT || !PGFPLOTS)(
  'many column groups, every published number, every run: legible in a two-column paper',
  () => {
    let built: ReturnType<typeof buildReport> | undefined;
    const content = () => (built ??= buildReport(loadRuns([sharded()], { warn: () => {} }), benchmarkNames().map(getBenchmark)));

    it('nothing is scaled down: every word of the report is set at 7pt or more; Table 1 in several tabulars, every column group there once', () => {
      const c = content();
      const tex = renderTex(c);
      expect(tex).not.toContain('\\resizebox');
      expect(preambleOf(tex)).not.toContain('graphicx');
      const pdf = compile('legible', tex);
      expect(pdf.log).not.toMatch(/^! /m);
      expect(pdf.log).not.toMatch(/Overfull \\[hv]box/);
      expect(pdf.log).not.toMatch(/Float too large/);
      // A word's box is 0.885 of its type size high: 7pt type is 6.2pt (\footnotesize 7.08, the text 8.85).
      expect(pdf.words.filter((w) => w.height < 6.2).slice(0, 10)).toEqual([]);
      // Table 1: six column groups (a task's shards), in one float of three tabulars of two groups each.
      const table1 = c.tables.find((t) => t.id === 'table1')!;
      const groups = [...new Set(table1.columns.map((x) => x.group!))];
      expect(groups).toHaveLength(6);
      const floats = floatsOf(tex, table1.id);
      expect(floats).toHaveLength(1);
      const tabulars = floats[0]!.split('\\begin{tabular}').slice(1);
      expect(tabulars).toHaveLength(3);
      for (const tab of tabulars) expect(tab.match(/\\multicolumn\{\d+\}\{c\}/g)).toHaveLength(2);
      for (const g of groups) expect(pdf.text).toContain(g);
      for (const n of table1.notes) expect(pdf.text).toContain(n.slice(0, 50).replace(/'/g, '\u2019'));
    });

    it('published elsewhere: no model name broken, no line ends in a hyphen TeX put there; sources and caveats kept', () => {
      const c = content();
      const tex = renderTex(c);
      const published = c.sections.flatMap((s) => s.tables).find((t) => t.id === 'published-elsewhere')!;
      const pdf = compile('published', tex, floatsOf(tex, 'published-elsewhere').join('\n\n'));
      expect(pdf.log).not.toMatch(/Overfull \\[hv]box/);
      for (const r of published.rows) for (const word of String(r.cells.model).split(/\s+/)) expect(pdf.text).toContain(word);
      // The rows, not the notes under the last part (prose, which TeX hyphenates as any other).
      const notes = pdf.lines.findIndex((l) => /^\s*Numbers published for these benchmarks/.test(l));
      expect(notes).toBeGreaterThan(0);
      expect(pdf.lines.slice(0, notes).filter((l) => /[A-Za-z0-9]-\s*$/.test(l))).toEqual([]);
      expect(pdf.text).toContain('Source: Table 5, Yao et al., ReAct (ICLR 2023, arXiv 2210.03629)');
      expect(pdf.text).toContain('Caveat: ');
    });

    it.each(['acl', 'iclr'])('laid out for --tex-page %s and set in that page: no overfull box, nothing scaled', (name) => {
      const tex = renderTex(content(), { page: texPage(name) });
      expect(tex).not.toContain('\\resizebox');
      const pdf = compile(`page-${name}`, tex, tex, PAGES[name]);
      expect(pdf.log).not.toMatch(/^! /m);
      expect(pdf.log).not.toMatch(/Overfull \\hbox/);
      expect(pdf.words.filter((w) => w.height < 6.2).slice(0, 10)).toEqual([]);
    });

    it('runs: every run id, whole, under its row; the row header as in Markdown and HTML', () => {
      const c = content();
      const tex = renderTex(c);
      const pdf = compile('runs', tex, floatsOf(tex, 'runs').join('\n\n'));
      expect(pdf.log).not.toMatch(/Overfull \\[hv]box/);
      expect(pdf.text).toContain('Benchmark / method');
      const ids = c.runsTable.rows.map((r) => String(r.cells.run));
      expect(ids.length).toBeGreaterThan(40);
      for (const id of ids) expect(pdf.text).toContain(`Run: ${id}`);
    });
  },
);
