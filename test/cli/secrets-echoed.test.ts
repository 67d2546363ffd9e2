// The closing hint of such a run names --base-url with *** where the key was, since a resume must be
// given the key again; following it with the key put back resumes.
//
// A server's error may echo the request's URL (gateways and proxies do: "no route for
// http://host/v1/completions?api-key=KEY"). A key in --base-url's query must then reach neither the
// output nor any file (README "Reliability"): the message is redacted as a URL and by the key's value.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { cleanEnv, filesUnder, runCli, runDirs } from '../run/cli-helpers.js';

const QUERY_KEY = 'SECRETKEY1234567';

let tmp: string;
let llm: OpenAIServer;
let plain: OpenAIServer;
beforeAll(async () => {
  // answers with a word holding a short key's value ("secret"), as any text may
  plain = await startOpenAIServer({
    respond: () => " Let's think step by step. The secretary of state.\nAnswer: the secretary\nQuestion: next",
  });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-secrets-echoed-'));
  llm = await startOpenAIServer({
    respond: () => ' x',
    // 404 with the URL echoed twice: whole, and its key alone (as some servers quote a bad key)
    fault: (req) => ({
      kind: 'status',
      status: 404,
      message: `no route for http://gateway.local${req.path}${req.search} (key "${new URLSearchParams(req.search).get('api-key')}")`,
    }),
  });
});
afterAll(async () => {
  await llm.close();
  await plain.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('a key in --base-url query, echoed by the server in an error', () => {
  it('is in no output and no file; the message keeps the rest of the URL', async () => {
    const results = path.join(tmp, 'r');
    const cache = path.join(tmp, 'c');
    const r = await runCli(
      ['run', '--task', 'hotpotqa', '--method', 'cot', '--indices', '0', '--model', 'test-model', '--results-dir', results],
      { cwd: tmp, env: cleanEnv({ OPENAI_BASE_URL: `${llm.baseURL}?api-version=x&api-key=${QUERY_KEY}` }, cache) },
    );
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).not.toContain(QUERY_KEY);
    expect(r.stderr).toContain('no route for http://gateway.local/v1/completions?api-version=x&api-key=***');
    const files = [...filesUnder(results), ...filesUnder(cache)];
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(fs.readFileSync(f, 'utf8'), f).not.toContain(QUERY_KEY);
  }, 60_000);
});

describe('the closing hint of a run whose --base-url had a key in its query', () => {
  it('names --base-url with *** and says to put the key back; with it back, the resume is accepted (a 404 stops the run: resume)', async () => {
    const results = path.join(tmp, 'r-hint');
    const cache = path.join(tmp, 'c-hint');
    const env = cleanEnv({}, cache);
    const base = (key: string) => `${llm.baseURL}?api-version=x&api-key=${key}`;
    const r = await runCli(
      [
        'run',
        '--task',
        'hotpotqa',
        '--method',
        'cot',
        '--indices',
        '0',
        '--model',
        'test-model',
        '--results-dir',
        results,
        '--base-url',
        base(QUERY_KEY),
      ],
      { cwd: tmp, env },
    );
    expect(r.stderr).not.toContain(QUERY_KEY);
    const [dir] = runDirs(results);
    const lines = r.stderr.trim().split('\n');
    expect(lines.at(-2)).toBe('react-repro: a URL below had credentials, printed as ***: put them back before running it');
    expect(lines.at(-1)).toBe(
      `react-repro: resume with: react-repro run --resume ${dir} --base-url '${base('***')}' --results-dir ${results}`,
    );
    // the hint's command with the key put back: accepted (it runs; the server still refuses the calls)
    const again = await runCli(['run', '--resume', dir, '--base-url', base(QUERY_KEY), '--results-dir', results], {
      cwd: tmp,
      env,
    });
    expect(again.stderr).not.toContain('had credentials in its URL');
    expect(again.stderr).toContain('no route for');
  }, 60_000);
});

describe('a short key in --base-url query', () => {
  it('is redacted where it stands in the URL, and ordinary text holding it is written as the model said it', async () => {
    const results = path.join(tmp, 'r-short');
    const r = await runCli(
      ['run', '--task', 'hotpotqa', '--method', 'cot', '--indices', '0', '--model', 'test-model', '--results-dir', results],
      { cwd: tmp, env: cleanEnv({ OPENAI_BASE_URL: `${plain.baseURL}?api-key=secret` }, path.join(tmp, 'c-short')) },
    );
    expect(r.code, r.stderr).toBe(0);
    const [dir] = runDirs(results);
    const episodes = fs.readFileSync(path.join(results, dir, 'episodes.jsonl'), 'utf8');
    expect(episodes).toContain('The secretary of state.');
    expect(episodes).toContain('"answer":"the secretary"');
    // and where it stood in the URL, it is ***
    const manifest = fs.readFileSync(path.join(results, dir, 'manifest.json'), 'utf8');
    for (const text of [r.stdout, r.stderr, manifest, ...filesUnder(results).map((f) => fs.readFileSync(f, 'utf8'))]) {
      expect(text).not.toContain('api-key=secret');
    }
  }, 60_000);
});

describe("a placeholder API key (Ollama's documented OPENAI_API_KEY=ollama)", () => {
  it('does not stop a run whose model name holds it, nor rewrite text that does', async () => {
    const results = path.join(tmp, 'r-ollama');
    const r = await runCli(
      [
        'run',
        '--task',
        'hotpotqa',
        '--method',
        'cot',
        '--indices',
        '0',
        '--model',
        'ollama-llama3',
        '--base-url',
        plain.baseURL,
        '--results-dir',
        results,
      ],
      { cwd: tmp, env: cleanEnv({ OPENAI_API_KEY: 'ollama' }, path.join(tmp, 'c-ollama')) },
    );
    expect(r.code, r.stderr).toBe(0);
    const [dir] = runDirs(results);
    expect(JSON.parse(fs.readFileSync(path.join(results, dir, 'manifest.json'), 'utf8')).model).toBe('ollama-llama3');
  }, 60_000);
});
