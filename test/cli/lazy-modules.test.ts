// A command loads what it uses: SQLite (a native addon) only when a database is opened, so a run with
// `--cache off` and no offline Wikipedia does not pay for it at start (bench/results-start.md).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { bin, cleanEnv, scriptedRespond } from '../run/cli-helpers.js';

let tmp: string;
let srv: OpenAIServer;
let probe: string;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lazy-modules-'));
  srv = await startOpenAIServer({ respond: scriptedRespond });
  // Preloaded into the CLI's process: at exit, says whether better-sqlite3 is among its loaded CommonJS modules.
  probe = path.join(tmp, 'probe.mjs');
  fs.writeFileSync(
    probe,
    `import Module from 'node:module';
process.on('exit', () => {
  const loaded = Object.keys(Module._cache).some((f) => f.includes('better-sqlite3'));
  process.stderr.write('\\nsqlite loaded: ' + loaded + '\\n');
});
`,
  );
});
afterAll(async () => {
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function runWithProbe(extra: string[], name: string): Promise<{ code: number | null; stderr: string }> {
  const args = ['--import', probe, bin, 'run', '--task', 'hotpotqa', '--method', 'standard', '--limit', '1'];
  args.push('--base-url', srv.baseURL, '--model', 'test-model', '--results-dir', path.join(tmp, name), ...extra);
  const child = spawn(process.execPath, args, {
    cwd: tmp,
    env: cleanEnv({}, path.join(tmp, `cache-${name}`)),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

describe('modules a run loads', () => {
  it('does not load SQLite with --cache off and no offline Wikipedia; does with the completion cache', async () => {
    const off = await runWithProbe(['--cache', 'off'], 'off');
    expect(off.code, off.stderr).toBe(0);
    expect(off.stderr).toContain('sqlite loaded: false');
    const on = await runWithProbe([], 'on');
    expect(on.code, on.stderr).toBe(0);
    expect(on.stderr).toContain('sqlite loaded: true');
  });
});
