// LaTeX tables: booktabs structure, escaping, table vs table*, columns too many for the page in
// several tabulars (never one scaled down), wrapped cells that never break inside a name, lines under
// the rows (run ids, sources), and — where pdflatex exists — a real two-column compile with no
// Overfull \hbox and the estimated widths checked against TeX's own.
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { PDFLATEX } from '../support/pdflatex.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cellText, paperColumns } from '../../src/report/tex/columns.js';
import { renderTexTables } from '../../src/report/tex/document.js';
import { texEscape } from '../../src/report/tex/escape.js';
import { texTable } from '../../src/report/tex/float.js';
import { textWidthPt } from '../../src/report/tex/font-metrics.js';
import { chooseLayout, type TexLayout } from '../../src/report/tex/layout.js';
import { texNotes } from '../../src/report/tex/notes.js';
import { COLUMN_WIDTH_PT, TEXT_WIDTH_PT } from '../../src/report/tex/options.js';
import { texTabular } from '../../src/report/tex/tabular.js';
import { estimateWidthPt } from '../../src/report/tex/width-estimate.js';
import { tokenPieces } from '../../src/report/tex/wrap.js';
import type { ReportTable } from '../../src/report/model.js';
import { NASTY, table1, table3, table4, wideRuns } from './sample-tables.js';

const METHODS = ['Standard', 'CoT', 'CoT-SC', 'Act', 'ReAct', 'CoT-SC→ReAct', 'ReAct→CoT-SC'];

/** Table 1 as the report builds it for unmerged shards: a column group per task and shard (six for three shards of HotpotQA and FEVER). */
function table1Shards(shards = 3): ReportTable {
  const groups = ['HotpotQA EM', 'FEVER Acc'].flatMap((task) =>
    Array.from({ length: shards }, (_, s) => `${task} (react500, 20 items, shard ${s + 1}/${shards})`),
  );
  const columns = groups.flatMap((group, g) => [
    { key: `${g}.ours`, label: 'Ours', group, numeric: true },
    { key: `${g}.ours.ci`, label: '95% CI', group },
    { key: `${g}.n`, label: 'n', group },
    { key: `${g}.palm`, label: 'PaLM-540B', group, numeric: true },
    { key: `${g}.gpt3`, label: 'GPT-3', group, numeric: true },
  ]);
  const rows: ReportTable['rows'] = METHODS.map((label, m) => ({
    label,
    source: 'ours',
    cells: Object.fromEntries(
      groups.flatMap((_, g) => [
        [`${g}.ours`, 50 + m + g / 10],
        [`${g}.ours.ci`, `[${30 + m}.0, ${70 + g}.0]`],
        [`${g}.n`, '20'],
        [`${g}.palm`, 20 + m + g],
        [`${g}.gpt3`, label === 'ReAct' ? 30.8 : null],
      ]),
    ),
  }));
  rows.push({ label: 'Supervised SoTA', source: 'paper', cells: Object.fromEntries(groups.map((_, g) => [`${g}.palm`, 67.5 + g])) });
  return {
    id: 'table1',
    title: 'Table 1: HotpotQA and FEVER (model gpt-3.5-turbo-instruct-0914)',
    columns,
    rows,
    notes: [
      ...groups.map((g) => `${g}: split react500, n = 20 items scored in all 7 runs (of 20 planned).`),
      'Paper columns (class A): PaLM-540B: Table 1.',
    ],
  };
}

