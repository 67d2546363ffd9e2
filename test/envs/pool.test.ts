// src/envs/pool.ts on its own: least-busy dispatch, the start check (a silent member left out, an odd
// fingerprint refused by name), probing before leaving a member out, restarts, and no member left.
import { describe, expect, it } from 'vitest';
import { EnvRestart, EnvServerPool, PooledEnv, splitUrlList } from '../../src/envs/pool.js';
import { FatalRunError, InfraError, UserError } from '../../src/errors.js';
import type { Env } from '../../src/envs/types.js';
import { recordableSettings, redactedSettingKeys } from '../../src/run/manifest.js';

interface Ctx {
  name: string;
  up: boolean;
  fp: string;
}

function pool(ctxs: Ctx[], warnings: string[] = []) {
  const byUrl = new Map(ctxs.map((c) => [`http://${c.name}`, c]));
  return new EnvServerPool<Ctx>({
    flag: '--env-url',
    service: 'test server',
    urls: [...byUrl.keys()],
    makeCtx: (url) => byUrl.get(url)!,
    probe: async (c) => {
      if (!c.up) throw new InfraError(`${c.name}: connection refused`, 'env');
    },
    warn: (m) => warnings.push(m),
  });
}
const item = (index: number) => ({ index, id: `item ${index}`, input: '' });
const noAnswer = () => new InfraError('connection refused', 'env');

/** An env over one member: fails with no answer when the member is down. */
function envOf(c: Ctx): Env {
  const call = async () => {
    if (!c.up) throw noAnswer();
    return { observation: `${c.name}`, reward: 0, done: false, info: {} };
  };
  return { reset: async () => ({ observation: c.name, info: {} }), step: call };
}

