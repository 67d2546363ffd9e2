// What `report` writes where, through the real CLI: an --out named for a format the report does not
// write (report.pdf) is a one-line error with nothing written unless --format says what to write to
// it; any other name (report.txt, r.log, report-v1.2) gets Markdown or the --format given;
// `--trajectories` prints plain text only, so a --format or an --out named for another format is a
// one-line error (its --help says so); a folder that is neither a results folder nor a run folder
// (one holding a stray manifest.json) is one line naming it and what is expected.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../run/cli-helpers.js';
import { qaRecords, writeRun } from './run-folders.js';

let tmp: string;
let results: string;
let run: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'report-out-names-'));
  results = path.join(tmp, 'results');
  const idx = [0, 1, 2, 3];
  run = writeRun(results, { runId: 'hotpotqa-react-x', method: 'react', indices: idx, records: qaRecords(idx, 'rrwp') });
  writeRun(results, { runId: 'hotpotqa-cot-x', method: 'cot', indices: idx, records: qaRecords(idx, 'rwwr') });
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The files in `dir` (nothing written: the same list before and after). */
const files = (dir: string) => fs.readdirSync(dir).sort();

describe('report --out names', () => {
  it('a name of a format the report does not write is a one-line error, nothing written; with --format it writes that format there', async () => {
    const before = files(tmp);
    for (const name of ['report.pdf', 'report.DOCX', 'report.json']) {
      const out = path.join(tmp, name);
      const r = await runCli(['report', results, '--out', out], { cwd: tmp });
      expect(r.code, name).toBe(2);
      expect(r.stderr, name).toBe(
        `react-repro: --out ${out}: the report is not written as ${path.extname(name).toLowerCase()} (it writes md, csv, tex or html: .md .markdown .csv .tex .html .htm); give --format md|csv|tex|html to write one to this name\n`,
      );
      expect(r.stdout, name).toBe('');
    }
    expect(files(tmp)).toEqual(before);

    // Any other name is Markdown as it always was, or the format given (no extension is "another format's").
    for (const name of ['report.txt', 'r.log', 'report-v1.2', 'report.2026-11-29', 'report.out']) {
      const r = await runCli(['report', results, '--out', path.join(tmp, name)], { cwd: tmp });
      expect(r.code, name).toBe(0);
      expect(fs.readFileSync(path.join(tmp, name), 'utf8'), name).toMatch(/^# ReAct reproduction report/);
    }
    const csv = await runCli(['report', results, '--format', 'csv', '--out', path.join(tmp, 'tables.txt')], { cwd: tmp });
    expect(csv.code, csv.stderr).toBe(0);
    expect(fs.readFileSync(path.join(tmp, 'tables.txt'), 'utf8')).toMatch(/^table,table_title,row,/);
    const clash = await runCli(['report', results, '--format', 'md', '--out', path.join(tmp, 'r.csv')], { cwd: tmp });
    expect(clash.code).toBe(2);
    expect(clash.stderr).toBe(
      `react-repro: --format md conflicts with --out ${path.join(tmp, 'r.csv')} (a .csv file): give one of them, or make them agree\n`,
    );

    const html = await runCli(['report', results, '--out', path.join(tmp, 'report.pdf'), '--format', 'html'], { cwd: tmp });
    expect(html.code).toBe(0);
    expect(fs.readFileSync(path.join(tmp, 'report.pdf'), 'utf8')).toMatch(/^<!doctype html>/);
    const md = await runCli(['report', results, '--out', path.join(tmp, 'report.txt'), '--format', 'md'], { cwd: tmp });
    expect(md.code).toBe(0);
    expect(fs.readFileSync(path.join(tmp, 'report.txt'), 'utf8')).toMatch(/^# ReAct reproduction report/);
    // A name without an extension (a device's, /dev/stdout) is Markdown, as stdout is.
    const stdout = await runCli(['report', results, '--out', '/dev/stdout'], { cwd: tmp });
    expect(stdout.code).toBe(0);
    expect(stdout.stdout).toMatch(/^# ReAct reproduction report/);
  }, 60_000);
});

describe('report --trajectories formats', () => {
  it('prints plain text to stdout or any --out name; another --format or an --out named for one is a one-line error, nothing written', async () => {
    const text = await runCli(['report', '--trajectories', run, '--indices', '0'], { cwd: tmp });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^=== item 0 · answer "gold 0" gold "gold 0" em 1 f1 1 · calls 2 \(bad 0\)\n/);
    for (const name of ['t.txt', 't.md', 't.log']) {
      const r = await runCli(['report', '--trajectories', run, '--indices', '0', '--out', path.join(tmp, name)], { cwd: tmp });
      expect(r.code, name).toBe(0);
      expect(fs.readFileSync(path.join(tmp, name), 'utf8'), name).toBe(text.stdout);
    }
    const md = await runCli(['report', '--trajectories', run, '--indices', '0', '--format', 'md'], { cwd: tmp });
    expect(md.code).toBe(0);
    expect(md.stdout).toBe(text.stdout);

    const before = files(tmp);
    const browser = 'the HTML report has a trajectory browser: react-repro report RUN_DIR --out report.html';
    for (const format of ['html', 'csv', 'tex']) {
      const r = await runCli(['report', '--trajectories', run, '--format', format], { cwd: tmp });
      expect(r.code, format).toBe(2);
      expect(r.stderr, format).toBe(
        `react-repro: --format ${format}: not with --trajectories, which prints plain text (leave --format out; ${browser})\n`,
      );
      expect(r.stdout, format).toBe('');
    }
    for (const [name, format] of [
      ['t.html', 'html'],
      ['t.htm', 'html'],
      ['t.csv', 'csv'],
      ['t.tex', 'tex'],
      ['t.pdf', '.pdf'],
    ]) {
      const out = path.join(tmp, name);
      const r = await runCli(['report', '--trajectories', run, '--out', out], { cwd: tmp });
      expect(r.code, name).toBe(2);
      expect(r.stderr, name).toBe(
        `react-repro: --out ${out}: --trajectories prints plain text, not ${format} (name a .txt or .md file; ${browser})\n`,
      );
    }
    const tex = await runCli(['report', '--trajectories', run, '--tex-figure-tables'], { cwd: tmp });
    expect(tex.code).toBe(2);
    expect(tex.stderr).toBe('react-repro: --tex-figure-tables: not with --trajectories\n');
    expect(files(tmp)).toEqual(before);
  }, 60_000);

  it('--help says what --trajectories writes and what it refuses', async () => {
    const r = await runCli(['report', '--help'], { cwd: tmp });
    expect(r.code).toBe(0);
    const help = r.stdout.replace(/\s+/g, ' ');
    expect(help).toContain(
      'as plain text (to stdout or --out); with it, a --format other than md, or an --out ending in .csv .tex .html or .htm, is an error',
    );
    expect(help).toContain('an --out named for a format the report does not write (.pdf, .docx, .json...) needs --format');
  }, 60_000);
});

describe('report on a folder that holds no run', () => {
  it('a folder with a stray manifest.json (not a run): one line naming it and what is expected', async () => {
    const junk = path.join(tmp, 'junk');
    fs.mkdirSync(path.join(junk, 'data'), { recursive: true });
    fs.writeFileSync(path.join(junk, 'data', 'manifest.json'), '{"name": "some other tool", "files": []}\n');
    fs.writeFileSync(path.join(junk, 'notes.txt'), 'not a run\n');
    const expected =
      'expected a run folder (manifest.json and episodes.jsonl, as `react-repro run` writes them) or a folder of run folders';
    const r = await runCli(['report', junk], { cwd: tmp });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `react-repro: report: ${junk} holds no readable run (${path.join(junk, 'data', 'manifest.json')}: runId: expected a non-empty string); ${expected}\n`,
    );
    // A folder with no manifest.json anywhere, and a path that is no folder: one line each too.
    const missing = path.join(tmp, 'nothing-here');
    const none = await runCli(['report', missing], { cwd: tmp });
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(`react-repro: report: ${missing} is not a folder; ${expected}\n`);
    fs.mkdirSync(path.join(tmp, 'plain'));
    const plain = await runCli(['report', path.join(tmp, 'plain')], { cwd: tmp });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toBe(
      `react-repro: report: ${path.join(tmp, 'plain')} holds no runs (no manifest.json in it or its sub-folders); ${expected}\n`,
    );
  }, 60_000);
});
