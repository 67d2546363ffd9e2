// One invocation of many runs (an experiment file, a bundle of a results folder) shares one interrupt
// signal (src/cli/interrupts.ts): what each run hangs on it must come off when the run ends, or Node
// warns of a leak ("MaxListenersExceededWarning") once more than 10 runs have gone by. Checked through
// the real CLI for `run EXPERIMENT` and for `run --from-bundle` of those runs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { cleanEnv, runCli, runDirs, scriptedRespond, type CliResult } from '../run/cli-helpers.js';

/** More runs than Node's default limit of 10 listeners on one emitter. */
const RUNS = 12;

const LEAK = /MaxListenersExceededWarning|memory leak/;

let tmp: string;
let srv: OpenAIServer;
let results: string;
let cacheDir: string;
/** What `run EXPERIMENT` of RUNS one-episode runs printed. */
let experimentRun: CliResult;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-many-runs-'));
  srv = await startOpenAIServer({ respond: scriptedRespond });
  const experiment = path.join(tmp, 'many.json');
  fs.writeFileSync(
    experiment,
    JSON.stringify({
      description: 'one FEVER claim per run',
      defaults: { task: 'fever', method: 'standard' },
      runs: Array.from({ length: RUNS }, (_, i) => ({ indices: [i] })),
    }),
  );
  results = path.join(tmp, 'results');
  cacheDir = path.join(tmp, 'cache');
  experimentRun = await runCli(['run', experiment, '--base-url', srv.baseURL, '--model', 'test-model', '--results-dir', results], {
    cwd: tmp,
    env: cleanEnv({}, cacheDir),
  });
}, 120_000);
afterAll(async () => {
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

it(`run EXPERIMENT of ${RUNS} runs: no listener leak warning`, () => {
  expect(experimentRun.stderr).not.toMatch(LEAK);
  expect(experimentRun.code).toBe(0);
  expect(runDirs(results)).toHaveLength(RUNS);
});

it(`run --from-bundle of a bundle of ${RUNS} runs: every run identical to the bundle, no listener leak warning`, async () => {
  const bundle = path.join(tmp, 'many.tar.gz');
  const b = await runCli(['bundle', results, '--out', bundle], { cwd: tmp, env: cleanEnv({}, cacheDir) });
  expect(b.code).toBe(0);
  const rerun = path.join(tmp, 'rerun');
  const x = await runCli(['run', '--from-bundle', bundle, '--results-dir', rerun], {
    cwd: tmp,
    env: cleanEnv({}, path.join(tmp, 'no-cache')),
  });
  expect(x.stderr).not.toMatch(LEAK);
  expect(x.code).toBe(0);
  expect(x.stdout.match(/identical to the bundle/g)).toHaveLength(RUNS);
}, 120_000);
