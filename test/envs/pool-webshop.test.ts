// A WebShop run over a pool of two test sites (--env-url A,B; src/envs/pool.ts): both serve episodes and
// the final prompts equal a one-site run's; a site dead from the start is left out (named) and the run
// completes on the other; a site stopped mid-run loses no episode and none is scored on a broken page,
// and the manifest says it was left out; with no site up at start, one line names each.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer, type ServerCompletionRequest } from '../servers/openai-server.js';
import { siteInstruction, startWebshopSite, type WebshopSite } from '../servers/webshop-site.js';
import { readLines, runCli, runDirs } from '../run/cli-helpers.js';

const INDICES = [0, 1, 2, 3, 4, 5, 6, 7];

function shopper(req: ServerCompletionRequest): string {
  const p = req.prompt;
  if (p.endsWith('[Search] \n\nAction:')) return ' search[bright citrus deodorant]\nObservation: made up';
  const obs = p.slice(p.lastIndexOf('Observation: ') + 'Observation: '.length);
  if (obs.includes('Page 1 (Total results')) return ' click[B000DEO001]\n';
  if (obs.startsWith('You have clicked bright citrus.')) return ' click[3 ounce (pack of 1)]\n';
  if (obs.startsWith('You have clicked 3 ounce')) return ' click[Buy Now]\n';
  if (obs.includes('[Buy Now]')) return ' click[bright citrus]\n';
  return ' think[I am lost.]\n';
}

let tmp: string;
let llm: OpenAIServer;
let onCall: ((req: ServerCompletionRequest) => void) | undefined;
const baseline = new Map<number, string>();

async function site(): Promise<WebshopSite> {
  const s = await startWebshopSite();
  s.setGoal('fixed_1', { asin: 'B000DEO002', options: {} });
  return s;
}