describe('EnvServerPool', () => {
  it('sends each episode to the least busy healthy member, ties to the first listed', () => {
    const p = pool([{ name: 'a', up: true, fp: 'x' }, { name: 'b', up: true, fp: 'x' }, { name: 'c', up: true, fp: 'x' }]);
    const taken = [0, 1, 2, 3].map((i) => p.take(item(i)).ctx.name);
    expect(taken).toEqual(['a', 'b', 'c', 'a']);
    p.give(p.members[1]);
    expect(p.take(item(4)).ctx.name).toBe('b');
    expect(p.servedBy()).toEqual({ 0: 'http://a', 1: 'http://b', 2: 'http://c', 3: 'http://a', 4: 'http://b' });
  });

  it('start check: a silent member is left out with a warning; an odd fingerprint refuses the run naming it', async () => {
    const warnings: string[] = [];
    const ctxs = [{ name: 'a', up: true, fp: 'x' }, { name: 'b', up: false, fp: 'x' }, { name: 'c', up: true, fp: 'x' }];
    const p = pool(ctxs, warnings);
    await p.check(async (c) => {
      if (!c.up) throw noAnswer();
      return { fp: c.fp };
    });
    expect(p.healthy().map((m) => m.ctx.name)).toEqual(['a', 'c']);
    expect(warnings).toEqual([expect.stringMatching(/^--env-url: http:\/\/b does not answer at start .*left out of the pool, its episodes go to http:\/\/a, http:\/\/c$/)]);
    const odd = pool([{ name: 'a', up: true, fp: 'x' }, { name: 'b', up: true, fp: 'y' }, { name: 'c', up: true, fp: 'x' }]);
    await expect(odd.check(async (c) => c.fp)).rejects.toThrow(new UserError('--env-url: http://b does not serve what http://a serves ("y" vs "x"): every member of a pool must serve the same games / site'));
    const dead = pool([{ name: 'a', up: false, fp: 'x' }, { name: 'b', up: false, fp: 'x' }]);
    await expect(dead.check(async (c) => (c.up ? c.fp : Promise.reject(noAnswer())))).rejects.toBeInstanceOf(InfraError);
  });

  it('start check with no member answering: one InfraError naming every member and why, each once', async () => {
    const p = pool([{ name: 'a', up: false, fp: 'x' }, { name: 'b', up: false, fp: 'x' }, { name: 'c', up: false, fp: 'x' }]);
    const err = await p
      .check(async (c) => {
        // Errors that name their member (as the benchmarks' checks do) and one that does not.
        if (c.name === 'c') throw new InfraError('timed out', 'env');
        throw new InfraError(`--env-url http://${c.name}: the test server does not answer (connection refused)`, 'env');
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InfraError);
    expect((err as InfraError).source).toBe('env');
    expect((err as InfraError).message).toBe(
      '--env-url: no test server of the pool answers at start (http://a: the test server does not answer (connection refused); ' +
        'http://b: the test server does not answer (connection refused); http://c: timed out)',
    );
  });

  it("each member's state: a member left out is marked with why and when", async () => {
    const ctxs = [{ name: 'a', up: true, fp: 'x' }, { name: 'b', up: true, fp: 'x' }];
    const p = pool(ctxs);
    expect(p.state()).toEqual([{ url: 'http://a', healthy: true }, { url: 'http://b', healthy: true }]);
    await new PooledEnv(p, item(0), envOf).reset();
    const e1 = new PooledEnv(p, item(1), envOf);
    expect((await e1.reset()).observation).toBe('b');
    ctxs[1].up = false;
    const before = Date.now();
    await expect(e1.step('look')).rejects.toBeInstanceOf(EnvRestart);
    const [a, b] = p.state();
    expect(a).toEqual({ url: 'http://a', healthy: true });
    expect(b).toEqual({ url: 'http://b', healthy: false, leftOut: expect.stringMatching(/^stopped answering \(connection refused; probe: b: connection refused\)$/), leftOutAt: expect.any(String) });
    expect(Date.parse(b.leftOutAt!)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('a member that still answers its probe keeps serving; one that does not is left out and the episode restarts', async () => {
    const warnings: string[] = [];
    const ctxs = [{ name: 'a', up: true, fp: 'x' }, { name: 'b', up: true, fp: 'x' }];
    const p = pool(ctxs, warnings);
    const e0 = new PooledEnv(p, item(0), envOf);
    const e1 = new PooledEnv(p, item(1), envOf);
    expect((await e0.reset()).observation).toBe('a');
    expect((await e1.reset()).observation).toBe('b');
    // A failure on a member that answers the probe: the episode's own error, the member stays.
    const flaky: Env = { reset: async () => ({ observation: 'a', info: {} }), step: async () => Promise.reject(noAnswer()) };
    const e2 = new PooledEnv(p, item(2), () => flaky);
    await e2.reset();
    await expect(e2.step('x')).rejects.not.toBeInstanceOf(EnvRestart);
    expect(p.healthy()).toHaveLength(2);
    // b goes down: its episode restarts, b is left out with a warning naming it.
    ctxs[1].up = false;
    await expect(e1.step('look')).rejects.toBeInstanceOf(EnvRestart);
    expect(p.healthy().map((m) => m.ctx.name)).toEqual(['a']);
    expect(warnings.join('\n')).toMatch(/--env-url: http:\/\/b stopped answering .*left out of the pool, its episodes go to http:\/\/a/);
    // A reset finds the next member by itself.
    const e3 = new PooledEnv(p, item(3), envOf);
    expect((await e3.reset()).observation).toBe('a');
    // a goes down too: nothing is left, the run stops naming both.
    ctxs[0].up = false;
    await expect(e0.step('look')).rejects.toThrow(FatalRunError);
    await expect(e0.step('look')).rejects.toThrow(/no test server of the pool answers \(http:\/\/a stopped answering .*; http:\/\/b stopped answering/);
  });

  it('splits a URL list, refusing empty and repeated entries', () => {
    expect(splitUrlList('http://a, http://b/', '--env-url')).toEqual(['http://a', 'http://b/']);
    expect(() => splitUrlList('http://a,,http://b', '--env-url')).toThrow(/empty entry/);
    expect(() => splitUrlList('http://a,http://a/', '--env-url')).toThrow(/http:\/\/a\/ is listed twice/);
    // the messages never show a key in the userinfo
    expect(() => splitUrlList('http://u:KEY1@a,,http://b', '--env-url')).toThrow(/^--env-url http:\/\/\*\*\*@a,,http:\/\/b: an empty entry/);
    expect(() => splitUrlList('http://u:KEY1@a,http://u:KEY1@a/', '--env-url')).toThrow(/^--env-url: http:\/\/\*\*\*@a\/ is listed twice/);
    // an entry with a query or fragment is refused first, named without its query (a key, maybe), whatever else is wrong
    for (const list of ['http://a,http://b?v=KEY2', 'http://a#KEY2,,http://b', 'http://u:KEY1@b?v=KEY2,http://u:KEY1@b?v=KEY2']) {
      expect(() => splitUrlList(list, '--wiki-url')).toThrow(/^--wiki-url http:\/\/(\*\*\*@)?[ab][?#]\.\.\.: the URL may not carry a query or fragment: /);
      expect(() => splitUrlList(list, '--wiki-url')).not.toThrow(/KEY/);
    }
    // a "#" or "?" inside a password is not where the URL's query starts: the userinfo is not shown at all
    for (const url of ['http://user:Pa55#word@host:8080', 'http://user:Hunter?2@host', 'http://user:Pa55#word@host/p?api-key=SECRET']) {
      expect(() => splitUrlList(url, '--wiki-url')).toThrow(/^--wiki-url http:\/\/\*\*\*@host(:8080)?\.\.\.: the URL may not carry a query or fragment: /);
      expect(() => splitUrlList(url, '--wiki-url')).not.toThrow(/Pa55|Hunter|user|SECRET|api-key/);
    }
    // an "@" in the query or fragment is not a userinfo's: the URL is shown up to its query
    for (const url of ['http://wiki.local/?user=me@x.org&api-key=SECRET', 'http://host/#frag@SECRET', 'http://h/?next=http://a:SECRET@b/']) {
      expect(() => splitUrlList(url, '--wiki-url')).toThrow(/^--wiki-url http:\/\/[a-z.]+\/[?#]\.\.\.: /);
      expect(() => splitUrlList(url, '--wiki-url')).not.toThrow(/SECRET|api-key|x\.org/);
    }
  });

  it("a pool's URL credentials never reach the recorded settings, for any member", () => {
    const rec = recordableSettings({ envUrl: 'http://a:1,http://u:KEY1@b:2,https://v:KEY2@c/w' });
    expect(rec).toEqual({ envUrl: 'http://a:1,http://***@b:2,https://***@c/w' });
    expect(redactedSettingKeys(rec)).toEqual(['envUrl']);
  });
});
