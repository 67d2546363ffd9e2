// The progress display as a person sees it: the real CLI in a pseudo-terminal 80 columns wide (tmux),
// a 40-episode run against the test model server. The block is redrawn in place: at most 4 screen
// rows of progress (the run id once, the bar row, the counters), none wider than the terminal. Not a
// TTY (a pipe, as in CI): plain lines at a modest rate. Skipped, saying why, without tmux
// (.ci/run installs it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { cleanEnv, holdCompletions, runCli, scriptedRespond } from '../run/cli-helpers.js';
import { TmuxServer, tmuxSkipReason as skipReason } from '../support/tmux.js';

if (skipReason) console.warn(`progress-terminal.test.ts skipped: ${skipReason}`);

let tmp: string;
let srv: OpenAIServer;
let paused: OpenAIServer;
let held: OpenAIServer;
/** Lets `paused` answer its 11th call and the rest: once the screen has shown a partial count. */
let resume: () => void = () => {};
const resumed = new Promise<void>((r) => (resume = r));
const tmux = new TmuxServer();
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-progress-'));
  // A little latency per answer, so the display is redrawn many times during the run.
  const latency = () => new Promise((r) => setTimeout(r, 40));
  srv = await startOpenAIServer({ respond: async (req, i) => (await latency(), scriptedRespond(req, i)) });
  // The same, paused after 10 calls until the test has seen the run part way, however slow the machine.
  let calls = 0;
  paused = await startOpenAIServer({
    respond: async (req, i) => {
      if (++calls > 10) await resumed;
      return (await latency(), scriptedRespond(req, i));
    },
  });
  // Answers two calls, then none: the run is part way when Ctrl-C comes.
  held = await startOpenAIServer({ respond: scriptedRespond, fault: holdCompletions(3).fault });
});
afterAll(async () => {
  tmux.kill();
  resume();
  await srv.close();
  await paused.close();
  await held.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Starts the CLI in a new 80×40 tmux session; the pane shows EXIT=<status> when it ends. */
const startInTmux = (session: string, args: string[]) => tmux.start(session, args, { cwd: tmp });
const capture = async (session: string) => tmux.capture(session);

const runArgs = (server: OpenAIServer, results: string, concurrency: number) => [
  'run',
  '--task',
  'hotpotqa',
  '--method',
  'standard',
  '--limit',
  '40',
  '--concurrency',
  String(concurrency),
  '--base-url',
  server.baseURL,
  '--model',
  'test-model',
  '--cache',
  'off',
  '--results-dir',
  results,
];

describe.skipIf(skipReason !== null)('progress in an 80-column terminal (tmux)', () => {
  it('a 40-episode run leaves at most 4 rows of progress, none wider than the terminal', async () => {
    startInTmux('tty', runArgs(paused, path.join(tmp, 'r-tty'), 2));
    const frames: string[] = [];
    const partial = (f: string) => /hotpotqa standard [█░]+ +\d\/40|hotpotqa standard [█░]+ [123]\d\/40/.test(f);
    let screen = '';
    for (let i = 0; i < 600; i++) {
      screen = await capture('tty');
      if (/\d+\/40/.test(screen)) frames.push(screen);
      if (frames.some(partial)) resume();
      if (/EXIT=\d+/.test(screen)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    fs.writeFileSync(path.join(os.tmpdir(), 'react-repro-progress-screen.txt'), screen);
    expect(screen).toMatch(/EXIT=0/);
    const rows = screen.split('\n').filter((r) => r.trim() !== '');
    // The run's lines on screen: the id once, the block (bar row + counters), then the result line
    // (stdout, with the run folder's path: not progress, and never cut) and EXIT.
    const progressRows = rows.filter((r) => !/^EXIT=/.test(r) && !/ -> \//.test(r));
    for (const r of progressRows) expect([...r].length, r).toBeLessThanOrEqual(80);
    expect(progressRows.length, screen).toBeLessThanOrEqual(4);
    expect(rows.filter((r) => /^run: hotpotqa-standard-offline500-test-model-[0-9a-f]{8}$/.test(r))).toHaveLength(1);
    expect(screen).toMatch(/hotpotqa standard █+ 40\/40 100% · ETA 0s/);
    expect(screen).toMatch(/EM \d+\.\d · errors 0 · retries 0 · tokens [\d,]+/);
    expect(screen).toMatch(/elapsed \d+s/);
    // The display was redrawn during the run (frames with a partial count), yet never grew.
    expect(frames.some(partial)).toBe(true);
    for (const f of frames)
      expect(f.split('\n').filter((r) => r.trim() !== '' && !/^EXIT=/.test(r) && !/ -> \//.test(r)).length, f).toBeLessThanOrEqual(4);
  }, 120_000);

  it('Ctrl-C stops the display where it is and the message starts on a clean line', async () => {
    startInTmux('int', runArgs(held, path.join(tmp, 'r-int'), 1));
    let screen = '';
    for (let i = 0; i < 300 && !/ [123]\/40 /.test(screen); i++) {
      await new Promise((r) => setTimeout(r, 100));
      screen = await capture('int');
    }
    tmux.keys('int', 'C-c');
    for (let i = 0; i < 300 && !/EXIT=\d+/.test(screen); i++) {
      await new Promise((r) => setTimeout(r, 100));
      screen = await capture('int');
    }
    expect(screen).toMatch(/EXIT=130/);
    fs.writeFileSync(path.join(os.tmpdir(), 'react-repro-progress-int.txt'), screen);
    const rows = screen.split('\n').filter((r) => r.trim() !== '');
    // The message is a row of its own (after the terminal's "^C" echo at most), not glued to a progress row.
    expect(
      rows.some((r) => /^(\^C)?react-repro: interrupted; stopping/.test(r)),
      screen,
    ).toBe(true);
    expect(rows.filter((r) => /hotpotqa standard [█░]+/.test(r))).toHaveLength(1);
    for (const r of rows.filter((x) => /[█░]|^EM /.test(x))) expect([...r].length, r).toBeLessThanOrEqual(80);
  }, 120_000);
});

describe.skipIf(skipReason !== null)('a terminal that cannot redraw, or a CI job with a pseudo-terminal (tmux)', () => {
  for (const [name, env] of [
    ['TERM=dumb', { TERM: 'dumb' }],
    ['CI=true', { CI: 'true' }],
  ] as const) {
    it(`${name}: plain lines as in a log, no cursor movement`, async () => {
      const session = name.replace(/\W/g, '');
      const record = path.join(tmp, `${session}.raw`);
      tmux.start(session, runArgs(srv, path.join(tmp, `r-${session}`), 2), { cwd: tmp, env, record });
      const screen = await tmux.waitFor(session, (s) => /EXIT=\d+/.test(s));
      expect(screen).toMatch(/EXIT=0/);
      const bytes = fs.readFileSync(record, 'utf8');
      // Every byte the pane received: the CLI's lines and the shell's EXIT, never an escape sequence.
      expect(bytes).not.toMatch(/\x1b/);
      expect(bytes).toMatch(/^hotpotqa standard 40\/40 \(100%\) EM \d+\.\d errors 0 /m);
      expect(bytes).not.toMatch(/[█░]/);
    }, 120_000);
  }
});

describe('progress when the output is not a terminal', () => {
  it('prints the run id once and plain lines at a modest rate', async () => {
    const results = path.join(tmp, 'r-pipe');
    const r = await runCli(
      [
        'run',
        '--task',
        'hotpotqa',
        '--method',
        'standard',
        '--limit',
        '40',
        '--concurrency',
        '2',
        '--base-url',
        srv.baseURL,
        '--model',
        'test-model',
        '--cache',
        'off',
        '--results-dir',
        results,
      ],
      { cwd: tmp, env: cleanEnv({}, path.join(tmp, 'cache')) },
    );
    expect(r.code).toBe(0);
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(r.stderr).not.toMatch(/\x1b|\r/);
    expect(lines.filter((l) => /^run: hotpotqa-standard-offline500-test-model-[0-9a-f]{8}$/.test(l))).toHaveLength(1);
    const progress = lines.filter((l) => /^hotpotqa standard \d+\/40 \(\d+%\)/.test(l));
    // Every 10 episodes (or 10 s), and the last: 4 or 5 lines for 40 episodes, not one per episode.
    expect(progress.length).toBeGreaterThanOrEqual(4);
    expect(progress.length).toBeLessThanOrEqual(8);
    expect(progress.at(-1)).toMatch(
      /^hotpotqa standard 40\/40 \(100%\) EM \d+\.\d errors 0 retries 0 tokens [\d,]+ elapsed \d+(m\d\ds)?s? ETA 0s$/,
    );
  }, 60_000);
});
