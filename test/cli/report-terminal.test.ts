// `react-repro report` as a person sees it in an 80-column terminal (tmux): while it reads the run
// folders, computes and writes, one status row redrawn in place (checked in the bytes the terminal
// received, not in screens polled at a rate); at the end that row is gone and one line says what was
// written; a skipped folder's warning keeps a row of its own. None over a report printed to the
// terminal or piped to a pager. Not a terminal (as in CI): stderr holds the warning only. Skipped,
// saying why, without tmux (.ci/run installs it).
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
  /** Runs `report ARGS [then]` in tmux to its end: the screen, and every byte the terminal received. */
  async function inTerminal(session: string, args: string[], then?: string): Promise<{ screen: string; stream: string }> {
    const record = path.join(tmp, `${session}.bytes`);
    tmux.start(session, ['report', results, ...args], { cwd: tmp, record, ...(then ? { then } : {}) });
    const screen = await tmux.waitFor(session, (s) => /EXIT=\d+/.test(s));
    // pipe-pane writes through its own cat: wait for the bytes of the last row.
    for (let i = 0; i < 50 && !fs.readFileSync(record, 'utf8').includes('EXIT='); i++) await new Promise((r) => setTimeout(r, 100));
    return { screen, stream: fs.readFileSync(record, 'utf8') };
  }

  it('shows its stage in one row while it works, then one line saying what it wrote', async () => {
    const { screen, stream } = await inTerminal('rep', ['--out', 'report.html']);
    expect(screen).toMatch(/EXIT=0/);
    const rows = screen.split('\n').filter((r) => r.trim() !== '');
    expect(rows[0]).toMatch(/^react-repro: report: skipping .*broken: /);
    expect(rows[1]).toMatch(
      new RegExp(
        `^react-repro: wrote report\\.html: ${RUNS} runs, ${(RUNS * ITEMS).toLocaleString('en-US')} episodes, [\\d.]+ (kB|MB) in \\d+s$`,
      ),
    );
    expect(rows[2]).toBe('EXIT=0');
    expect(rows).toHaveLength(3);
    // Drawn in place (each stage once at least: the forced draws), each row cleared before a line of output.
    expect(stream).toContain(
      `\rreport: reading run folders: ${RUNS + 1} of ${RUNS + 1} (${(RUNS * ITEMS).toLocaleString('en-US')} episodes)\x1b[K`,
    );
    expect(stream).toMatch(/\rreport: tables and statistics of 40 runs \(12,000 episodes\)…\x1b\[K/);
    expect(stream).toMatch(/\rreport: writing the report: [\d.]+ (B|kB|MB)\x1b\[K/);
    expect(stream).toMatch(/\r\x1b\[Kreact-repro: report: skipping /);
    expect(stream).toMatch(/\r\x1b\[Kreact-repro: wrote report\.html/);
    expect(fs.statSync(path.join(tmp, 'report.html')).size).toBeGreaterThan(100_000);
  }, 120_000);

  it('draws nothing over a report printed to the terminal or read by a pager; does when stdout is a file', async () => {
    for (const [session, then] of [
      ['tty', undefined],
      ['pipe', '| cat > /dev/null'],
    ] as const) {
      const { stream } = await inTerminal(session, [], then);
      expect(stream, session).toMatch(/EXIT=0/);
      expect(stream, session).not.toMatch(/report: (reading|tables|writing)|react-repro: wrote/);
    }
    const { stream } = await inTerminal('file', [], '> tables.md');
    expect(stream).toMatch(/\rreport: tables and statistics of 40 runs/);
    // No file named on the command line: no "wrote" line (the shell wrote it).
    expect(stream).not.toMatch(/react-repro: wrote/);
    expect(fs.readFileSync(path.join(tmp, 'tables.md'), 'utf8')).toMatch(/^# /);
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