/** Numbers published elsewhere as the report lists them: long model names, file paths, URLs, caveats. */
function publishedLike(): ReportTable {
  const row = (label: string, model: string, items: string, source: string, caveat: string | null) => ({
    label,
    source: 'published' as const,
    cells: { benchmark: 'HotpotQA', model, metric: 'EM', value: 30.4, n: '500', items, class: 'B', source, caveat },
  });
  return {
    id: 'published-elsewhere',
    title: 'Published elsewhere',
    columns: [
      { key: 'benchmark', label: 'Benchmark' },
      { key: 'model', label: 'Model' },
      { key: 'metric', label: 'Metric' },
      { key: 'value', label: 'Value', numeric: true },
      { key: 'n', label: 'n' },
      { key: 'items', label: 'Items' },
      { key: 'class', label: 'Class' },
      { key: 'source', label: 'Source' },
      { key: 'caveat', label: 'Caveat' },
    ],
    rows: [
      row(
        'ReAct',
        'text-davinci-002',
        '500 random dev questions (Random(233))',
        'ysymyth/ReAct README.md @6bdb3a1',
        'Paper Table 5 says 30.8 (ysymyth/ReAct#17).',
      ),
      row(
        'ReAct',
        'gpt-3.5-turbo-0613, fine-tuned (FireAct)',
        "the paper's 500-question draw (generation.py: Random(233).shuffle over the dev set)",
        'anchen1011/FireAct trajs/hotpotqa_dev_0_500_ft_gpt-3.5-turbo-0613_princeton-nlp__7woQRsdi_0.0_2023-09-21-16-19-51.json @94c6189',
        'Temperature 0.0. Tool: Google search through SerpAPI, not the Wikipedia API.',
      ),
      row(
        'LATS',
        'Mistral-7B-Instruct-v0.2',
        'hotpot-qa-distractor-sample.joblib',
        'andyz245/LanguageAgentTreeSearch index.md @43901ce',
        null,
      ),
      row('Reflexion', 'gpt-3.5-turbo', '100 questions', 'https://github.com/noahshinn/reflexion/issues/43', 'See reflexion43-paper.'),
    ],
    notes: ['Numbers published for these benchmarks that are not in a column beside ours.'],
  };
}

/** The Runs table as the report builds it: the row header, a run id per row, many columns. */
function runsLike(): ReportTable {
  const t = wideRuns();
  return { ...t, id: 'runs', title: 'Runs', rowHeader: 'Benchmark / method' };
}

const TABLES = [table1(), table3(), table4(), wideRuns(), table1Shards()];

/** The column groups of a layout's parts, each part's in order. */
const partGroups = (t: ReportTable, l: TexLayout) =>
  l.parts!.map((p) => [...new Set(p.keys.map((k) => t.columns.find((c) => c.key === k)!.group))]);

describe('texEscape', () => {
  it('escapes every LaTeX special and maps what OT1 cannot show', () => {
    expect(texEscape('a & b % c $ d # e _ f { g } h ~ i ^ j \\ k')).toBe(
      'a \\& b \\% c \\$ d \\# e \\_ f \\{ g \\} h \\textasciitilde{} i \\textasciicircum{} j \\textbackslash{} k',
    );
    expect(texEscape('CoT-SC→ReAct')).toBe('CoT-SC$\\rightarrow$ReAct');
    expect(texEscape('<b> é ü ç 日本 —')).toBe('\\textless{}b\\textgreater{} {\\\'e} {\\"u} {\\cc} ?? ---');
    expect(texEscape('line\nbreak')).toBe('line break');
  });
});

describe('tokenPieces', () => {
  it('breaks a long identifier only where a URL may: after a slash, before _ . - (never inside a name or a number like 3.5)', () => {
    expect(tokenPieces('gpt-3.5-turbo-0613', true)).toEqual(['gpt-3.5-turbo-0613']);
    expect(tokenPieces('meta-llama/Llama-3.1-8B', true)).toEqual(['meta-llama/', 'Llama-3.1-8B']);
    expect(tokenPieces('https://github.com/a/b')).toEqual(['https://', 'github', '.com/', 'a/', 'b']);
    expect(tokenPieces('trajs/dev_0_gpt-3.5-turbo.json')).toEqual(['trajs/', 'dev', '_0', '_gpt', '-3.5', '-turbo', '.json']);
    expect(tokenPieces('(Random(233)).')).toEqual(['(Random(233)).']);
  });
});

