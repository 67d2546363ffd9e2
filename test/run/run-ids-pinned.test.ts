// Run ids are where a run's results live: a command run again must name the same folder (it resumes
// there), so the ids of default runs are pinned as strings, and so is which flags change them. The
// cache, the endpoints, retries, rate limits, prices, the results folder, concurrency and response
// limits say how a run is served, not what it computes: they leave the id alone. The model, the API
// mode, the items, the method's and the environment's options change it. Through the real CLI: the
// model server refuses the key (401), so each run stops at its first call, after naming its folder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { paperGames, startAlfworldServer, type AlfworldServer } from '../servers/alfworld-server.js';
import { startWebshopSite, type WebshopSite } from '../servers/webshop-site.js';
import { startWikiServer } from '../servers/wiki-server.js';
import { cleanEnv, runCli, runDirs } from './cli-helpers.js';

let tmp: string;
let llm: OpenAIServer;
let llm2: OpenAIServer;
let house: AlfworldServer;
let site: WebshopSite;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'run-ids-'));
  // A key is required and none is given: the first completion is refused, the run stops (exit 1).
  llm = await startOpenAIServer({ apiKey: 'not-given' });
  llm2 = await startOpenAIServer({ apiKey: 'not-given' });
  house = await startAlfworldServer({ games: [...paperGames] });
  site = await startWebshopSite();
});
afterAll(async () => {
  await llm.close();
  await llm2.close();
  await house.close();
  await site.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

let n = 0;
/** The id of the run these flags name (its folder under a fresh results folder). */
async function runIdOf(args: string[], server: OpenAIServer = llm): Promise<string> {
  const results = path.join(tmp, `r${n++}`);
  const r = await runCli(['run', ...args, '--base-url', server.baseURL, '--model', 'test-model', '--results-dir', results], {
    cwd: tmp,
    env: cleanEnv({}, path.join(tmp, 'cache')),
  });
  const dirs = runDirs(results);
  if (dirs.length !== 1) throw new Error(`expected one run folder, got ${dirs.length}:\n${r.stderr}`);
  expect(r.stderr).not.toMatch(/internal error/);
  return dirs[0];
}

const envOf = (task: string): string[] =>
  task === 'alfworld' ? ['--env-url', house.url] : task === 'webshop' ? ['--env-url', site.url] : [];

describe('run ids', () => {
  it('of default runs of each benchmark are unchanged', async () => {
    const cases: [string, string, string][] = [
      ['hotpotqa', 'react', 'hotpotqa-react-offline500-test-model-e4d15bd2'],
      ['hotpotqa', 'act', 'hotpotqa-act-offline500-test-model-004f0dd5'],
      ['hotpotqa', 'cot', 'hotpotqa-cot-offline500-test-model-eef97063'],
      ['hotpotqa', 'cot-sc', 'hotpotqa-cot-sc-offline500-test-model-26a123b7'],
      ['hotpotqa', 'standard', 'hotpotqa-standard-offline500-test-model-8d8aed39'],
      ['fever', 'react', 'fever-react-react500-test-model-0b5ce45e'],
      ['fever', 'cot', 'fever-cot-react500-test-model-7ba4a5c0'],
      ['alfworld', 'react', 'alfworld-react-valid_unseen-test-model-0232d615'],
      ['alfworld', 'act', 'alfworld-act-valid_unseen-test-model-e8b7d4d7'],
      ['webshop', 'react', 'webshop-react-test500-test-model-b0fca4d0'],
      ['webshop', 'act', 'webshop-act-test500-test-model-7d6bded1'],
    ];
    const got: string[] = [];
    for (const [task, method] of cases) got.push(await runIdOf(['--task', task, '--method', method, '--cache', 'off', ...envOf(task)]));
    expect(got).toEqual(cases.map((c) => c[2]));
  }, 600_000);

  it('do not change with how the run is served; do change with what it computes', async () => {
    const base = ['--task', 'hotpotqa', '--method', 'react', '--indices', '0,3'];
    const ref = await runIdOf([...base, '--cache', 'off']);
    const same: string[][] = [
      ['--cache', 'rw'],
      ['--cache', 'rw', '--cache-path', path.join(tmp, 'other.sqlite')],
      ['--cache', 'off', '--concurrency', '2'],
      ['--cache', 'off', '--max-retries', '1', '--retry-after-cap', '5', '--request-timeout', '30'],
      ['--cache', 'off', '--max-in-flight', '3', '--rpm', '100', '--tpm', '100000', '--balance', 'round-robin'],
      ['--cache', 'off', '--price-prompt', '1', '--price-completion', '2'],
      ['--cache', 'off', '--llm-max-bytes', '100000', '--env-deadline', '60', '--env-max-bytes', '100000'],
      ['--cache', 'off', '--context-overflow', 'fail'],
    ];
    for (const extra of same) expect({ extra, id: await runIdOf([...base, ...extra]) }).toEqual({ extra, id: ref });
    // Another server of the same model.
    expect(await runIdOf([...base, '--cache', 'off'], llm2)).toBe(ref);

    const other: string[][] = [
      ['--api', 'chat'],
      ['--indices', '0,4'],
      ['--context-overflow', 'truncate'],
      ['--max-steps', 'paper'],
      ['--exemplars', '2'],
      ['--wiki-query', 'verbatim'],
    ];
    const ids = new Set([ref]);
    for (const extra of other) {
      const args = [...base, '--cache', 'off', ...extra];
      if (extra[0] === '--indices') args.splice(args.indexOf('--indices'), 2);
      const id = await runIdOf(args);
      expect({ extra, changed: !ids.has(id) }).toEqual({ extra, changed: true });
      ids.add(id);
    }
  }, 600_000);

  it('of live Wikipedia runs do not change with the site or its timeout; do with the backend', async () => {
    const [a, b] = [await startWikiServer(), await startWikiServer()];
    try {
      const base = ['--task', 'hotpotqa', '--method', 'react', '--indices', '0', '--cache', 'off'];
      const ref = await runIdOf([...base, '--env-url', a.url]);
      // Changed once, deliberately: the page reader became a port of Python's html.parser, which reads
      // malformed markup as BeautifulSoup does where the htmlparser2-based one did not (it was bcd940cf).
      expect(ref).toBe('hotpotqa-react-indices-test-model-616b607a');
      expect(await runIdOf([...base, '--env-url', b.url, '--wiki-timeout', '5'])).toBe(ref);
      expect(await runIdOf([...base, '--wiki', 'api', '--wiki-url', a.url])).not.toBe(ref);
      expect(await runIdOf([...base, '--env-url', a.url, '--clean-str-errors', 'throw'])).not.toBe(ref);
    } finally {
      await a.close();
      await b.close();
    }
  }, 600_000);

  it('of ALFWorld and WebShop do not change with the environment server', async () => {
    const ref = await runIdOf(['--task', 'alfworld', '--indices', '0', '--cache', 'off', '--env-url', house.url]);
    const house2 = await startAlfworldServer({ games: [...paperGames] });
    try {
      expect(await runIdOf(['--task', 'alfworld', '--indices', '0', '--cache', 'off', '--env-url', house2.url])).toBe(ref);
    } finally {
      await house2.close();
    }
    expect(
      await runIdOf(['--task', 'alfworld', '--indices', '0', '--cache', 'off', '--env-url', house.url, '--prompt-set', '0,1']),
    ).not.toBe(ref);
    const shop = await runIdOf(['--task', 'webshop', '--indices', '0', '--cache', 'off', '--env-url', site.url]);
    expect(shop).toBe('webshop-react-indices-test-model-0168e010');
    const site2 = await startWebshopSite();
    try {
      expect(
        await runIdOf(['--task', 'webshop', '--indices', '0', '--cache', 'off', '--env-url', site2.url, '--webshop-timeout', '9']),
      ).toBe(shop);
    } finally {
      await site2.close();
    }
  }, 600_000);
});
