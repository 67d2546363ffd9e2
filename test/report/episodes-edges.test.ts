// The edges of episodes.jsonl, on run folders the real CLI wrote (README "Reports"): a copy cut short
// (fewer records than the manifest's sessions wrote) reports "records missing" with one warning line,
// never "complete"; a torn last line without its newline (a kill -9) is still dropped silently, and
// `run` still repairs it; a whole last line that is no record is the same one-line skip or refusal as
// one in the middle, for report, export and run alike.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { cleanEnv, runCli, runDirs, scriptedRespond } from '../run/cli-helpers.js';

let tmp: string;
let server: OpenAIServer;
let original: string;
let runArgs: (results: string) => string[];

/** A copy of the finished run in its own results folder, its episodes.jsonl given `edit`. */
function copyRun(name: string, edit: (text: string) => string): { results: string; dir: string; file: string } {
  const results = path.join(tmp, name);
  const dir = path.join(results, path.basename(original));
  fs.cpSync(original, dir, { recursive: true });
  const file = path.join(dir, 'episodes.jsonl');
  fs.writeFileSync(file, edit(fs.readFileSync(file, 'utf8')));
  return { results, dir, file };
}

const runsRow = (stdout: string) => stdout.split('\n').find((l) => l.startsWith('| HotpotQA CoT |'))!;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'episodes-edges-'));
  server = await startOpenAIServer({ respond: scriptedRespond });
  runArgs = (results) => [
    'run',
    '--task',
    'hotpotqa',
    '--method',
    'cot',
    '--limit',
    '10',
    '--base-url',
    server.baseURL,
    '--model',
    'test-model',
    '--cache',
    'off',
    '--results-dir',
    results,
  ];
  const results = path.join(tmp, 'results');
  const r = await runCli(runArgs(results), { cwd: tmp, env: cleanEnv() });
  expect(r.code, r.stderr).toBe(0);
  original = path.join(results, runDirs(results)[0]);
  const manifest = JSON.parse(fs.readFileSync(path.join(original, 'manifest.json'), 'utf8'));
  expect(manifest.sessions.map((s: { status: string; written: number }) => [s.status, s.written])).toEqual([['complete', 10]]);
}, 120_000);

