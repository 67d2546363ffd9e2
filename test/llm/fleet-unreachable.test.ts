// A fleet with dead members (`--base-url A,B,C`, docs/cluster.md): an endpoint that refuses a call's
// attempt is not picked again in that call while another one is left, and the quick give-up on an
// unreachable server (retry.ts UNREACHABLE_ATTEMPTS) waits until every endpoint refused; a dead fleet is
// still reported after 3 attempts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/util/clock.js';
import { EndpointPool } from '../../src/llm/endpoints.js';
import { openModel, resolveModelConfig } from '../../src/llm/index.js';
import { InfraError } from '../../src/errors.js';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { req } from './helpers.js';

/** A base URL on 127.0.0.1 where nothing listens (bound, then closed): connections are refused. */
async function deadURL(): Promise<string> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}/v1`;
}

let live: OpenAIServer;
let answerHeld: () => void = () => {};
beforeAll(async () => {
  const held = new Promise<void>((r) => (answerHeld = r));
  // The prompt "hold" is answered only once the test lets it: the live endpoint stays busy meanwhile.
  live = await startOpenAIServer({ respond: async (r) => (r.prompt === 'hold' ? (await held, ' held') : ' live') });
});
afterAll(async () => {
  answerHeld();
  await live.close();
});

/** The model on these endpoints, virtual clock, backoff at half its ceiling (500 ms, then 1000 ms...). */
async function fleet(urls: string[], balance: 'round-robin' | 'least-busy') {
  const cfg = resolveModelConfig({ model: 'test-model', baseUrl: urls, cache: 'off', balance }, {});
  return openModel(cfg, { clock: new VirtualClock(), random: () => 0.5 });
}

const refusedOnce = { attempts: 1, answered: 0, failures: { refused: 1 } };

describe('a fleet with dead endpoints', () => {
  it('three dead and one live (round-robin): the call reaches the live one at its fourth attempt', async () => {
    const dead = [await deadURL(), await deadURL(), await deadURL()];
    const opened = await fleet([...dead, live.baseURL], 'round-robin');
    live.reset();
    const r = await opened.backend.complete(req('q'));
    expect(r.choices[0].text).toBe(' live');
    expect(live.completionRequests()).toHaveLength(1);
    expect(opened.endpointTallies().slice(0, 3)).toEqual(dead.map((endpoint) => ({ endpoint, ...refusedOnce })));
    opened.cache.close();
  });

  it('least-busy with the live endpoint busy: a refused endpoint is not tried again once its cooling ends', async () => {
    const dead = [await deadURL(), await deadURL()];
    const opened = await fleet([...dead, live.baseURL], 'least-busy');
    live.reset();
    // Occupies the live endpoint: the dead ones (0 in flight) look least busy to every later pick.
    const busy = opened.backend.complete(req('hold'));
    try {
      await expect.poll(() => live.completionRequests().length, { timeout: 10_000, interval: 5 }).toBe(1);
      const refused = () => opened.endpointTallies().map((t) => t.failures.refused ?? 0);
      const before = refused();
      // dead 1 (cools 1 s, backoff 500 ms), dead 2 (backoff 1 s): at the third attempt dead 1 has cooled off.
      const r = await opened.backend.complete(req('q'));
      expect(r.choices[0].text).toBe(' live');
      expect(refused()).toEqual([before[0] + 1, before[1] + 1, 0]);
      expect(live.completionRequests()).toHaveLength(2);
    } finally {
      answerHeld();
    }
    expect((await busy).choices[0].text).toBe(' held');
    opened.cache.close();
  });

  it('every endpoint dead: the call is an error after 3 attempts, one on each', async () => {
    const dead = [await deadURL(), await deadURL(), await deadURL()];
    for (const balance of ['round-robin', 'least-busy'] as const) {
      const opened = await fleet(dead, balance);
      const e = await opened.backend.complete(req('q')).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(InfraError);
      expect((e as InfraError).message).toMatch(/failed after 3 attempts: connection error \(ECONNREFUSED\)$/);
      expect(opened.endpointTallies()).toEqual(dead.map((endpoint) => ({ endpoint, ...refusedOnce })));
      opened.cache.close();
    }
  });

  it('EndpointPool passes over the endpoints a call found unreachable while another is left, cooling or not', () => {
    for (const policy of ['round-robin', 'least-busy'] as const) {
      const p = new EndpointPool(
        [
          { label: 'x', client: 1 },
          { label: 'y', client: 2 },
          { label: 'z', client: 3 },
        ],
        policy,
      );
      const [x, y, z] = p.endpoints;
      z.coolUntil = 100;
      z.inFlight = 5;
      expect([p.pick(0, new Set([x, y])), p.pick(0, new Set([x, y]))].map((e) => e.label)).toEqual(['z', 'z']);
      // All unreachable: the usual choice among them (the cooling one passed over).
      expect(p.pick(0, new Set([x, y, z])).label).not.toBe('z');
    }
  });
});
