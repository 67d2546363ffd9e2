// `react-repro report` through the real CLI on crafted run folders: a corrupted folder is skipped with
// one warning line; bad --out and conflicting flags are one-line errors; the format follows --out's
// extension (another extension needs --format); one score (15 of 19 = 78.9) prints the same in
// summary.csv and every format; Figure 2 with error episodes has no NaN anywhere; the Table 2 label
// sheet → labels → Table 2 flow; and the LaTeX of a real report compiles in a two-column paper with
// nothing overfull (where pdflatex exists), and laid out with --tex-page acl in an ACL page.
import { execFileSync } from 'node:child_process';
import { PDFLATEX, PGFPLOTS, preambleOf } from '../support/pdflatex.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../run/cli-helpers.js';
import { summarizeRun, summaryCsv } from '../../src/run/summary.js';
import { loadEpisodes } from '../../src/runlog/store.js';
import { parseLabelsCsv, labelsToCsv, SHEET_COLUMNS } from '../../src/report/error-tags.js';
import { qa, qaRecords, writeRun } from './run-folders.js';

let tmp: string;
let results: string;
const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'report-cli-'));
  results = path.join(tmp, 'results');
  const idx = range(0, 20);
  // ReAct: 15 right of the 19 scored (78.9), one infrastructure error (idx 19).
  writeRun(results, { runId: 'hotpotqa-react-x', method: 'react', indices: idx, records: qaRecords(idx, 'rrrrrrrrrrrrrrrwwwpe') });
  // CoT-SC with 3 samples per question, one error of its own (idx 18), and CoT.
  writeRun(results, {
    runId: 'hotpotqa-cot-sc-x',
    method: 'cot-sc',
    indices: idx,
    records: idx.map((i) =>
      i === 18
        ? qa(i, 'error')
        : qa(i, i % 3 === 0 ? 'wrong' : 'right', {
            samples: i % 3 === 0 ? ['nothing', `gold ${i}`, 'nothing'] : [`gold ${i}`, 'x', `gold ${i}`],
          }),
    ),
  });
  writeRun(results, { runId: 'hotpotqa-cot-x', method: 'cot', indices: idx, records: qaRecords(idx, 'rrrrrrrrrrwwwwwwwwww') });
  // Corrupted folders: a manifest that is not JSON, and an episodes.jsonl with a broken middle line.
  fs.mkdirSync(path.join(results, 'broken-manifest'));
  fs.writeFileSync(path.join(results, 'broken-manifest', 'manifest.json'), '{"runId": ');
  const bad = writeRun(results, { runId: 'broken-records', method: 'act', indices: [0, 1], records: qaRecords([0, 1], 'rr') });
  fs.writeFileSync(
    path.join(bad, 'episodes.jsonl'),
    JSON.stringify(qa(0, 'right')) + '\nnot json\n' + JSON.stringify(qa(1, 'right')) + '\n',
  );
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

// Reports of the same folders are the same: read-only invocations are run once (the CLI is slow to spawn).
const seen = new Map<string, ReturnType<typeof runCli>>();
const report = (args: string[]) => {
  const key = JSON.stringify(args);
  if (args.some((a) => a.startsWith('--label') || a === '--out')) return runCli(['report', results, ...args], { cwd: tmp });
  if (!seen.has(key)) seen.set(key, runCli(['report', results, ...args], { cwd: tmp }));
  return seen.get(key)!;
};

