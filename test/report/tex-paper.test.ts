// The LaTeX of a whole report in a two-column article, compiled with pdflatex and read back with
// pdftotext: plain ASCII in (−, Δ, → become math), no character pdflatex cannot set, no overfull box,
// no float taller than a page, one number per caption ("Table 1: HotpotQA ...", never "Table 1:
// Table 1:"), the notes under the tables, Figure 2 a pgfplots plot (its table only on request).
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
import { captionText, texEscape } from '../../src/report/tex.js';
import { PDFLATEX, PDFTOTEXT, PGFPLOTS, preambleOf } from '../support/pdflatex.js';
import { qa, qaRecords, writeRun } from './run-folders.js';
import type { EpisodeRecord } from '../../src/runlog/schema.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'report-tex-paper-'));
afterAll(() => {
  if (!process.env.KEEP_TMP) fs.rmSync(tmp, { recursive: true, force: true });
});
const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);

/** A results folder as the shipped experiments make it: Table 1 on both tasks (snapshot / live), a CoT-SC sweep, ALFWorld and WebShop with errors. */
function results(): string {
  const dir = path.join(tmp, 'results');
  if (fs.existsSync(dir)) return dir;
  const methods = ['standard', 'cot', 'cot-sc', 'act', 'react', 'cot-sc-react', 'react-cot-sc'];
  for (const [task, wiki, idx] of [
    ['hotpotqa', 'snapshot', range(0, 20)],
    ['fever', 'live', range(100, 120)],
  ] as const) {
    methods.forEach((method, k) => {
      const records =
        method === 'cot-sc'
          ? idx.map((i) =>
              qa(i, i % 3 ? 'right' : 'wrong', {
                samples: i % 3 ? [`gold ${i}`, 'x', `gold ${i}`, 'y', `gold ${i}`] : ['x', 'x', `gold ${i}`, 'y', 'x'],
              }),
            )
          : qaRecords(idx, 'rrwrrwrwrrwwrrrwrrwr'.slice(k) + 'rrrrrrr'.slice(0, k));
      writeRun(dir, {
        runId: `${task}-${method}-react500-gpt-3.5-turbo-instruct-0914-3f9c2a1b`,
        task,
        method,
        split: 'react500',
        model: 'gpt-3.5-turbo-instruct-0914',
        indices: [...idx],
        records,
        kind: method.includes('-react') || method.startsWith('react-') ? 'combination' : 'run',
        settings: { wiki, samples: 5 },
        environment: ['act', 'react', 'cot-sc-react', 'react-cot-sc'].includes(method) ? { kind: wiki } : null,
      });
    });
  }
  const ep = (idx: number, metrics: Record<string, number>, error: boolean, extra: Record<string, unknown> = {}) =>
    ({ ...qa(idx, error ? 'error' : 'right'), metrics, reward: error ? null : 1, ...extra }) as EpisodeRecord;
  const games = range(0, 25);
  writeRun(dir, {
    runId: 'alfworld-react-valid_unseen-gpt-3.5-turbo-instruct-0914-aa',
    task: 'alfworld',
    method: 'react',
    split: 'valid_unseen',
    model: 'gpt-3.5-turbo-instruct-0914',
    indices: games,
    records: games.map((i) =>
      ep(i, { success: i % 2 }, i >= 10, { task_type: ['put', 'clean', 'heat', 'cool', 'examine', 'puttwo'][i % 6] }),
    ),
  });
  writeRun(dir, {
    runId: 'webshop-react-test-gpt-3.5-turbo-instruct-0914-bb',
    task: 'webshop',
    method: 'react',
    split: 'test',
    model: 'gpt-3.5-turbo-instruct-0914',
    indices: games,
    records: games.map((i) => ep(i, { score: (i % 4) / 4, success: i % 4 === 3 ? 1 : 0 }, i === 7)),
  });
  return dir;
}

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
