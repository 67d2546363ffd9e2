// Live and API Wikipedia behind a fault-injecting proxy (README "Reliability"): with 25% of the
// requests answered by a 5xx, a 429 with Retry-After, a garbage or empty 200, a dropped connection or
// a body cut in the middle, every observation of a fixed action script is identical to the fault-free
// run; with every request faulty, each kind of fault ends in an InfraError, never an observation.
// Backoff sleeps go through a VirtualClock (recorded, not waited).
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWikiServer, type WikiServer } from '../../servers/wiki-server.js';
import { FAULT_KINDS, startFaultProxy, type FaultKind, type FaultProxy } from '../../servers/fault-proxy.js';
import { LiveHtmlBackend, notAWikiPage } from '../../../src/envs/wikipedia/live-backend.js';
import { ApiBackend, notAnApiAnswer } from '../../../src/envs/wikipedia/api-backend.js';
import { RecordingBackend } from '../../../src/envs/wikipedia/record-replay.js';
import type { WikiBackend } from '../../../src/envs/wikipedia/backend.js';
import { WikiEnv } from '../../../src/envs/wikipedia/wiki-env.js';
import { InfraError } from '../../../src/errors.js';
import { VirtualClock } from '../../../src/util/clock.js';
import { PythonRandom } from '../../../src/util/python-random.js';

const fx = JSON.parse(readFileSync(path.join(__dirname, '../../fixtures/wikipedia/episodes.json'), 'utf8'));
/** The action script: every action of the CPython fixture episodes, one episode per list. */
const SCRIPT: string[][] = (fx.episodes as { steps: { action: string | null }[] }[]).map((e) => e.steps.slice(1).map((s) => s.action!));

let server: WikiServer;
beforeAll(async () => {
  server = await startWikiServer();
});
afterAll(async () => server.close());

/** Each step's observation (or the error's class name when it throws) for the whole script. */
async function observe(make: () => WikiBackend): Promise<string[][]> {
  const out: string[][] = [];
  for (const actions of SCRIPT) {
    const env = new WikiEnv(make());
    const obs: string[] = [(await env.reset()).observation];
    for (const a of actions) {
      try {
        const r = await env.step(a);
        obs.push(`${r.observation} | done=${r.done}`);
      } catch (e) {
        obs.push(`threw ${(e as Error).name}`);
        break;
      }
    }
    out.push(obs);
  }
  return out;
}

const retryOpts = (seed: number) => {
  const r = new PythonRandom(seed);
  return { clock: new VirtualClock(), random: () => r.random(), timeoutMs: 5000 };
};

describe.each([
  ['live', (url: string, seed: number) => new LiveHtmlBackend({ baseUrl: url, ...retryOpts(seed) })],
  ['api', (url: string, seed: number) => new ApiBackend({ baseUrl: url, ...retryOpts(seed) })],
] as const)('%s backend under faults', (_name, make) => {
  let proxy: FaultProxy;
  beforeAll(async () => {
    // At most 5 faults in a row: with 10 attempts every request gets through whatever the draw.
    proxy = await startFaultProxy({ upstream: server.url, rate: 0.25, seed: 11, maxConsecutive: 5 });
  });
  afterAll(async () => proxy.close());

  it('25% faults: every observation identical to the fault-free run', async () => {
    const clean = await observe(() => make(server.url, 1));
    expect(clean.flat().some((o) => o.startsWith('threw InfraError'))).toBe(false);
    for (let round = 0; round < 3; round++) {
      const faulty = await observe(() => make(proxy.url, 100 + round));
      expect(faulty).toEqual(clean);
    }
    // every kind of fault was met (and survived)
    for (const k of FAULT_KINDS) expect(proxy.injected[k], k).toBeGreaterThan(0);
  });

  it.each([...FAULT_KINDS])('every request faulty (%s): InfraError, never an observation', async (kind: FaultKind) => {
    const all = await startFaultProxy({ upstream: server.url, rate: 1, seed: 3, kinds: [kind] });
    try {
      const env = new WikiEnv(make(all.url, 7));
      await env.reset();
      const err = await env.step('search[Colorado orogeny]').catch((e) => e);
      expect(err).toBeInstanceOf(InfraError);
      expect(err.source).toBe('env');
      expect(err.message).toMatch(/failed 10 times \(last: /);
    } finally {
      await all.close();
    }
  });
});

describe('record under faults', () => {
  it('records only real pages', async () => {
    const proxy = await startFaultProxy({ upstream: server.url, rate: 0.25, seed: 5, maxConsecutive: 5 });
    try {
      const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'wiki-faults-')), 'rec.jsonl');
      const rec = new RecordingBackend(file, { baseUrl: proxy.url, ...retryOpts(9) });
      const env = new WikiEnv(rec);
      await env.reset();
      for (const a of SCRIPT[3]) await env.step(a);
      const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(lines).toHaveLength(SCRIPT[3].length);
      for (const l of lines) expect(notAWikiPage(l.html)).toBeUndefined();
    } finally {
      await proxy.close();
    }
  });
});

describe('what counts as an answer of the expected kind', () => {
  it('index.php: a MediaWiki page view (article or Special:Search), nothing else', () => {
    expect(notAWikiPage('')).toBe('empty body');
    expect(notAWikiPage('  \n')).toBe('empty body');
    expect(notAWikiPage('<html><body><p>Our servers are currently under maintenance or experiencing a technical problem.</p></body></html>')).toMatch(/not a MediaWiki page/);
    expect(notAWikiPage('<p id="mw-content-text-x">no</p>')).toMatch(/not a MediaWiki page/);
    expect(notAWikiPage('<div class="x" id="mw-content-text" lang="en"><p>a</p></div>')).toBeUndefined();
    expect(notAWikiPage("<div id='mw-content-text'>")).toBeUndefined();
    expect(notAWikiPage('<DIV ID=mw-content-text>')).toBeUndefined();
  });
  it('api.php: the fields each call reads, or an API error', () => {
    expect(notAnApiAnswer('pageprops', [])).toBe('not a JSON object');
    expect(notAnApiAnswer('pageprops', {})).toMatch(/no query\.pages/);
    expect(notAnApiAnswer('pageprops', { query: { pages: [{ title: 'A', missing: true }] } })).toBeUndefined();
    expect(notAnApiAnswer('search', { batchcomplete: true })).toMatch(/no query\.search/);
    expect(notAnApiAnswer('search', { query: { search: [] } })).toBeUndefined();
    expect(notAnApiAnswer('parse', { parse: { title: 'A' } })).toMatch(/no parse\.text/);
    expect(notAnApiAnswer('parse', { parse: { title: 'A', text: '' } })).toMatch(/no parse\.text/);
    expect(notAnApiAnswer('parse', { parse: { title: 'A', text: { '*': '<p>x</p>' } } })).toBeUndefined();
    expect(notAnApiAnswer('parse', { error: { code: 'missingtitle', info: 'x' } })).toBeUndefined(); // a real answer: the caller reports it
    expect(notAnApiAnswer('parse', { error: { code: 'maxlag', info: 'Waiting for a database server' } })).toBe('API error maxlag'); // retried
  });
});