describe('texTabular', () => {
  it('uses booktabs rules, group headings with \\multicolumn and \\cmidrule, one decimal, -- for nothing', () => {
    const s = texTabular(table1());
    expect(s).toMatch(/^\\begin\{tabular\}\{lrllrrllr\}\n\\toprule\n/);
    expect(s).toContain(
      ' & \\multicolumn{4}{c}{HotpotQA (EM)} & \\multicolumn{4}{c}{FEVER (Acc)} \\\\\n\\cmidrule(lr){2-5} \\cmidrule(lr){6-9}\n',
    );
    expect(s).toContain(' & Ours & 95\\% CI & n & PaLM & Ours & 95\\% CI & n & PaLM \\\\\n\\midrule\n');
    expect(s).toContain('CoT-SC$\\rightarrow$ReAct & 78.9 & [57.9, 94.7] & 19 & 34.2 & -- & -- & 0 & 64.6 \\\\');
    expect(s).toContain('ReAct$\\rightarrow$CoT-SC & 78.9 & [57.9, 94.7] & 19 & 35.1 & -- & -- & 0 & 62.0 \\\\');
    // The paper's row is its own block under a rule.
    expect(s).toContain('\\midrule\nSupervised SoTA & -- & -- & -- & 67.5 & -- & -- & -- & 89.5 \\\\\n\\bottomrule\n\\end{tabular}');
    expect(s).not.toContain('NaN');
  });

  it('leaves run ids out', () => {
    const t = wideRuns();
    expect(paperColumns(t).map((c) => c.key)).not.toContain('runId');
    const s = texTabular(t);
    expect(s).not.toContain('react-hotpotqa-offline500-3f9c2a1b7e');
    expect(s).not.toMatch(/& Run &/);
    // The long label wraps in a paragraph box, every special escaped.
    expect(s).toContain(texEscape(NASTY.slice(NASTY.indexOf(' & '))));
  });
});

describe('chooseLayout', () => {
  it('puts narrow tables in one column and wide ones across both', () => {
    expect(chooseLayout(table4())).toMatchObject({ env: 'table', size: 'normalsize', scale: false });
    expect(chooseLayout(table1()).env).toBe('table*');
    // The long row label and model names wrap in paragraph boxes rather than the whole table being scaled.
    const wide = chooseLayout(wideRuns());
    expect(wide).toMatchObject({ env: 'table*', size: 'footnotesize', scale: false });
    expect(Object.keys(wide.wrapPt ?? {}).sort()).toEqual(['#label', 'model', 'tokens']);
    expect(texTabular(wideRuns())).toMatch(/\n\\parbox\[t\]\{\d+pt\}\{\\raggedright ReAct\\strut\} & \\parbox/);
    for (const t of TABLES) {
      const l = chooseLayout(t);
      expect(l.widthPt).toBeLessThanOrEqual((l.env === 'table' ? COLUMN_WIDTH_PT : TEXT_WIDTH_PT) * 0.96);
    }
  });

  it('writes the float with caption, notes and label', () => {
    const s = texTable(table4());
    expect(s.split('\n')[0]).toBe('\\begin{table}[t]');
    // A short caption (the title), the notes as a \footnotesize block under the tabular.
    expect(s).toContain('\\caption{WebShop}\n\\label{tab:table4}\n');
    expect(s).toContain(
      '\\end{tabular}\n\\par\\smallskip\n{\\footnotesize\\raggedright\nfixed\\_\\allowbreak{}0.\\allowbreak{}.\\allowbreak{}fixed\\_\\allowbreak{}499.\\par\n}\n\\end{table}',
    );
    expect(s.trim().endsWith('\\end{table}')).toBe(true);
    expect(texTable(wideRuns())).toMatch(/^\\begin\{table\*\}\[t\][\s\S]*\\label\{tab:runs_detail\}\n[\s\S]*\\end\{table\*\}$/);
  });
});

