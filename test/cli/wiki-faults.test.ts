// Live-Wikipedia faults (README "Reliability") at 25% (5xx, 429 with Retry-After, garbage 200, empty
// 200, dropped connections, bodies cut mid-way), injected by test/servers/fault-proxy.ts in front of
// test/servers/wiki-server.ts, through `react-repro run --wiki live`: every scored episode is identical
// to the fault-free run's, and the progress line counts the retries as they happen.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer, type ServerCompletionRequest } from '../servers/openai-server.js';
import { startWikiServer, type WikiServer } from '../servers/wiki-server.js';
import { startFaultProxy, type FaultProxy } from '../servers/fault-proxy.js';
import { cleanEnv, readLines, runCli, runDirs } from '../run/cli-helpers.js';

/** ReAct turns that visit two articles (each a 302 + page) and a search page, then finish. */
function respond(req: ServerCompletionRequest): string {
  const m = /Thought (\d+):$/.exec(req.prompt);
  const i = m ? Number(m[1]) : 0;
  const act = ['Search[Colorado orogeny]', 'Search[AT&T]', 'Search[Plains]', 'Finish[yes]'][Math.min(i, 4) - 1] ?? 'Finish[yes]';
  return ` Step ${i}.\nAction ${i}: ${act}\nObservation ${i}: made up`;
}

let tmp: string;
let llm: OpenAIServer;
let wiki: WikiServer;
let proxy: FaultProxy;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-wikifault-'));
  llm = await startOpenAIServer({ respond });
  wiki = await startWikiServer();
  // at most 3 faults in a row: the 10 attempts of a Wikipedia request always get through
  proxy = await startFaultProxy({ upstream: wiki.url, rate: 0.25, seed: 12, maxConsecutive: 3, retryAfter: '1' });
});
afterAll(async () => {
  await proxy.close();
  await wiki.close();
  await llm.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const run = (wikiUrl: string, results: string) =>
  runCli(
    [
      'run',
      '--task',
      'hotpotqa',
      '--method',
      'react',
      '--indices',
      '0,1,2,3,4,5,6,7',
      '--concurrency',
      '4',
      '--wiki',
      'live',
      '--wiki-url',
      wikiUrl,
      '--wiki-timeout',
      '5',
      '--base-url',
      llm.baseURL,
      '--model',
      'test-model',
      '--cache',
      'off',
      '--results-dir',
      results,
    ],
    { cwd: tmp, env: cleanEnv() },
  );

/** A record without what legitimately differs between two runs (wall-clock latency). */
const comparable = (r: Record<string, unknown>) => {
  const { latency_ms: _l, ...rest } = r;
  return rest;
};

describe('live Wikipedia behind a 25% fault proxy', () => {
  it('every episode is scored and identical to the fault-free run; retries show in the progress line', async () => {
    const clean = await run(wiki.url, path.join(tmp, 'clean'));
    expect(clean.code).toBe(0);
    const faulty = await run(proxy.url, path.join(tmp, 'faulty'));
    expect(faulty.code).toBe(0);
    const injected = Object.values(proxy.injected).reduce((a, b) => a + b, 0);
    // Seed 12 draws each of these kinds within the first 42 requests (this run sends 48 or more);
    // a 'cut' drawn for a bodiless 302 is forwarded whole, so cuts are not required.
    for (const k of ['5xx', '429', 'garbage', 'empty', 'drop'] as const) expect(proxy.injected[k]).toBeGreaterThan(0);
    const [a] = runDirs(path.join(tmp, 'clean'));
    const [b] = runDirs(path.join(tmp, 'faulty'));
    const recsA = new Map(readLines(path.join(tmp, 'clean', a, 'episodes.jsonl')).map((r) => [r.idx, r]));
    const recsB = new Map(readLines(path.join(tmp, 'faulty', b, 'episodes.jsonl')).map((r) => [r.idx, r]));
    expect(recsB.size).toBe(8);
    for (const [idx, rec] of recsB) {
      expect(rec.error).toBeNull();
      expect(comparable(rec)).toEqual(comparable(recsA.get(idx)));
    }
    // the observations really came from the site (an article and a search page)
    expect(recsB.get(0).steps[0].observation).toMatch(/orogeny/i);
    const finalProgress = faulty.stderr
      .split('\n')
      .filter((l) => / \d+\/8 \(\d+%\) EM /.test(l))
      .at(-1)!;
    const retries = Number(/ retries (\d+) /.exec(finalProgress)![1]);
    expect(retries).toBeGreaterThan(0);
    expect(retries).toBeLessThanOrEqual(injected);
    expect(
      / retries (\d+) /.exec(
        clean.stderr
          .split('\n')
          .filter((l) => / \d+\/8 \(\d+%\) EM /.test(l))
          .at(-1)!,
      )![1],
    ).toBe('0');
    console.log(
      `wiki faults: ${JSON.stringify(proxy.injected)} injected over ${proxy.forwarded} forwarded requests; ${retries} retries; 8/8 episodes identical`,
    );
  }, 120_000);
});
