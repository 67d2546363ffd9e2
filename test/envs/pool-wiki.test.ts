// --wiki-url A,B for --wiki live / api: a pool of Wikipedia mirrors (src/envs/wikipedia/pooled-backend.ts).
// Searches go to both mirrors and observe what one mirror gives; a mirror that stops answering is left
// out (named) and its searches are sent again to the other; with none left, a FatalRunError.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startOpenAIServer, type ServerCompletionRequest } from '../servers/openai-server.js';
import { cleanEnv, readLines, runCli, runDirs } from '../run/cli-helpers.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startWikiServer, type WikiServer } from '../servers/wiki-server.js';
import { createWikiBackend } from '../../src/envs/wikipedia/index.js';
import { FatalRunError, UserError } from '../../src/errors.js';

const ENTITIES = ['Colorado orogeny', 'High Plains', 'AT&T', 'Virginia Woolf', 'Nineteen Eighty-Four', 'C++', 'High Plains (United States)', 'Milhouse'];
const servers: WikiServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function mirror(): Promise<WikiServer> {
  const s = await startWikiServer();
  servers.push(s);
  return s;
}

describe('--wiki-url A,B', () => {
  for (const spec of ['live', 'api'] as const) {
    it(`${spec}: both mirrors serve searches, and the outcomes equal one mirror's`, async () => {
      const a = await mirror();
      const b = await mirror();
      const one = await createWikiBackend(spec, { wikiUrl: a.url });
      const want = await Promise.all(ENTITIES.map((e) => one.search(e)));
      const before = [a.requests.length, b.requests.length];
      const pooled = await createWikiBackend(spec, { wikiUrl: `${a.url},${b.url}` });
      expect(await Promise.all(ENTITIES.map((e) => pooled.search(e)))).toEqual(want);
      expect(a.requests.length).toBeGreaterThan(before[0]);
      expect(b.requests.length).toBeGreaterThan(before[1]);
      expect(pooled.describe().baseUrl).toBe(`${a.url}, ${b.url}`);
    });
  }

  it('a mirror that stops answering is left out, named, and its searches go to the other', async () => {
    const a = await mirror();
    const b = await mirror();
    const warnings: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((s: string) => (warnings.push(String(s)), true)) as typeof process.stderr.write;
    try {
      const one = await createWikiBackend('live', { wikiUrl: a.url });
      const want = await Promise.all(ENTITIES.map((e) => one.search(e)));
      const pooled = await createWikiBackend('live', { wikiUrl: `${a.url},${b.url}`, attempts: 2 });
      await b.close();
      expect(await Promise.all(ENTITIES.map((e) => pooled.search(e)))).toEqual(want);
      expect(warnings.join('')).toContain(`warning: --wiki-url: ${b.url} stopped answering`);
      await a.close();
      await expect(pooled.search('High Plains')).rejects.toBeInstanceOf(FatalRunError);
    } finally {
      process.stderr.write = write;
    }
  });

  it('a mirror answering 503 to everything (a proxy before a dead backend) is left out, named, as a silent one is', async () => {
    const a = await mirror();
    const b = await mirror();
    const warnings: string[] = [];
    const one = await createWikiBackend('live', { wikiUrl: a.url });
    const want = await Promise.all(ENTITIES.map((e) => one.search(e)));
    const pooled = await createWikiBackend('live', { wikiUrl: `${a.url},${b.url}`, attempts: 2 });
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((s: string) => (warnings.push(String(s)), true)) as typeof process.stderr.write;
    try {
      b.setFault({ kind: '503' });
      expect(await Promise.all(ENTITIES.map((e) => pooled.search(e)))).toEqual(want);
      expect(warnings.join('')).toContain(`warning: --wiki-url: ${b.url} stopped answering`);
    } finally {
      process.stderr.write = write;
    }
  });

  it('a pool serves live and api only', async () => {
    await expect(createWikiBackend('snapshot', { wikiUrl: 'http://127.0.0.1:1,http://127.0.0.1:2' })).rejects.toBeInstanceOf(UserError);
    await expect(createWikiBackend('live', { wikiUrl: 'http://127.0.0.1:1,' })).rejects.toThrow(/empty entry/);
  });
});

// Through the CLI: a HotpotQA ReAct run over two live mirrors equals a one-mirror run (same run id,
// same records), and with the second mirror gone from the start it completes on the first, naming it.

function respond(req: ServerCompletionRequest): string {
  const m = /Thought (\d+):$/.exec(req.prompt);
  const i = m ? Number(m[1]) : 0;
  const act = ['Search[Colorado orogeny]', 'Search[AT&T]', 'Search[Plains]', 'Finish[yes]'][Math.min(i, 4) - 1] ?? 'Finish[yes]';
  return ` Step ${i}.\nAction ${i}: ${act}\nObservation ${i}: made up`;
}

describe('react-repro run --wiki live --wiki-url A,B', () => {
  it('equals a one-mirror run; a mirror down from the start is left out by name', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pool-wiki-cli-'));
    const llm = await startOpenAIServer({ respond });
    const a = await mirror();
    const b = await mirror();
    try {
      const run = (wikiUrl: string, name: string) =>
        runCli(
          ['run', '--task', 'hotpotqa', '--method', 'react', '--indices', '0,1,2,3', '--concurrency', '4', '--wiki', 'live', '--wiki-url', wikiUrl, '--wiki-timeout', '5',
            '--base-url', llm.baseURL, '--model', 'test-model', '--cache', 'off', '--results-dir', path.join(tmp, name)],
          { cwd: tmp, env: cleanEnv() },
        );
      const records = (name: string) => {
        const [dir] = runDirs(path.join(tmp, name));
        return readLines(path.join(tmp, name, dir, 'episodes.jsonl'))
          .map(({ latency_ms: _l, ...r }) => r)
          .sort((x, y) => x.idx - y.idx);
      };
      expect((await run(a.url, 'one')).code).toBe(0);
      const before = b.requests.length;
      const both = await run(`${a.url},${b.url}`, 'both');
      expect(both.code).toBe(0);
      expect(b.requests.length).toBeGreaterThan(before);
      expect(runDirs(path.join(tmp, 'both'))).toEqual(runDirs(path.join(tmp, 'one')));
      expect(records('both')).toEqual(records('one'));
      await b.close();
      const down = await run(`${a.url},${b.url}`, 'down');
      expect(down.code).toBe(0);
      expect(down.stderr).toContain(`warning: --wiki-url: ${b.url} stopped answering`);
      expect(records('down')).toEqual(records('one'));
    } finally {
      await llm.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
