// Table 2's "search found nothing useful" tag on the observation every Wikipedia backend gives for a
// search with no hit (docs/protocol.md §6): the released code's own observation of a page without
// results (the CPython fixture), the offline snapshot, the api backend and the live HTML backend
// against the look-alike site, each through WikiEnv, as a run records it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWikiServer, type WikiServer } from '../../servers/wiki-server.js';
import { buildSnapshot } from '../../../src/envs/wikipedia/snapshot-build.js';
import { SnapshotBackend } from '../../../src/envs/wikipedia/snapshot.js';
import { ApiBackend } from '../../../src/envs/wikipedia/api-backend.js';
import { LiveHtmlBackend } from '../../../src/envs/wikipedia/live-backend.js';
import { WikiEnv } from '../../../src/envs/wikipedia/wiki-env.js';
import type { WikiBackend } from '../../../src/envs/wikipedia/backend.js';
import type { AnalysedEpisode } from '../../../src/benchmarks/types.js';
import { isNoHitObservation, qaAutoTags } from '../../../src/benchmarks/qa/report/error-analysis.js';

const DUMPS = path.join(__dirname, '../../fixtures/wikipedia/dumps');
const fixture = JSON.parse(readFileSync(path.join(__dirname, '../../fixtures/wikipedia/episodes.json'), 'utf8'));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'no-hit-'));
let server: WikiServer;
let snapshot: SnapshotBackend;
beforeAll(async () => {
  server = await startWikiServer();
  const r = await buildSnapshot({ from: [path.join(DUMPS, 'abstracts'), path.join(DUMPS, 'fever')], out: path.join(tmp, 'small.sqlite') });
  snapshot = new SnapshotBackend(r.path);
});
afterAll(async () => {
  await server.close();
  await snapshot.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** The observation a run records for one search through WikiEnv on this backend. */
async function observe(backend: WikiBackend, action: string): Promise<string> {
  const env = new WikiEnv(backend);
  await env.reset();
  return (await env.step(action)).observation;
}

/** An incorrect ReAct episode whose only search observed `observation`. */
const episode = (observation: string): AnalysedEpisode => ({
  idx: 0,
  metrics: { em: 0, f1: 0 },
  steps: [
    { action: 'search[zzzz qqqq]', observation },
    { action: 'finish[unknown]', observation: 'Episode finished, reward = 0\n' },
  ],
});

describe('search-not-found', () => {
  it("counts the no-results page of every backend, and the released code's own observation of it", async () => {
    const released = fixture.episodes
      .flatMap((e: { steps: { action: string | null; obs?: string }[] }) => e.steps)
      .find((s: { action: string | null }) => s.action === 'search[zzzz qqqq]').obs as string;
    const observations = {
      released,
      snapshot: await observe(snapshot, 'search[zzzz qqqq]'),
      api: await observe(new ApiBackend({ baseUrl: server.url }), 'search[zzzz qqqq]'),
      live: await observe(new LiveHtmlBackend({ baseUrl: server.url }), 'search[zzzz qqqq]'),
    };
    // What the backends answer: MediaWiki's message, alone (snapshot, api) or with the skin's text (live).
    expect(observations).toEqual({
      released: 'There were no results matching the query.. Privacy policyAbout Wikipedia.',
      snapshot: 'There were no results matching the query..',
      api: 'There were no results matching the query..',
      live: 'There were no results matching the query.. Privacy policyAbout Wikipedia.',
    });
    for (const [backend, obs] of Object.entries(observations)) {
      expect(isNoHitObservation(obs), backend).toBe(true);
      expect(qaAutoTags(episode(obs)), backend).toEqual(['search-not-found']);
    }
  });

  it('counts "Could not find" and an empty search, never a page that was found', async () => {
    // An empty term: the snapshot and the api answer an empty page.
    for (const backend of [snapshot, new ApiBackend({ baseUrl: server.url })]) {
      const empty = await observe(backend, 'search[#]');
      expect(empty).toBe('');
      expect(qaAutoTags(episode(empty))).toEqual(['search-not-found']);
    }
    const similar = await observe(snapshot, 'search[eastern sector plains]');
    expect(similar).toBe("Could not find eastern sector plains. Similar: ['Colorado orogeny'].");
    expect(qaAutoTags(episode(similar))).toEqual(['search-not-found']);
    const found = await observe(snapshot, 'search[Colorado orogeny]');
    expect(found).toMatch(/^The Colorado orogeny was an episode of mountain building/);
    expect(qaAutoTags(episode(found))).toEqual([]);
    // One search that found its page clears the tag, whatever the other searches observed.
    const mixed: AnalysedEpisode = {
      ...episode('There were no results matching the query..'),
      steps: [
        { action: 'search[zzzz qqqq]', observation: 'There were no results matching the query..' },
        { action: 'search[Colorado orogeny]', observation: found },
      ],
    };
    expect(qaAutoTags(mixed)).toEqual([]);
  });
});
