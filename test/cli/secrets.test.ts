// Secrets (README "Reliability"): a key never reaches a file the run writes (manifest, episodes, summary, lock,
// completion cache), stdout/stderr, or a report -- whether it sits in the environment (--api-key-env),
// in --wiki-url's userinfo (sent as Basic auth, recorded as ***@), in --base-url's userinfo (refused
// at once with a one-line error saying to use the environment variable), in --base-url's query
// (?api-key=KEY: sent as given, recorded as ?api-key=***), or in an environment URL's query (refused at
// once: those servers take no query).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer, type ServerCompletionRequest } from '../servers/openai-server.js';
import { startWikiServer, type WikiServer } from '../servers/wiki-server.js';
import { cleanEnv, filesUnder, runCli, runDirs } from '../run/cli-helpers.js';
import { deadPort } from '../servers/dead-port.js';

const API_KEY = 'sk-secret-api-0123456789abcdefQRS';
const WIKI_KEY = 'wikiPass-9876543210zyxw';
const QUERY_KEY = 'SECRETKEY1234567';

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

/** Asserts no secret appears in any of these texts or files (bytes, also percent-encoded; a .gz file also unpacked). */
function expectNoSecrets(texts: string[], files: string[]): void {
  const forms = [API_KEY, WIKI_KEY, encodeURIComponent(WIKI_KEY), QUERY_KEY];
  for (const t of texts) for (const k of forms) expect(t).not.toContain(k);
  for (const f of files) {
    const raw = fs.readFileSync(f);
    for (const buf of f.endsWith('.gz') ? [raw, zlib.gunzipSync(raw)] : [raw]) {
      for (const k of forms) expect(buf.includes(Buffer.from(k)), `${f} holds a secret`).toBe(false);
    }
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

  it('a key in the query of --base-url is sent, recorded as ***, in no file, output, report or bundle; a resume asks for it again; one in the query of --wiki-url is refused', async () => {
    const results = path.join(tmp, 'r-query');
    const cache = path.join(tmp, 'c-query');
    const env = cleanEnv({ MY_KEY: API_KEY }, cache);
    // The query stays a query after the path the client adds (src/llm/endpoints.ts endpointUrl).
    const baseUrl = (key: string) => `${llm.baseURL}?api-version=x&api-key=${key}`;
    const wikiUrl = (key: string) => `${wiki.url}/?api-version=2024-02-01&API_KEY=${key}`;
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
      '--api-key-env',
      'MY_KEY',
      '--model',
      'test-model',
      '--results-dir',
      results,
    ];
    const flags = { base: ['--base-url', baseUrl(QUERY_KEY)], wiki: ['--wiki-url', wiki.url] };
    // The Wikipedia site takes no query: a key there would never be sent, so the run refuses it before it starts.
    const wikiQuery = await runCli([...args, ...flags.base, '--wiki-url', wikiUrl(QUERY_KEY)], { cwd: tmp, env });
    expect(wikiQuery.code).toBe(2);
    expect(wikiQuery.stderr.trim()).toBe(
      `react-repro: --wiki-url ${wiki.url}/?...: the URL may not carry a query or fragment: give the site's base URL; this server takes no query (a key in it would never be sent)`,
    );
    expect(fs.existsSync(results)).toBe(false);
    const dry = await runCli([...args, ...flags.base, ...flags.wiki, '--dry-run'], { cwd: tmp, env });
    expect(dry.code).toBe(0);
    const before = llm.completionRequests().length;
    const r = await runCli([...args, ...flags.base, ...flags.wiki], { cwd: tmp, env });
    expect(r.code).toBe(0);
    // the server was asked with the key, as given
    const sent = llm.completionRequests().slice(before);
    expect(sent.length).toBeGreaterThan(0);
    for (const q of sent) {
      expect(q.path).toBe('/v1/completions');
      expect(q.search).toBe(`?api-version=x&api-key=${QUERY_KEY}`);
    }
    const [dir] = runDirs(results);
    const m = JSON.parse(fs.readFileSync(path.join(results, dir, 'manifest.json'), 'utf8'));
    expect(m.settings.baseUrl).toBe(baseUrl('***'));
    // a resume asks for the flag whose key was not recorded, as for a key in the userinfo
    const resume = ['run', '--resume', dir, '--results-dir', results];
    const noBase = await runCli(resume, { cwd: tmp, env });
    expect(noBase.code).toBe(2);
    expect(noBase.stderr.trim()).toBe(
      `react-repro: --resume ${dir}: --base-url had credentials in its URL, which runs never record: give --base-url again`,
    );
    const resumed = await runCli([...resume, ...flags.base, '--retry-errors'], { cwd: tmp, env });
    expect(resumed.code).toBe(0);
    const out = path.join(tmp, 'query-out');
    fs.mkdirSync(out);
    const report = await runCli(['report', results, '--out', path.join(out, 'report.md')], { cwd: tmp, env });
    expect(report.code).toBe(0);
    const bundle = await runCli(['bundle', path.join(results, dir), '--out', path.join(out, 'runs.tar.gz')], { cwd: tmp, env });
    expect(bundle.code).toBe(0);
    expect(fs.statSync(path.join(out, 'runs.tar.gz')).size).toBeGreaterThan(0);
    const outputs = [wikiQuery, dry, r, noBase, resumed, report, bundle].flatMap((x) => [x.stdout, x.stderr]);
    expectNoSecrets(outputs, [...filesUnder(results), ...filesUnder(cache), ...filesUnder(out)]);
  }, 90_000);

  it("a run recorded with a key in --wiki-url's query (by a version before such URLs were refused): a resume says to give --wiki-url again without its query", async () => {
    const results = path.join(tmp, 'r-old-query');
    const cache = path.join(tmp, 'c-old-query');
    const env = cleanEnv({ MY_KEY: API_KEY }, cache);
    const base = ['--task', 'hotpotqa', '--method', 'react', '--indices', '0', '--wiki', 'live', '--model', 'test-model'];
    const r = await runCli(
      ['run', ...base, '--wiki-url', wiki.url, '--base-url', llm.baseURL, '--api-key-env', 'MY_KEY', '--results-dir', results],
      {
        cwd: tmp,
        env,
      },
    );
    expect(r.code).toBe(0);
    // the manifest as such a version wrote it: the site's URL with its key parameter redacted
    const [dir] = runDirs(results);
    const file = path.join(results, dir, 'manifest.json');
    const m = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(m.settings.wikiUrl).toBe(wiki.url);
    m.settings.wikiUrl = `${wiki.url}/w?key=***`;
    fs.writeFileSync(file, JSON.stringify(m, null, 2) + '\n');
    const resume = ['run', '--resume', dir, '--results-dir', results, '--retry-errors'];
    const asked = await runCli(resume, { cwd: tmp, env });
    expect(asked.code).toBe(2);
    expect(asked.stderr.trim()).toBe(
      `react-repro: --resume ${dir}: --wiki-url had credentials in its URL's query, which runs never record and this server does not take: give --wiki-url again without its query (credentials go in the URL's userinfo, e.g. http://user:KEY@host, sent as Basic auth)`,
    );
    const dry = await runCli([...resume, '--dry-run'], { cwd: tmp, env });
    expect(dry.code).toBe(2);
    expect(dry.stderr.trim()).toBe(asked.stderr.trim());
    // with its query, as it was given then: refused as any such URL
    const withQuery = await runCli([...resume, '--wiki-url', `${wiki.url}/w?key=${QUERY_KEY}`], { cwd: tmp, env });
    expect(withQuery.code).toBe(2);
    expect(withQuery.stderr.trim()).toMatch(/^react-repro: --wiki-url .*\/w\?\.\.\.: the URL may not carry a query or fragment: /);
    // as the message says: resumed
    const resumed = await runCli([...resume, '--wiki-url', `http://wikiuser:${WIKI_KEY}@${new URL(wiki.url).host}`], { cwd: tmp, env });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`resuming ${dir}`);
    // a key in the userinfo beside a query that carried none: the message does not place it in the query
    const again = JSON.parse(fs.readFileSync(file, 'utf8'));
    again.settings.wikiUrl = `http://***@${new URL(wiki.url).host}/w?lang=en`;
    fs.writeFileSync(file, JSON.stringify(again, null, 2) + '\n');
    const userinfo = await runCli(resume, { cwd: tmp, env });
    expect(userinfo.code).toBe(2);
    expect(userinfo.stderr.trim()).toBe(
      `react-repro: --resume ${dir}: --wiki-url had credentials in its URL, which runs never record: give --wiki-url again`,
    );
    const outputs = [r, asked, dry, withQuery, resumed, userinfo].flatMap((x) => [x.stdout, x.stderr]);
    expectNoSecrets(outputs, [...filesUnder(results), ...filesUnder(cache)]);
  }, 90_000);

  it('an unreachable model or Wikipedia URL: the error and the files never show a key; a Wikipedia --env-url with a key in its query is refused', async () => {
    const [llmPort, wikiPort] = [await deadPort(), await deadPort()];
    const deadLlm = `http://127.0.0.1:${llmPort}/v1?api-version=x&api-key=${QUERY_KEY}`;
    const deadWiki = `http://127.0.0.1:${wikiPort}`;
    const results = path.join(tmp, 'r-dead');
    const queryResults = path.join(tmp, 'r-dead-query');
    const cache = path.join(tmp, 'c-dead');
    const base = ['run', '--task', 'hotpotqa', '--limit', '6', '--model', 'test-model'];
    // One episode at a time, the breaker after two: each run stops with episodes left to start, whatever
    // the machine's timing (episodes all in flight when it trips may all be written first: then exit 3).
    const oneAtATime = ['--concurrency', '1', '--max-consecutive-failures', '2'];
    const llmDown = await runCli(
      [...base, '--results-dir', results, '--method', 'cot', '--cache', 'off', '--base-url', deadLlm, ...oneAtATime],
      { cwd: tmp, env: cleanEnv({}, cache) },
    );
    expect(llmDown.code).toBe(1);
    expect(llmDown.stderr).toContain(
      `model "test-model" at http://127.0.0.1:${llmPort}/v1 failed after 3 attempts: connection error (ECONNREFUSED)`,
    );
    // --env-url names the Wikipedia site; the model's URL comes from the environment, with a key in its query
    const llmEnv = cleanEnv({ OPENAI_BASE_URL: `${llm.baseURL}?token=${QUERY_KEY}`, OPENAI_API_KEY: API_KEY }, cache);
    const wikiDown = await runCli([...base, '--results-dir', results, '--method', 'react', '--env-url', deadWiki, ...oneAtATime], {
      cwd: tmp,
      env: llmEnv,
    });
    expect(wikiDown.code).toBe(1);
    expect(wikiDown.stderr).toContain(
      `Wikipedia unreachable at http://127.0.0.1:${wikiPort}: failed 3 times (last: connection refused (ECONNREFUSED))`,
    );
    // A key in the site's query would never be sent (its 401 would pass for an outage): refused at once.
    const wikiQuery = await runCli(
      [...base, '--results-dir', queryResults, '--method', 'react', '--env-url', `${deadWiki}/?Key=${QUERY_KEY}`],
      {
        cwd: tmp,
        env: llmEnv,
      },
    );
    expect(wikiQuery.code).toBe(2);
    expect(wikiQuery.stderr.trim()).toBe(
      `react-repro: --env-url ${deadWiki}/?...: the URL may not carry a query or fragment: give the site's base URL; this server takes no query (a key in it would never be sent)`,
    );
    expect(fs.existsSync(queryResults)).toBe(false);
    const outputs = [llmDown, wikiDown, wikiQuery].flatMap((x) => [x.stdout, x.stderr]);
    expectNoSecrets(outputs, [...filesUnder(results), ...filesUnder(cache)]);
  }, 90_000);
});
