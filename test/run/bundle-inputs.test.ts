// `run --from-bundle` warns when a repo file the bundled run read (a prompt, a split, the offline
// Wikipedia) differs now; the files it checks must be the ones the run itself listed in its manifest's
// `inputs`. Real runs (the CLI against the test servers) on the shipped snapshot and on live Wikipedia:
// the re-run's list, from the stored settings, equals the run's own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { getBenchmark } from '../../src/benchmarks/registry.js';
import { bundledRunInputFiles } from '../../src/run/from-bundle.js';
import { readManifest } from '../../src/runlog/store.js';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { startWikiServer, type WikiServer } from '../servers/wiki-server.js';
import { runCli, runDirs, scriptedWikiRespond } from './cli-helpers.js';

let tmp: string;
let llm: OpenAIServer;
let wiki: WikiServer;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bundle-inputs-'));
  llm = await startOpenAIServer({ respond: scriptedWikiRespond });
  wiki = await startWikiServer();
});
afterAll(async () => {
  await llm.close();
  await wiki.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function runManifest(name: string, flags: string[]) {
  const results = path.join(tmp, name);
  const r = await runCli(
    [
      'run',
      '--task',
      'hotpotqa',
      '--limit',
      '1',
      '--base-url',
      llm.baseURL,
      '--model',
      'test-model',
      '--cache',
      'off',
      '--results-dir',
      results,
      ...flags,
    ],
    { cwd: tmp },
  );
  expect(r.code, r.stderr).toBe(0);
  return readManifest(path.join(results, runDirs(results)[0]));
}

describe('the files a re-run from a bundle checks', () => {
  it.each([
    ['react on the shipped snapshot, the default split', ['--method', 'react']],
    ['react on live Wikipedia', ['--method', 'react', '--wiki', 'live']],
    ['cot (no Wikipedia)', ['--method', 'cot']],
  ])('%s: the run’s own list', async (name, flags) => {
    const m = await runManifest(name.replace(/\W+/g, '-'), flags.includes('live') ? [...flags, '--wiki-url', wiki.url] : flags);
    const listed = Object.keys(m.inputs ?? {}).sort();
    expect(listed.length).toBeGreaterThan(0);
    expect(bundledRunInputFiles(getBenchmark(m.task), m.method, m.settings).sort()).toEqual(listed);
  });
});