describe('columns too many for the page', () => {
  it('Table 1 with six column groups: several tabulars of whole groups at a legible size, never scaled down; every cell and note kept', () => {
    const t = table1Shards(3);
    const l = chooseLayout(t);
    expect(l.scale).toBe(false);
    expect(l.env).toBe('table*');
    expect(['normalsize', 'small', 'footnotesize']).toContain(l.size);
    // Three tabulars of two whole groups each (a group is never split between two).
    expect(partGroups(t, l)).toEqual([0, 2, 4].map((g) => [t.columns[5 * g].group, t.columns[5 * g + 5].group]));
    for (const p of l.parts!) expect(p.layout.widthPt).toBeLessThanOrEqual(TEXT_WIDTH_PT * 0.96);
    const s = texTable(t);
    expect(s).not.toContain('\\resizebox');
    expect(s.match(/\\begin\{tabular\}/g)).toHaveLength(3);
    expect(s.match(/\\begin\{table\*\}/g)).toHaveLength(1);
    // Every row in every tabular; its cells across them, in order, are the row's cells.
    for (const r of t.rows) {
      const line = new RegExp(`^${texEscape(r.label).replace(/[\\$^{}()[\]|.*+?]/g, '\\$&')} & (.*) \\\\\\\\$`, 'gm');
      const cells = [...s.matchAll(line)].flatMap((m) => m[1]!.split(' & '));
      expect(cells).toEqual(paperColumns(t).map((c) => texEscape(cellText(r.cells[c.key] ?? null, c))));
    }
    // Each group heading once, the notes once, under the last tabular.
    for (const g of new Set(t.columns.map((c) => c.group!))) expect(s.split(`{${texEscape(g)}}`)).toHaveLength(2);
    expect(s.indexOf('{\\footnotesize\\raggedright')).toBeGreaterThan(s.lastIndexOf('\\end{tabular}'));
    expect(s.split(texNotes(t.notes)!)).toHaveLength(2);
  });

  it("a column that identifies rows (Table 1's Model) is repeated in every tabular: rows of two models stay apart", () => {
    const base = table1Shards(3);
    const models = ['model-a', 'model-b'];
    const t: ReportTable = {
      ...base,
      columns: [{ key: 'model', label: 'Model', identifies: true }, ...base.columns],
      rows: base.rows.flatMap((r) => models.map((m) => ({ ...r, cells: { ...r.cells, model: m } }))),
    };
    const l = chooseLayout(t);
    expect(l.scale).toBe(false);
    expect(l.parts!.length).toBeGreaterThan(1);
    for (const p of l.parts!) expect(p.keys[0]).toBe('model');
    // Still whole groups, each once and in order, each tabular within the page.
    const groups = partGroups(t, l).map((g) => g.filter(Boolean));
    expect(groups.flat()).toEqual([...new Set(base.columns.map((c) => c.group))]);
    for (const p of l.parts!) expect(p.layout.widthPt).toBeLessThanOrEqual(TEXT_WIDTH_PT * 0.96);
    const s = texTable(t);
    const tabulars = s.split('\\begin{tabular}').slice(1);
    expect(tabulars).toHaveLength(groups.length);
    for (const tab of tabulars) {
      expect(tab).toMatch(/^\{[^}]*\}\n\\toprule[\s\S]* & Model & /);
      for (const m of models) expect(tab.split(`CoT & ${m} & `)).toHaveLength(2);
    }
  });

  it('four groups: two tabulars; one or two groups: set exactly as before, in one tabular', () => {
    expect(partGroups(table1Shards(2), chooseLayout(table1Shards(2))).map((g) => g.length)).toEqual([2, 2]);
    expect(chooseLayout(table1()).parts).toBeUndefined();
    expect(texTable(table1())).toBe(
      [
        '\\begin{table*}[t]',
        '\\centering',
        '\\caption{HotpotQA and FEVER (Table 1)}',
        '\\label{tab:table1}',
        '\\smallskip',
        '\\begin{tabular}{lrllrrllr}',
        '\\toprule',
        ' & \\multicolumn{4}{c}{HotpotQA (EM)} & \\multicolumn{4}{c}{FEVER (Acc)} \\\\',
        '\\cmidrule(lr){2-5} \\cmidrule(lr){6-9}',
        ' & Ours & 95\\% CI & n & PaLM & Ours & 95\\% CI & n & PaLM \\\\',
        '\\midrule',
        'Standard & 78.9 & [57.9, 94.7] & 19 & 28.7 & -- & -- & 0 & 57.1 \\\\',
        'CoT & 78.9 & [57.9, 94.7] & 19 & 29.4 & -- & -- & 0 & 56.3 \\\\',
        'CoT-SC & 78.9 & [57.9, 94.7] & 19 & 33.4 & -- & -- & 0 & 60.4 \\\\',
        'Act & 78.9 & [57.9, 94.7] & 19 & 25.7 & -- & -- & 0 & 58.9 \\\\',
        'ReAct & 78.9 & [57.9, 94.7] & 19 & 27.4 & -- & -- & 0 & 60.9 \\\\',
        'CoT-SC$\\rightarrow$ReAct & 78.9 & [57.9, 94.7] & 19 & 34.2 & -- & -- & 0 & 64.6 \\\\',
        'ReAct$\\rightarrow$CoT-SC & 78.9 & [57.9, 94.7] & 19 & 35.1 & -- & -- & 0 & 62.0 \\\\',
        '\\midrule',
        'Supervised SoTA & -- & -- & -- & 67.5 & -- & -- & -- & 89.5 \\\\',
        '\\bottomrule',
        '\\end{tabular}',
        '\\par\\smallskip',
        '{\\footnotesize\\raggedright',
        'Split offline500, n = 19 questions scored in every method (the intersection).\\par',
        'PaLM-540B numbers: the paper, Table 1.\\par',
        '}',
        '\\end{table*}',
      ].join('\n'),
    );
  });
});