afterAll(async () => {
  await server?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('a run folder whose episodes.jsonl lost records', () => {
  it('the whole run reports complete, with no warning', async () => {
    const r = await runCli(['report', original], { cwd: tmp });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(runsRow(r.stdout)).toMatch(/\| 10\/10 \|.*\| complete \|$/);
  }, 60_000);

  it('a copy cut mid-line after one record: "records missing" in the Runs table and one warning naming the file and the counts', async () => {
    const { results, file } = copyRun('cut', (text) => text.slice(0, text.indexOf('\n') + 200));
    for (const args of [[file.replace(/episodes\.jsonl$/, '')], [results]]) {
      const r = await runCli(['report', ...args], { cwd: tmp });
      expect(r.code).toBe(0);
      expect(r.stderr.split('\n')).toEqual([
        `react-repro: report: ${file} holds 1 of the 10 episode records its manifest's sessions wrote (9 missing: cut short, or a partial copy?); only those are read`,
        '',
      ]);
      const row = runsRow(r.stdout);
      expect(row).toMatch(/\| 1\/10 \|/);
      expect(row).toMatch(/\| records missing \(1 of 10 written in episodes\.jsonl\) \|$/);
      expect(row).not.toMatch(/complete/);
      expect(r.stdout).toMatch(/"records missing": the run's episodes\.jsonl holds fewer records than its sessions wrote/);
    }
    // Every format carries the status (the CSV cell by cell).
    const csv = path.join(tmp, 'cut.csv');
    const c = await runCli(['report', results, '--out', csv], { cwd: tmp });
    expect(c.code).toBe(0);
    expect(c.stderr).toMatch(/^react-repro: report: .*episodes\.jsonl holds 1 of the 10 episode records/);
    expect(fs.readFileSync(csv, 'utf8')).toContain('records missing (1 of 10 written in episodes.jsonl)');
  }, 60_000);

  it('a copy cut short and then resumed (the same command runs what it lacks) is complete again, with no warning', async () => {
    // Whole lines cut away: the first three records kept.
    const { results, dir } = copyRun('cut-resumed', (text) => text.split('\n').slice(0, 3).join('\n') + '\n');
    const again = await runCli(runArgs(results), { cwd: tmp, env: cleanEnv() });
    expect(again.code, again.stderr).toBe(0);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.sessions.at(-1)).toMatchObject({ status: 'complete', written: 7, linesAtStart: 3 });
    const r = await runCli(['report', results], { cwd: tmp });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(runsRow(r.stdout)).toMatch(/\| 10\/10 \|.*\| complete \|$/);
    // Cut again after that session: missing again, counted from what that session left (3 + 7).
    fs.writeFileSync(
      path.join(dir, 'episodes.jsonl'),
      fs.readFileSync(path.join(dir, 'episodes.jsonl'), 'utf8').split('\n').slice(0, 4).join('\n') + '\n',
    );
    const cut = await runCli(['report', results], { cwd: tmp });
    expect(runsRow(cut.stdout)).toMatch(/\| records missing \(4 of 10 written in episodes\.jsonl\) \|$/);
  }, 60_000);

  it('a torn last line without its newline (a kill -9) is dropped silently; run repairs it and the run stays complete', async () => {
    const { results, file } = copyRun('torn', (text) => text + text.slice(0, 150));
    const r = await runCli(['report', results], { cwd: tmp });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(runsRow(r.stdout)).toMatch(/\| 10\/10 \|.*\| complete \|$/);
    const whole = fs.readFileSync(file, 'utf8').slice(0, -150);
    // The same command again: the store cuts the torn tail and finds nothing left to run.
    const again = await runCli(runArgs(results), { cwd: tmp, env: cleanEnv() });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout + again.stderr).toMatch(/dropped a partial last episode line \(150 bytes\)/);
    expect(fs.readFileSync(file, 'utf8')).toBe(whole);
  }, 60_000);
});

describe('a whole last line that is no record', () => {
  it('report and export skip the folder with the same one line as for a bad line in the middle', async () => {
    const last = copyRun('bad-last', (text) => text + 'not json at all\n');
    const middle = copyRun('bad-middle', (text) => {
      const lines = text.split('\n');
      return [...lines.slice(0, 3), 'not json at all', ...lines.slice(3)].join('\n');
    });
    for (const [bad, line] of [
      [last, 11],
      [middle, 4],
    ] as const) {
      const warning = `react-repro: report: skipping ${bad.dir}: ${bad.file}: line ${line} is not an episode record (`;
      // Beside a readable run: skipped with one warning line.
      const r = await runCli(['report', original, bad.dir], { cwd: tmp });
      expect(r.code).toBe(0);
      expect(r.stderr.split('\n')).toHaveLength(2);
      expect(r.stderr.startsWith(warning)).toBe(true);
      expect(r.stderr).toMatch(/; the file was edited or corrupted\n$/);
      // Alone: one error line, exit 2.
      const alone = await runCli(['report', bad.dir], { cwd: tmp });
      expect(alone.code).toBe(2);
      expect(alone.stderr.split('\n')).toHaveLength(2);
      expect(alone.stderr).toContain(`${bad.file}: line ${line} is not an episode record`);
      const ex = await runCli(['export', original, bad.dir, '--format', 'jsonl', '--out', path.join(tmp, 'x.jsonl')], { cwd: tmp });
      expect(ex.code).toBe(0);
      expect(ex.stderr.split('\n')).toEqual([
        expect.stringContaining(warning.replace(': report: ', ': export: ')),
        'react-repro: 10 episodes from 1 run; skipped 1 unreadable run folder (see the warning above)',
        '',
      ]);
    }
  }, 120_000);

  it('run refuses to resume it with one line naming the file and line, and leaves the file as it is', async () => {
    const { results, file } = copyRun('bad-resume', (text) => text + 'not json at all\n');
    const before = fs.readFileSync(file, 'utf8');
    const r = await runCli(runArgs(results), { cwd: tmp, env: cleanEnv() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`^react-repro: [^\\n]*${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: line 11 is not an episode record`),
    );
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  }, 60_000);
});