describe('report on crafted run folders', () => {
  it('skips a corrupted run folder with one warning line each and reports the rest', async () => {
    const r = await report([]);
    expect(r.code).toBe(0);
    const warnings = r.stderr.trim().split('\n');
    expect(warnings).toEqual([
      expect.stringMatching(/^react-repro: report: skipping .*broken-manifest: .*manifest\.json: not valid JSON/),
      expect.stringMatching(/^react-repro: report: skipping .*broken-records: .*episodes\.jsonl: line 2 is not an episode record/),
    ]);
    expect(r.stdout).toContain('## Table 1: HotpotQA and FEVER (model test-model)');
    expect(r.stdout).toContain('3 run(s) in 1 comparable set(s) of episodes.');
  });

  it('--out into a missing folder, a folder, and --format against the extension are one-line errors; the extension picks the format', async () => {
    const missing = await report(['--out', path.join(tmp, 'nope', 'r.md')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `react-repro: --out ${path.join(tmp, 'nope', 'r.md')}: the folder ${path.join(tmp, 'nope')} does not exist\n`,
    );
    const conflict = await report(['--format', 'md', '--out', path.join(tmp, 'x.html')]);
    expect(conflict.code).toBe(2);
    expect(conflict.stderr).toBe(
      `react-repro: --format md conflicts with --out ${path.join(tmp, 'x.html')} (a .html file): give one of them, or make them agree\n`,
    );
    expect(fs.existsSync(path.join(tmp, 'x.html'))).toBe(false);
    const html = await report(['--out', path.join(tmp, 'r.html')]);
    expect(html.code).toBe(0);
    expect(fs.readFileSync(path.join(tmp, 'r.html'), 'utf8')).toMatch(/^<!doctype html>/);
    const tex = await report(['--out', path.join(tmp, 'r.tex')]);
    expect(fs.readFileSync(path.join(tmp, 'r.tex'), 'utf8')).toMatch(/^% Generated by react-repro report --format tex/);
    expect(tex.code).toBe(0);
    // .txt is Markdown's plain text; a format the report does not write is an error unless --format names
    // one (test/report/report-out-names.test.ts).
    const text = await report(['--out', path.join(tmp, 'r.txt')]);
    expect(fs.readFileSync(path.join(tmp, 'r.txt'), 'utf8')).toMatch(/^# ReAct reproduction report/);
    expect(text.code).toBe(0);
    const other = await report(['--out', path.join(tmp, 'r.pdf')]);
    expect(other.code).toBe(2);
    expect(fs.existsSync(path.join(tmp, 'r.pdf'))).toBe(false);
    const told = await report(['--format', 'md', '--out', path.join(tmp, 'r.pdf')]);
    expect(fs.readFileSync(path.join(tmp, 'r.pdf'), 'utf8')).toMatch(/^# ReAct reproduction report/);
    expect(told.code).toBe(0);
  });

  it('a score is computed once and rounded once: 15/19 is 78.9 in summary.csv, md, csv, tex and html', async () => {
    const dir = path.join(results, 'hotpotqa-react-x');
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    const summary = summarizeRun(m, loadEpisodes(path.join(dir, 'episodes.jsonl')).records);
    expect(summary.metrics.em).toBe(78.9);
    expect(summaryCsv([summary])).toContain(',20,20,19,1,78.9,');
    const md = (await report([])).stdout;
    const csv = (await report(['--format', 'csv'])).stdout;
    const tex = (await report(['--format', 'tex'])).stdout;
    const html = (await report(['--format', 'html'])).stdout;
    expect(md).toMatch(/\| HotpotQA ReAct \| hotpotqa-react-x \| offline500 \| test-model \| 20\/20 \| 1 \| 78\.9 \|/);
    expect(csv).toContain('runs,Runs,HotpotQA ReAct,ours,EM,78.9,');
    expect(tex).toMatch(/HotpotQA ReAct & offline500 & test-model & 20\/20 & 1 & 78\.9 &/);
    // The HTML Runs table gives the run id on a line under its row.
    expect(html).toMatch(
      /<th scope="row">HotpotQA ReAct<\/th><td>offline500<\/td><td>test-model<\/td><td>20\/20<\/td><td>1<\/td><td class="num">78\.9<\/td>.*<\/tr>\n<tr class="ours under-row"><td colspan="\d+"><div class="row-line">Run: <span class="v">hotpotqa-react-x<\/span><\/div>/,
    );
    for (const text of [md, csv, tex, html]) {
      expect(text).not.toContain('79.0');
      expect(text).not.toMatch(/NaN|Infinity/);
    }
    for (const text of [md, csv, tex]) expect(text).not.toContain('undefined');
  });

  it('Figure 2 uses only the questions scored in both runs, says n, and no NaN reaches any format', async () => {
    const md = (await report([])).stdout;
    // 20 planned; ReAct's error (19) and CoT-SC's (18) are left out of every table: n = 18.
    expect(md).toContain('## Figure 2: HotpotQA EM vs CoT-SC samples (split offline500, test-model, n = 18 questions)');
    expect(md).toContain(
      'HotpotQA EM: split offline500, n = 18 items scored in all 3 runs (of 20 planned; left out where a run has none: CoT-SC 1 error; ReAct 1 error).',
    );
    // k=1: the first sample (right unless i % 3 = 0): 12 of 18; k=3: the majority, the same.
    expect(md).toMatch(/\| 1 \| 66\.7 \|/);
    const html = (await report(['--format', 'html'])).stdout;
    expect(html).toContain('<polyline');
    expect(html).toContain('n = 18 questions scored in every run used');
  });

  it('label sheet → labels → Table 2 beside the paper, in every format', async () => {
    const sheet = path.join(tmp, 'labels.csv');
    const r = await report(['--label-sheet', sheet]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`wrote 39 trajectories of 2 run(s) to ${sheet}`);
    const text = fs.readFileSync(sheet, 'utf8');
    expect(text.split('\n')[0]).toBe(SHEET_COLUMNS.join(','));
    const rows = parseLabelsCsv(text, sheet);
    // ReAct: 15 correct, 4 incorrect scored (all drawn: fewer than 50); CoT: 10 and 10; errors never drawn.
    expect(
      rows
        .filter((x) => x.run === 'hotpotqa-react-x')
        .map((x) => x.outcome)
        .sort(),
    ).toEqual([...Array(15).fill('correct'), ...Array(4).fill('incorrect')]);
    expect(rows.filter((x) => x.run === 'hotpotqa-cot-x')).toHaveLength(20);
    expect(rows.find((x) => x.run === 'hotpotqa-react-x' && x.idx === 15)!.auto_tags).toEqual(['search-not-found']);
    // The label choices are the paper's for the row's method: CoT never searches, so no search result error.
    // Each record ends with its label_choices and the empty label and note (the trajectory before them spans lines).
    const sheetChoices = [...text.matchAll(/,((?:success|failure)_[a-z_]+(?: \| [a-z_]+)*),,$/gm)].map((m) => m[1]);
    expect(sheetChoices).toHaveLength(rows.length);
    const choices = (run: string) => new Set(rows.flatMap((x, i) => (x.run === run && x.outcome === 'incorrect' ? [sheetChoices[i]] : [])));
    expect(choices('hotpotqa-react-x')).toEqual(
      new Set(['failure_reasoning_error | failure_search_result_error | failure_hallucination | failure_label_ambiguity']),
    );
    expect(choices('hotpotqa-cot-x')).toEqual(new Set(['failure_reasoning_error | failure_hallucination | failure_label_ambiguity']));
    expect(rows.find((x) => x.run === 'hotpotqa-react-x' && x.idx === 18)!.auto_tags).toEqual(['label-ambiguity']);
    // The sheet is never overwritten (it may hold labels).
    const again = await report(['--label-sheet', sheet]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('the file exists (it may hold labels)');
    // A person labels every ReAct trajectory.
    const labelled = rows.map((x) =>
      x.run !== 'hotpotqa-react-x'
        ? x
        : {
            ...x,
            label:
              x.outcome === 'correct'
                ? x.idx < 14
                  ? ('success_true_positive' as const)
                  : ('success_false_positive' as const)
                : x.idx === 18
                  ? ('failure_label_ambiguity' as const)
                  : ('failure_search_result_error' as const),
          },
    );
    fs.writeFileSync(sheet, labelsToCsv(labelled, { sheet: true }));
    const md = (await report(['--labels', sheet])).stdout;
    expect(md).toContain('### Table 2: error analysis, HotpotQA (labelled)');
    expect(md).toMatch(/\| Success: true positive \| 93\.3 \| 14\/15 \| 94\.0 \| — \| 0\/0 \| 86\.0 \|/);
    // CoT never searches: no search result error for it, "—" in ours as in the paper (not 0.0, 0/0).
    expect(md).toMatch(/\| Failure: search result error \| 75\.0 \| 3\/4 \| 23\.0 \| — \| — \| — \|/);
    expect(md).toContain('ReAct: 19 of 19 sampled trajectories labelled (15 correct, 4 incorrect).');
    const csv = (await report(['--labels', sheet, '--format', 'csv'])).stdout;
    expect(csv).toMatch(
      /^table2-hotpotqa,"Table 2: error analysis, HotpotQA \(labelled\)",Success: true positive,ours,ReAct Ours,93\.3,,,\S+$/m,
    );
    // The paper's column is the paper's, with its citation, never "ours".
    expect(csv).toMatch(
      /^table2-hotpotqa,"Table 2: error analysis, HotpotQA \(labelled\)",Success: true positive,paper,ReAct Paper,94\.0,,,.*Table 2.*$/m,
    );
    const tex = (await report(['--labels', sheet, '--format', 'tex'])).stdout;
    expect(tex).toContain('Success: true positive & 93.3 & 14/15 & 94.0');
    const html = (await report(['--labels', sheet, '--format', 'html'])).stdout;
    expect(html).toContain('id="table-table2-hotpotqa"');
    // A label that does not fit its outcome is a one-line error naming the file and line.
    const wrong = labelled.map((x, i) =>
      i === labelled.findIndex((y) => y.outcome === 'correct') ? { ...x, label: 'failure_hallucination' as const } : x,
    );
    fs.writeFileSync(sheet, labelsToCsv(wrong, { sheet: true }));
    const bad = await report(['--labels', sheet]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^react-repro: .*labels\.csv:\d+: label: failure_hallucination does not fit a correct trajectory \(expected one of success_true_positive, success_false_positive, or empty\)\n$/,
    );
    // A category of the benchmark that does not apply to the row's method (CoT never searches) is refused the same way.
    const cotRow = labelled.findIndex((y) => y.run === 'hotpotqa-cot-x' && y.outcome === 'incorrect');
    const offMethod = labelled.map((x, i) => (i === cotRow ? { ...x, label: 'failure_search_result_error' as const } : x));
    fs.writeFileSync(sheet, labelsToCsv(offMethod, { sheet: true }));
    const line = parseLabelsCsv(fs.readFileSync(sheet, 'utf8'), sheet)[cotRow].at;
    const refused = await report(['--labels', sheet]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    // After the two corrupted folders' skip warnings (the check needs the runs), one line.
    const said = refused.stderr.split('\n');
    expect(said.filter((l) => !l.startsWith('react-repro: report: skipping '))).toEqual([
      `react-repro: ${line}: label: failure_search_result_error does not apply to CoT trajectories (run hotpotqa-cot-x, idx ${labelled[cotRow].idx}; expected one of failure_reasoning_error, failure_hallucination, failure_label_ambiguity, or empty)`,
      '',
    ]);
  });
});

describe.skipIf(!PDFLATEX || !PGFPLOTS)('report --format tex in a two-column paper (pdflatex)', () => {
  it('compiles with no error and no Overfull \\hbox', async () => {
    const tex = (await report(['--format', 'tex'])).stdout;
    const doc = [
      '\\documentclass[twocolumn]{article}',
      '\\usepackage[paperwidth=8.5in,paperheight=11in,textwidth=6.75in,columnsep=0.25in,textheight=9in]{geometry}',
      // What the generated file's first line says the preamble needs (booktabs, pgfplots for Figure 2).
      preambleOf(tex),
      '\\begin{document}',
      'Text of the paper around the tables. '.repeat(40),
      tex,
      '\\end{document}',
    ].join('\n');
    const dir = path.join(tmp, 'tex');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'paper.tex'), doc);
    execFileSync(PDFLATEX!, ['-interaction=nonstopmode', '-halt-on-error', 'paper.tex'], { cwd: dir, stdio: 'pipe', timeout: 120_000 });
    const log = fs.readFileSync(path.join(dir, 'paper.log'), 'latin1');
    expect(fs.existsSync(path.join(dir, 'paper.pdf'))).toBe(true);
    expect(log).not.toMatch(/^! /m);
    expect(log).not.toMatch(/Overfull \\hbox/);
  });
});

describe('report --tex-page', () => {
  it('is one line naming the flag when wrong; says the page in the header; the default page leaves the output as it was', async () => {
    const bad = await report(['--format', 'tex', '--tex-page', 'acm']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('react-repro: --tex-page: expected one of icml, acl, iclr, neurips, emnlp, naacl, got "acm"\n');
    const md = await report(['--tex-page', 'acl']);
    expect(md.code).toBe(2);
    expect(md.stderr).toBe('react-repro: --tex-page: only with --format tex (or an --out file ending in .tex)\n');
    const size = await report(['--format', 'tex', '--tex-page-size', 'textwidth=16']);
    expect(size.stderr).toMatch(/^react-repro: --tex-page-size: textwidth: expected a length with its unit .*\n$/);
    const plain = (await report(['--format', 'tex'])).stdout;
    expect((await report(['--format', 'tex', '--tex-page', 'icml'])).stdout).toBe(plain);
    const acl = (await report(['--format', 'tex', '--tex-page', 'acl'])).stdout;
    expect(acl.split('\n')[1]).toBe(
      '% Laid out for --tex-page acl: 11pt type, columns 7.7cm, text 16cm wide, 24.7cm high; for another page run report --format tex again with its --tex-page.',
    );
    expect(preambleOf(acl)).toBe(preambleOf(plain));
  });

  it.skipIf(!PDFLATEX || !PGFPLOTS)(
    '--tex-page acl compiles in an ACL page (11pt, two 7.7cm columns in 16cm) with no Overfull \\hbox',
    async () => {
      const tex = (await report(['--format', 'tex', '--tex-page', 'acl'])).stdout;
      const dir = path.join(tmp, 'tex-acl');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(
        path.join(dir, 'paper.tex'),
        [
          '\\documentclass[11pt,twocolumn]{article}',
          // acl.sty: a4paper, margin=2.5cm, \\columnsep 0.6cm; acl_latex.tex: T1 fonts.
          '\\usepackage[T1]{fontenc}',
          '\\usepackage[a4paper,margin=2.5cm,columnsep=0.6cm]{geometry}',
          preambleOf(tex),
          '\\extrafloats{100}',
          '\\begin{document}',
          'Text of the paper around the tables. '.repeat(40),
          tex,
          '\\end{document}',
        ].join('\n'),
      );
      execFileSync(PDFLATEX!, ['-interaction=nonstopmode', '-halt-on-error', 'paper.tex'], { cwd: dir, stdio: 'pipe', timeout: 120_000 });
      const log = fs.readFileSync(path.join(dir, 'paper.log'), 'latin1');
      expect(log).not.toMatch(/^! /m);
      expect(log).not.toMatch(/Overfull \\hbox/);
    },
  );
});