describe('wrapped cells and lines under the rows', () => {
  it('published numbers: a name is never broken, TeX hyphenates nothing, sources and caveats on lines of their own', () => {
    const t = publishedLike();
    const s = texTable(t, { lineColumns: ['source', 'caveat'] });
    expect(s).not.toContain('\\resizebox');
    // Model names and benchmark names whole (no break point inside), and TeX's hyphenation off.
    for (const r of t.rows) for (const word of String(r.cells.model).split(' ')) expect(s).toContain(texEscape(word));
    expect(s).toContain('\\hyphenpenalty=10000 \\exhyphenpenalty=10000');
    // No token is cut where no URL would break: "(Random(233))" and "Random(233).shuffle" stay whole.
    expect(s).toContain('(Random(233))');
    expect(s).toMatch(/Random\(233\)(\\allowbreak\{\})?\.shuffle/);
    expect(s).not.toMatch(/Random\(2\\allowbreak|Random\(233\\allowbreak/);
    // Source and caveat under the row, labelled; an empty caveat left out.
    expect(s).toContain('\\textit{Source:} ysymyth/ReAct README.md @6bdb3a1');
    expect(s).toContain('\\textit{Caveat:} Paper Table 5 says 30.8');
    expect(s.match(/\\textit\{Caveat:\}/g)).toHaveLength(3);
    expect(s).not.toMatch(/& Source &|& Caveat &/);
  });

  it('a tabular is at least as wide as its widest identifier line, whichever row it is under', () => {
    const row = (label: string, id: string): ReportTable['rows'][number] => ({ label, source: 'ours', cells: { n: 1, runId: id } });
    const t: ReportTable = {
      id: 'ids',
      title: 'Ids',
      columns: [
        { key: 'n', label: 'n', numeric: true },
        { key: 'runId', label: 'Run' },
      ],
      rows: [row('A', 'hotpotqa-react-offline500-a-very-long-model-name-3f9c2a1b7e'), row('B', 'x')],
      notes: [],
    };
    const lines = { columns: [t.columns[1]], maxPt: TEXT_WIDTH_PT * 0.96 };
    const long = textWidthPt('Run: hotpotqa-react-offline500-a-very-long-model-name-3f9c2a1b7e') * 1.005;
    expect(estimateWidthPt(t, [t.columns[0]], 'normalsize', 6, {}, lines)).toBeGreaterThan(long);
  });

  it('the Runs table: its row header and every run id, whole, on a line under its row', () => {
    const t = runsLike();
    const s = texTable(t, { lineColumns: ['runId'] });
    // The corner cell is the row header, as in Markdown and HTML (here in a wrapped label column).
    expect(s).toMatch(/\\toprule\n\\parbox\[t\]\{\d+pt\}\{\\raggedright Benchmark \/ method\\strut\} & /);
    expect(s).toContain('\\multicolumn{9}{l}{\\hspace{1em}\\textit{Run:} react-hotpotqa-offline500-3f9c2a1b7e} \\\\');
    expect(s).toContain('\\textit{Run:} x}');
    expect(s).not.toContain('\\resizebox');
  });
});

describe.skipIf(!PDFLATEX)('pdflatex, two-column article', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'react-tex-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("compiles with no Overfull \\hbox, and the width estimates are never below TeX's", () => {
    // Each table's natural width as TeX measures it, at the layout's size and column gap.
    // (A table set in several tabulars: each of them.)
    const pieces = TABLES.flatMap((t) => {
      const l = chooseLayout(t);
      return l.parts
        ? l.parts.map((p, i) => ({
            t: { ...t, id: `${t.id}-${i}`, columns: t.columns.filter((c) => p.keys.includes(c.key)) },
            l: p.layout,
          }))
        : [{ t, l }];
    });
    const measure = pieces
      .map(
        ({ t, l }) =>
          `{\\${l.size}\\setlength{\\tabcolsep}{${l.tabcolsepPt}pt}\\sbox0{${texTabular(t, {}, l)}}\\typeout{WIDTH ${t.id} \\the\\wd0}}`,
      )
      .join('\n');
    const filler = 'Text of the paper around the tables. '.repeat(40);
    const doc = [
      '\\documentclass[twocolumn]{article}',
      '\\usepackage[paperwidth=8.5in,paperheight=11in,textwidth=6.75in,columnsep=0.25in,textheight=9in]{geometry}',
      '\\usepackage{booktabs}',
      '\\usepackage{graphicx}',
      '\\begin{document}',
      measure,
      `\\typeout{COLUMNWIDTH \\the\\columnwidth}`,
      renderTexTables(TABLES),
      filler,
      filler,
      filler,
      '\\end{document}',
    ].join('\n');
    fs.writeFileSync(path.join(dir, 'paper.tex'), doc);
    execFileSync(PDFLATEX!, ['-interaction=nonstopmode', '-halt-on-error', 'paper.tex'], { cwd: dir, stdio: 'pipe', timeout: 120_000 });
    const log = fs.readFileSync(path.join(dir, 'paper.log'), 'latin1');
    expect(fs.existsSync(path.join(dir, 'paper.pdf'))).toBe(true);
    expect(log).not.toMatch(/Overfull \\hbox/);
    expect(log).not.toMatch(/^! /m);
    expect(log).toMatch(/COLUMNWIDTH 234\.8/); // 3.25in in a 6.75in two-column page
    for (const { t, l } of pieces) {
      const m = new RegExp(`WIDTH ${t.id} ([0-9.]+)pt`).exec(log);
      expect(m, t.id).not.toBeNull();
      const actual = Number(m![1]);
      const est = estimateWidthPt(t, paperColumns(t), l.size, l.tabcolsepPt, l.wrapPt);
      expect(est, `${t.id}: estimate ${est} vs TeX ${actual}`).toBeGreaterThanOrEqual(actual);
      expect(est, `${t.id}: estimate ${est} vs TeX ${actual}`).toBeLessThanOrEqual(actual * 1.25);
    }
  });
});