function run(envUrl: string, name: string) {
  return runCli(
    ['run', '--task', 'webshop', '--method', 'react', '--env-url', envUrl, '--indices', INDICES.join(','), '--concurrency', '4',
      '--base-url', llm.baseURL, '--model', 'test-model', '--cache', 'off', '--results-dir', path.join(tmp, name)],
    { cwd: tmp },
  );
}
function episodes(name: string): any[] {
  const [dir] = runDirs(path.join(tmp, name));
  return readLines(path.join(tmp, name, dir, 'episodes.jsonl')).sort((a, b) => a.idx - b.idx);
}
function manifest(name: string): any {
  const [dir] = runDirs(path.join(tmp, name));
  return JSON.parse(fs.readFileSync(path.join(tmp, name, dir, 'manifest.json'), 'utf8'));
}
/** Episode start pages a site served (the goals check fetches fixed_0..fixed_99 once before the run). */
const starts = (s: WebshopSite) => s.requests.filter((r) => /^\/fixed_\d+$/.test(r)).length - 100;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pool-webshop-'));
  llm = await startOpenAIServer({
    respond: (req) => {
      onCall?.(req);
      return shopper(req);
    },
  });
  const one = await site();
  try {
    const r = await run(one.url, 'one');
    expect(r.code).toBe(0);
    for (const e of episodes('one')) baseline.set(e.idx, e.traj);
  } finally {
    await one.close();
  }
  expect(baseline.size).toBe(INDICES.length);
});
afterAll(async () => {
  await llm.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('--env-url A,B for WebShop', () => {
  it('two sites both serve episodes; the final prompts equal a one-site run; the manifest says who served what', async () => {
    const a = await site();
    const b = await site();
    try {
      const r = await run(`${a.url},${b.url}`, 'both');
      expect(r.stderr).not.toMatch(/internal error|warning/);
      expect(r.code).toBe(0);
      const eps = episodes('both');
      for (const e of eps) {
        expect(e.error).toBeNull();
        expect(e.traj).toBe(baseline.get(e.idx));
      }
      expect(eps.map((e) => e.idx)).toEqual(INDICES);
      expect(starts(a)).toBeGreaterThan(0);
      expect(starts(b)).toBeGreaterThan(0);
      const served = manifest('both').sessions[0].envServers;
      expect(new Set(Object.values(served))).toEqual(new Set([a.url, b.url]));
      expect(runDirs(path.join(tmp, 'both'))).toEqual(runDirs(path.join(tmp, 'one')));
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('with B dead from the start the run completes on A, exit 0, naming B', async () => {
    const a = await site();
    const b = await site();
    await b.stop();
    try {
      const r = await run(`${a.url},${b.url}`, 'dead');
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(`warning: --env-url: ${b.url} does not answer at start`);
      const eps = episodes('dead');
      expect(eps.map((e) => [e.idx, e.error])).toEqual(INDICES.map((i) => [i, null]));
      for (const e of eps) expect(e.traj).toBe(baseline.get(e.idx));
      const m = manifest('dead');
      expect(new Set(Object.values(m.sessions[0].envServers))).toEqual(new Set([a.url]));
      expect(m.environment.poolUrls).toEqual([
        { url: a.url, healthy: true },
        { url: b.url, healthy: false, leftOut: expect.stringMatching(/^does not answer at start /), leftOutAt: expect.any(String) },
      ]);
    } finally {
      await a.close();
    }
  });

  it('with B stopped mid-run no episode is lost or scored on a broken page', async () => {
    const a = await site();
    const b = await site();
    let stopped = false;
    onCall = (req) => {
      // The model is asked about a results page B served: B goes down in the middle of that episode.
      const session = INDICES.map((i) => `fixed_${i}`).find((x) => req.prompt.includes(siteInstruction(x)));
      const onB = session !== undefined && b.requests.some((r) => r.startsWith(`/search_results/${session}/`));
      if (!stopped && onB) {
        stopped = true;
        void b.stop();
      }
    };
    try {
      const r = await run(`${a.url},${b.url}`, 'killed');
      expect(stopped).toBe(true);
      expect(r.stderr).toContain(`warning: --env-url: ${b.url} stopped answering`);
      expect(r.code).toBe(0);
      const eps = episodes('killed');
      expect(eps.map((e) => [e.idx, e.error])).toEqual(INDICES.map((i) => [i, null]));
      for (const e of eps) expect(e.traj).toBe(baseline.get(e.idx));
      // An episode under way on B started again on A: more start pages than episodes.
      expect(starts(a) + starts(b)).toBeGreaterThan(INDICES.length);
      // The session's record says B was lost, why and when; its goals check is still the one made at start.
      const m = manifest('killed');
      const pool = [
        { url: a.url, healthy: true },
        { url: b.url, healthy: false, leftOut: expect.stringMatching(/^stopped answering /), leftOutAt: expect.any(String) },
      ];
      expect(m.sessions[0].envPool).toEqual(pool);
      // What the run's environment was at its start stays as it was.
      expect(m.environment.poolUrls.map((p: any) => p.healthy)).toEqual([true, true]);
      expect(Date.parse(m.sessions[0].envPool[1].leftOutAt)).toBeGreaterThanOrEqual(Date.parse(m.sessions[0].startedAt));
      expect(m.environment.goals).toEqual(manifest('one').environment.goals);
      // The pool's state is not the run's identity: the one-site run's id.
      expect(runDirs(path.join(tmp, 'killed'))).toEqual(runDirs(path.join(tmp, 'one')));
    } finally {
      onCall = undefined;
      await a.close();
      await b.close();
    }
  });

  it('with every site down at start the run does not start, exit 1, naming each and why', async () => {
    const a = await site();
    const b = await site();
    await a.stop();
    await b.stop();
    try {
      const r = await run(`${a.url},${b.url}`, 'nonestart');
      expect(r.code).toBe(1);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^react-repro: environment unavailable: --env-url: no WebShop site of the pool answers at start \(/);
      for (const u of [a.url, b.url]) expect(lines[0]).toMatch(new RegExp(`WebShop site unreachable at ${u}: failed \\d+ times`));
      expect(runDirs(path.join(tmp, 'nonestart'))).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
