// A fleet of model endpoints (`--base-url A,B`, docs/cluster.md): a call that fails on one endpoint is
// retried on another, so the run is complete with right figures; the closing lines then name each
// endpoint that failed, with what its attempts got, and say nothing when every endpoint answered.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { cleanEnv, runCli, scriptedRespond } from '../run/cli-helpers.js';
import { deadPort } from '../servers/dead-port.js';

let tmp: string;
let healthy: OpenAIServer;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fleet-endpoints-'));
  healthy = await startOpenAIServer({ respond: scriptedRespond });
});
afterAll(async () => {
  await healthy.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** fever standard: one model call an episode; the failing endpoint first, so the first call goes to it. */
function run(name: string, baseUrls: string[]) {
  return runCli(
    [
      'run',
      '--task',
      'fever',
      '--method',
      'standard',
      '--model',
      'test-model',
      '--limit',
      '3',
      '--concurrency',
      '1',
      '--cache',
      'off',
      '--base-url',
      baseUrls.join(','),
      '--results-dir',
      path.join(tmp, name),
    ],
    { cwd: tmp, env: cleanEnv() },
  );
}

const endpointLinesOf = (stderr: string) => stderr.split('\n').filter((l) => l.includes('model endpoint '));

describe('closing lines of a run on several model endpoints', () => {
  it('one endpoint refusing connections: the run is complete (exit 0) and one line names it, without its query (a key may be in it)', async () => {
    const dead = `http://127.0.0.1:${await deadPort()}/v1?api-version=1&api-key=fleetsecret0123456`;
    const r = await run('refused', [dead, healthy.baseURL]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('errors 0');
    expect(r.stdout).toContain('[complete]');
    const lines = endpointLinesOf(r.stderr);
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^react-repro: model endpoint http:\/\/127\.0\.0\.1:\d+\/v1: answered 0 of its (\d+) attempts? \(\1 refused connections?\)$/,
    );
    expect(r.stderr + r.stdout).not.toContain('fleetsecret0123456');
  }, 30_000);

  it('three of four endpoints refusing connections: each call still reaches the live one (exit 0, errors 0)', async () => {
    const dead = [
      `http://127.0.0.1:${await deadPort()}/v1`,
      `http://127.0.0.1:${await deadPort()}/v1`,
      `http://127.0.0.1:${await deadPort()}/v1`,
    ];
    const r = await run('three-refused', [...dead, healthy.baseURL]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('errors 0');
    expect(r.stdout).toContain('[complete]');
    const lines = endpointLinesOf(r.stderr);
    expect(lines, r.stderr).toHaveLength(3);
    // The first call tried each dead endpoint once before the live one.
    for (const l of lines) expect(l).toMatch(/: answered 0 of its (\d+) attempts? \(\1 refused connections?\)$/);
  }, 60_000);

  it('one endpoint answering 500 to every call: exit 0, one line with its HTTP 500 count', async () => {
    const broken = await startOpenAIServer({
      respond: scriptedRespond,
      fault: (req) => (/completions$/.test(req.path) ? { kind: 'status', status: 500 } : undefined),
    });
    try {
      const r = await run('http500', [broken.baseURL, healthy.baseURL]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('errors 0');
      const lines = endpointLinesOf(r.stderr);
      expect(lines, r.stderr).toHaveLength(1);
      const m = /^react-repro: model endpoint (\S+): answered 0 of its (\d+) attempts? \((\d+) HTTP 500 responses?\)$/.exec(lines[0]);
      expect(m, lines[0]).not.toBeNull();
      expect(m![1]).toBe(broken.baseURL.replace(/\/+$/, ''));
      // Every attempt that reached it is counted, and it got at least the first call.
      expect(m![2]).toBe(m![3]);
      expect(Number(m![2])).toBe(broken.requests.filter((q) => /completions$/.test(q.path)).length);
      expect(Number(m![2])).toBeGreaterThan(0);
    } finally {
      await broken.close();
    }
  }, 30_000);

  it('both endpoints answering every call: no such line', async () => {
    const other = await startOpenAIServer({ respond: scriptedRespond });
    try {
      const r = await run('healthy', [other.baseURL, healthy.baseURL]);
      expect(r.code, r.stderr).toBe(0);
      expect(endpointLinesOf(r.stderr)).toEqual([]);
      // Both were used: the silence is not for want of calls.
      expect(other.requests.length).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  }, 30_000);
});
