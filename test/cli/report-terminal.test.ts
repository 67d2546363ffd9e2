// `react-repro report` as a person sees it in an 80-column terminal (tmux): while it reads the run
// folders, computes and writes, one status row redrawn in place; at the end that row is gone and one
// line says what was written; a skipped folder's warning keeps a row of its own. Not a terminal (a
// pipe, as in CI): stderr stays empty. Skipped, saying why, without tmux (.ci/run installs it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../run/cli-helpers.js';
import { qa, writeRun } from '../report/run-folders.js';
import { TmuxServer, tmuxSkipReason } from '../support/tmux.js';

if (tmuxSkipReason) console.warn(`report-terminal.test.ts skipped: ${tmuxSkipReason}`);

let tmp: string;
let results: string;
const tmux = new TmuxServer();
const RUNS = 40;
const ITEMS = 300;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-report-tty-'));
  results = path.join(tmp, 'results');
  const indices = Array.from({ length: ITEMS }, (_, i) => i);
  const methods = ['react', 'cot', 'act', 'standard'];
  for (let m = 0; m < RUNS; m++) {
    const method = methods[m % methods.length];
    const records = indices.map((i) => qa(i, (i + m) % 3 === 0 ? 'right' : 'wrong'));
    writeRun(results, { runId: `${method}-m${m}`, method, model: `model-${Math.floor(m / 4)}`, indices, records });
  }
  // A folder the report cannot read: skipped with a warning.
  fs.mkdirSync(path.join(results, 'broken'));
  fs.writeFileSync(path.join(results, 'broken', 'manifest.json'), '{ not json');
});
afterAll(() => {
  tmux.kill();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe.skipIf(tmuxSkipReason !== null)('report in an 80-column terminal (tmux)', () => {
  it('shows its stage in one row while it works, then one line saying what it wrote', async () => {
    tmux.start('rep', ['report', results, '--out', 'report.html'], { cwd: tmp });
    const stages = new Set<string>();
    const screen = await tmux.waitFor(
      'rep',
      (s) => /EXIT=\d+/.test(s),
      (s) => {
        for (const m of s.matchAll(/report: (reading run folders|tables and statistics|writing report\.html)/g)) stages.add(m[1]);
      },
    );
    fs.writeFileSync(path.join(os.tmpdir(), 'react-repro-report-screen.txt'), screen);
    expect(screen).toMatch(/EXIT=0/);
    const rows = screen.split('\n').filter((r) => r.trim() !== '');
    expect(rows[0]).toMatch(/^react-repro: report: skipping .*broken: /);
    expect(rows[1]).toBe(
      `react-repro: wrote report.html: ${RUNS} runs, ${(RUNS * ITEMS).toLocaleString('en-US')} episodes, ${rows[1].match(/[\d.]+ MB/)?.[0]} in ${rows[1].match(/\d+s$/)?.[0]}`,
    );
    expect(rows[2]).toBe('EXIT=0');
    expect(rows).toHaveLength(3);
    // At least one stage was seen drawn (the whole report takes a few seconds here).
    expect(stages.size).toBeGreaterThan(0);
    expect(fs.statSync(path.join(tmp, 'report.html')).size).toBeGreaterThan(100_000);
  }, 120_000);
});

describe('report when stderr is not a terminal', () => {
  it('writes the warning only: no status, no control sequence', async () => {
    const r = await runCli(['report', results, '--out', path.join(tmp, 'pipe.html')], { cwd: tmp });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^react-repro: report: skipping .*broken: [^\n]*\n$/);
    expect(r.stderr).not.toMatch(/\x1b|\r/);
  }, 60_000);
});
