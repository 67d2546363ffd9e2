// Secrets (README "Reliability"): a key never reaches a file the run writes (manifest, episodes, summary, lock,
// completion cache), stdout/stderr, or a report -- whether it sits in the environment (--api-key-env),
// in --wiki-url's userinfo (sent as Basic auth, recorded as ***@), or in --base-url's userinfo (refused
// at once with a one-line error saying to use the environment variable).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer, type ServerCompletionRequest } from '../servers/openai-server.js';
import { startWikiServer, type WikiServer } from '../servers/wiki-server.js';
import { cleanEnv, runCli, runDirs } from '../run/cli-helpers.js';

const API_KEY = 'sk-secret-api-0123456789abcdefQRS';
const WIKI_KEY = 'wikiPass-9876543210zyxw';

function respond(req: ServerCompletionRequest): string {
  const m = /Thought (\d+):$/.exec(req.prompt);
  const i = m ? Number(m[1]) : 1;
  return i === 1
    ? ' Look it up.\nAction 1: Search[Colorado orogeny]\nObservation 1: x'
    : ` Done.\nAction ${i}: Finish[yes]\nObservation ${i}: x`;
}

let tmp: string;
let llm: OpenAIServer;
let wiki: WikiServer;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-secrets-'));
  llm = await startOpenAIServer({ respond, apiKey: API_KEY });
  wiki = await startWikiServer();
});
afterAll(async () => {
  await llm.close();
  await wiki.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => fs.statSync(f).isFile());
}

/** Asserts no secret appears in any of these texts or files (bytes, also percent-encoded). */
function expectNoSecrets(texts: string[], files: string[]): void {
  const forms = [API_KEY, WIKI_KEY, encodeURIComponent(WIKI_KEY)];
  for (const t of texts) for (const k of forms) expect(t).not.toContain(k);
  for (const f of files) {
    const buf = fs.readFileSync(f);
    for (const k of forms) expect(buf.includes(Buffer.from(k)), `${f} holds a secret`).toBe(false);
  }
}

describe('secrets', () => {
  it('--base-url with user:KEY@ is a one-line error naming the environment variable; the key is not echoed, nothing written', async () => {
    const results = path.join(tmp, 'r-baseurl');
    const cache = path.join(tmp, 'c-baseurl');
    const host = new URL(llm.baseURL).host;
    const r = await runCli(
      [
        'run',
        '--method',
        'cot',
        '--limit',
        '1',
        '--base-url',
        `http://user:${API_KEY}@${host}/v1`,
        '--model',
        'test-model',
        '--results-dir',
        results,
      ],
      {
        cwd: tmp,
        env: cleanEnv({}, cache),
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `react-repro: --base-url: the URL holds credentials (user:KEY@host), which are not accepted: put the key in the environment variable OPENAI_API_KEY (or name another with --api-key-env) and give the URL without it, e.g. http://${host}/v1`,
    );
    expect(fs.existsSync(results)).toBe(false);
    expect(fs.existsSync(cache)).toBe(false);
    const viaEnv = await runCli(
      ['run', '--method', 'cot', '--limit', '1', '--model', 'test-model', '--api-key-env', 'MY_KEY', '--results-dir', results],
      {
        cwd: tmp,
        env: cleanEnv({ OPENAI_BASE_URL: `http://u:${API_KEY}@${host}/v1`, MY_KEY: 'x' }, cache),
      },
    );
    expect(viaEnv.code).toBe(2);
    expect(viaEnv.stderr).toMatch(/^react-repro: OPENAI_BASE_URL: the URL holds credentials .* environment variable MY_KEY /);
    expectNoSecrets([r.stdout, r.stderr, viaEnv.stdout, viaEnv.stderr], []);
  });

  it('a key in the environment and one in --wiki-url reach no file of the run, no output, no report; a resume asks for --wiki-url again', async () => {
    const results = path.join(tmp, 'r-wiki');
    const cache = path.join(tmp, 'c-wiki');
    const env = cleanEnv({ MY_KEY: API_KEY }, cache);
    const wikiUrl = `http://wikiuser:${WIKI_KEY}@${new URL(wiki.url).host}`;
    const args = [
      'run',
      '--task',
      'hotpotqa',
      '--method',
      'react',
      '--indices',
      '0,1',
      '--wiki',
      'live',
      '--wiki-url',
      wikiUrl,
      '--base-url',
      llm.baseURL,
      '--model',
      'test-model',
      '--api-key-env',
      'MY_KEY',
      '--results-dir',
      results,
    ];
    const dry = await runCli([...args, '--dry-run'], { cwd: tmp, env });
    expect(dry.code).toBe(0);
    const r = await runCli(args, { cwd: tmp, env });
    expect(r.code).toBe(0);
    expect(wiki.requests.some((q) => q.startsWith('/w/index.php?search=Colorado+orogeny'))).toBe(true);
    const [dir] = runDirs(results);
    const m = JSON.parse(fs.readFileSync(path.join(results, dir, 'manifest.json'), 'utf8'));
    expect(m.settings.wikiUrl).toBe(`http://***@${new URL(wiki.url).host}`);
    expect(m.settings.apiKeyEnv).toBe('MY_KEY');
    expect(filesUnder(cache).some((f) => f.endsWith('.sqlite'))).toBe(true); // the completion cache was written
    const resumed = await runCli(['run', '--resume', dir, '--results-dir', results], { cwd: tmp, env });
    expect(resumed.code).toBe(2);
    expect(resumed.stderr.trim()).toBe(
      `react-repro: --resume ${dir}: --wiki-url had credentials in its URL, which runs never record: give --wiki-url again`,
    );
    const resumed2 = await runCli(['run', '--resume', dir, '--results-dir', results, '--wiki-url', wikiUrl], { cwd: tmp, env });
    expect(resumed2.code).toBe(0);
    const out = path.join(tmp, 'report-out');
    fs.mkdirSync(out);
    const report = await runCli(['report', results, '--out', path.join(out, 'report.md')], { cwd: tmp, env });
    expect(report.code).toBe(0);
    expect(fs.statSync(path.join(out, 'report.md')).size).toBeGreaterThan(0);
    const outputs = [dry, r, resumed, resumed2, report].flatMap((x) => [x.stdout, x.stderr]);
    expectNoSecrets(outputs, [...filesUnder(results), ...filesUnder(cache), ...filesUnder(out)]);
  }, 60_000);
});
