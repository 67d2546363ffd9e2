// Each session of a run names the model endpoint(s) it was given (manifest.sessions[].endpoints): a run
// resumed with --retry-errors on another --base-url says so, while the run's settings keep the first
// session's. Each is written as the model's description writes it (scheme, host, port, path). The API
// key never reaches the manifest, and the report reads the run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { cleanEnv, runCli, runDirs, scriptedRespond } from '../run/cli-helpers.js';

const KEY = 'sk-test-session-endpoints-0123456789';
let tmp: string;
let down: OpenAIServer;
let up: OpenAIServer;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-session-endpoints-'));
  down = await startOpenAIServer({ respond: scriptedRespond, apiKey: KEY, fault: () => ({ kind: 'status', status: 503 }) });
  up = await startOpenAIServer({ respond: scriptedRespond, apiKey: KEY });
});
afterAll(async () => {
  await down.close();
  await up.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

it('a session resumed with --retry-errors on another --base-url names that endpoint; no key in the manifest', async () => {
  const results = path.join(tmp, 'results');
  const env = cleanEnv({ MY_KEY: KEY });
  const flags = ['--task', 'fever', '--method', 'standard', '--limit', '2', '--model', 'test-model', '--api-key-env', 'MY_KEY'];
  const common = [...flags, '--cache', 'off', '--max-retries', '0', '--results-dir', results];
  const r1 = await runCli(['run', ...common, '--base-url', down.baseURL], { cwd: tmp, env });
  expect(r1.code, r1.stderr).toBe(3); // every episode an llm error
  const [id] = runDirs(results);
  const r2 = await runCli(['run', '--resume', id, '--retry-errors', '--base-url', up.baseURL, '--results-dir', results], { cwd: tmp, env });
  expect(r2.code, r2.stderr).toBe(0);
  expect(up.completionRequests()).toHaveLength(2);
  const text = fs.readFileSync(path.join(results, id, 'manifest.json'), 'utf8');
  expect(text).not.toContain(KEY);
  const m = JSON.parse(text);
  expect(m.settings.baseUrl).toBe(down.baseURL); // the run's settings are its first session's
  expect(m.sessions.map((s: { endpoints?: string[] }) => s.endpoints)).toEqual([[down.baseURL], [up.baseURL]]);
  // One spelling of a server in one manifest: the sessions' as the model's description's.
  expect(m.sessions[0].endpoints).toEqual(m.modelDescription.endpoints);
  expect(m.sessions[1].retryErrors).toBe(true);
  // The report reads such a run as any other.
  const rep = await runCli(['report', path.join(results, id), '--format', 'csv'], { cwd: tmp });
  expect(rep.code, rep.stderr).toBe(0);
  expect(rep.stdout).toContain(`runs,Runs,FEVER Standard,ours,Done,2/2,,,${id}\n`);
});
