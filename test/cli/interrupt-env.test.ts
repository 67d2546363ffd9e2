// Ctrl-C while an environment request hangs: the run stops at once (the AbortSignal reaches the HTTP
// request, not its 300 s timeout), writes its summary and exits 130; the hanging episode is not recorded.
// How fast "at once" is on a given machine is not asserted here (a loaded CI machine is slow): only that
// the stop did not wait for the request's timeout.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { cleanEnv, runDirs, scriptedRespond, startCli } from '../run/cli-helpers.js';

let tmp: string;
let srv: OpenAIServer;
let hang: http.Server;
let hangURL: string;
let requests = 0;
const open = new Set<http.ServerResponse>();
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-int-'));
  srv = await startOpenAIServer({ respond: scriptedRespond });
  // A Wikipedia that accepts the request and never answers.
  hang = http.createServer((_req, res) => {
    requests++;
    open.add(res);
  });
  await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
  hangURL = `http://127.0.0.1:${(hang.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of open) res.destroy();
  await new Promise<void>((r) => hang.close(() => r()));
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('Ctrl-C during a hanging environment request', () => {
  it('exits 130 without waiting for the request, summary written, nothing recorded for the hanging episode', async () => {
    const results = path.join(tmp, 'results');
    const { child, done } = startCli(
      [
        'run',
        '--task',
        'hotpotqa',
        '--method',
        'react',
        '--indices',
        '0',
        '--wiki',
        'live',
        '--wiki-url',
        hangURL,
        '--wiki-timeout',
        '300',
        '--base-url',
        srv.baseURL,
        '--model',
        'test-model',
        '--cache',
        'off',
        '--results-dir',
        results,
      ],
      { cwd: tmp, env: cleanEnv() },
    );
    // Wait until the search request is hanging at the Wikipedia server.
    for (let i = 0; i < 400 && requests === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(requests).toBe(1);
    const t0 = Date.now();
    child.kill('SIGINT');
    const r = await done;
    const elapsed = Date.now() - t0;
    expect(r.code).toBe(130);
    expect(elapsed).toBeLessThan(30_000); // a tenth of --wiki-timeout: the abort ended the request
    const [dir] = runDirs(results);
    expect(fs.readFileSync(path.join(results, dir, 'episodes.jsonl'), 'utf8')).toBe('');
    expect(fs.existsSync(path.join(results, dir, 'summary.csv'))).toBe(true);
    const m = JSON.parse(fs.readFileSync(path.join(results, dir, 'manifest.json'), 'utf8'));
    expect(m.sessions.at(-1).status).toBe('interrupted');
  });

  it('SIGTERM is handled like Ctrl-C: exit 143, summary written, lock released, resumable', async () => {
    const results = path.join(tmp, 'results-term');
    const before = requests;
    const { child, done } = startCli(
      [
        'run',
        '--task',
        'hotpotqa',
        '--method',
        'react',
        '--indices',
        '0',
        '--wiki',
        'live',
        '--wiki-url',
        hangURL,
        '--wiki-timeout',
        '300',
        '--base-url',
        srv.baseURL,
        '--model',
        'test-model',
        '--cache',
        'off',
        '--results-dir',
        results,
      ],
      { cwd: tmp, env: cleanEnv() },
    );
    for (let i = 0; i < 400 && requests === before; i++) await new Promise((r) => setTimeout(r, 25));
    expect(requests).toBe(before + 1);
    child.kill('SIGTERM');
    const r = await done;
    expect(r.code).toBe(143);
    expect(r.signal).toBeNull(); // exited by itself, after writing the summary
    expect(r.stderr).toContain('react-repro: terminated (SIGTERM); stopping');
    const [dir] = runDirs(results);
    expect(fs.readFileSync(path.join(results, dir, 'episodes.jsonl'), 'utf8')).toBe('');
    expect(fs.existsSync(path.join(results, dir, 'summary.csv'))).toBe(true);
    expect(fs.existsSync(path.join(results, dir, '.lock'))).toBe(false);
    const m = JSON.parse(fs.readFileSync(path.join(results, dir, 'manifest.json'), 'utf8'));
    expect(m.sessions.at(-1)).toMatchObject({ status: 'interrupted', stoppedBy: 'SIGTERM' });
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe(
      `react-repro: resume with: react-repro run --resume ${dir} --results-dir ${results}`,
    );
  });
});
