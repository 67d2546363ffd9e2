// A combination made from given runs (`run --method cot-sc-react --from-runs A,B`): its episodes are
// the base runs' combined, and its manifest records the environment its ReAct base stepped with that
// run's own Wikipedia flags (live, at the test site), not the defaults of the combining invocation,
// which steps nothing (docs/protocol.md §5).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readManifest, readRecords } from '../../src/runlog/store.js';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { startWikiServer, type WikiServer } from '../servers/wiki-server.js';
import { runCli, runDirs, scriptedWikiRespond } from '../run/cli-helpers.js';

let tmp: string;
let llm: OpenAIServer;
let wiki: WikiServer;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-from-runs-'));
  llm = await startOpenAIServer({ respond: scriptedWikiRespond });
  wiki = await startWikiServer();
});
afterAll(async () => {
  await llm.close();
  await wiki.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

it('records the Wikipedia its ReAct base searched, and combines every item', async () => {
  const common = ['--task', 'hotpotqa', '--limit', '3', '--base-url', llm.baseURL, '--model', 'test-model', '--cache', 'off'];
  const bases = path.join(tmp, 'bases');
  for (const flags of [
    ['--method', 'cot-sc', '--samples', '3'],
    ['--method', 'react', '--wiki', 'live', '--wiki-url', wiki.url, '--wiki-timeout', '7'],
  ]) {
    const r = await runCli(['run', ...common, ...flags, '--results-dir', bases], { cwd: tmp });
    expect(r.code, r.stderr).toBe(0);
  }
  const dirs = runDirs(bases).map((d) => path.join(bases, d));
  const react = readManifest(dirs.find((d) => readManifest(d).method === 'react')!);
  const combined = path.join(tmp, 'combined');
  const r = await runCli(['run', ...common, '--method', 'cot-sc-react', '--from-runs', dirs.join(','), '--results-dir', combined], {
    cwd: tmp,
  });
  expect(r.code, r.stderr).toBe(0);
  const [dir] = runDirs(combined).map((d) => path.join(combined, d));
  const m = readManifest(dir);
  expect(m.kind).toBe('combination');
  expect(m.environment).toEqual(react.environment);
  expect(m.settings.wiki).toBe('live');
  expect(m.settings.wikiUrl).toBe(wiki.url);
  expect(m.settings.wikiTimeout).toBe(7);
  expect(readRecords(dir).size).toBe(3);
});
