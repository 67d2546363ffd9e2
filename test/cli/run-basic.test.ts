// End-to-end: the real CLI against the test OpenAI server (Standard/CoT/CoT-SC need no Wikipedia).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import {
  cleanEnv,
  heldBeforeExit,
  holdCompletions,
  readLines,
  runCli,
  runDirs,
  scriptedRespond,
  startCli,
  waitForLines,
} from '../run/cli-helpers.js';

let tmp: string;
let srv: OpenAIServer;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-run-'));
  srv = await startOpenAIServer({ respond: scriptedRespond });
});
afterAll(async () => {
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const common = () => ['--base-url', srv.baseURL, '--model', 'test-model', '--cache', 'off'];

describe('run (single-completion methods)', () => {
  it('runs Standard, CoT and CoT-SC on both tasks from one experiment file and writes the three files', async () => {
    const exp = path.join(tmp, 'exp.json');
    fs.writeFileSync(
      exp,
      JSON.stringify({
        defaults: { limit: 2, samples: 5 },
        runs: [
          { task: 'hotpotqa', method: 'standard' },
          { task: 'hotpotqa', method: 'cot' },
          { task: 'hotpotqa', method: 'cot-sc' },
          { task: 'fever', method: 'standard' },
          { task: 'fever', method: 'cot' },
          { task: 'fever', method: 'cot-sc' },
        ],
      }),
    );
    const results = path.join(tmp, 'r1');
    const r = await runCli(['run', exp, ...common(), '--results-dir', results], { cwd: tmp, env: cleanEnv({}, path.join(tmp, 'cache')) });
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    const dirs = runDirs(results);
    expect(dirs).toHaveLength(6);
    expect(dirs.filter((d) => d.startsWith('fever-cot-sc-react500-test-model-'))).toHaveLength(1);
    for (const d of dirs) {
      const m = JSON.parse(fs.readFileSync(path.join(results, d, 'manifest.json'), 'utf8'));
      expect(m.runId).toBe(d);
      expect(m.indices).toHaveLength(2);
      expect(m.software.node).toBe(process.version);
      expect(m.modelDescription.model).toBe('test-model');
      // Every fidelity choice of these methods is in the manifest: the method, its framing, sampling and prompt hashes.
      expect(m.fidelity.method.method).toBe(m.method);
      expect(m.fidelity.method.framing).toBe('suite-v1');
      expect(m.fidelity.method.sampling).toMatchObject({ maxTokens: 100, topP: 1 });
      expect(m.fidelity.method.sampling.temperature).toBe(m.method === 'cot-sc' ? 0.7 : 0);
      expect(m.fidelity.method.prompts[m.task].headSha256).toMatch(/^[0-9a-f]{64}$/);
      const eps = readLines(path.join(results, d, 'episodes.jsonl'));
      expect(eps.map((e) => e.idx)).toEqual(m.indices.slice().sort((a: number, b: number) => m.indices.indexOf(a) - m.indices.indexOf(b)));
      for (const e of eps) {
        expect(e.error).toBeNull();
        expect(e.n_calls).toBe(1);
        expect(typeof e.traj).toBe('string');
        expect(e.usage.total_tokens).toBeGreaterThan(0);
      }
      const csv = fs
        .readFileSync(path.join(results, d, 'summary.csv'), 'utf8')
        .trim()
        .split('\n');
      expect(csv).toHaveLength(2);
      expect(csv[1]).toContain(`${d},`);
    }
    const hotSc = dirs.find((d) => d.startsWith('hotpotqa-cot-sc-'))!;
    const eps = readLines(path.join(results, hotSc, 'episodes.jsonl'));
    expect(eps[0].samples).toEqual(['yes', 'yes', 'no', 'yes', 'yes']);
    expect(eps[0].majority_votes).toBe(4);
    // The reasoning chains behind the votes are kept, one per sample, each ending in its answer.
    expect(eps[0].completions).toHaveLength(5);
    eps[0].completions.forEach((c: string, i: number) => expect(c).toMatch(new RegExp(`Answer: ${eps[0].samples[i]}\\s*$`)));
    const feverStd = dirs.find((d) => d.startsWith('fever-standard-'))!;
    expect(JSON.parse(fs.readFileSync(path.join(results, feverStd, 'manifest.json'), 'utf8')).split).toBe('react500');
  });

  it('no model configured: the ConfigError message and a non-zero exit, nothing written', async () => {
    const r = await runCli(['run', '--task', 'hotpotqa', '--method', 'cot', '--limit', '1', '--results-dir', path.join(tmp, 'none')], {
      cwd: tmp,
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/no language model configured: use \(1\) --base-url/);
    expect(r.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(fs.existsSync(path.join(tmp, 'none'))).toBe(false);
  });

  it('kill -9 in the middle, then re-running resumes and the summary equals an uninterrupted run', async () => {
    // The third completion request is held unanswered: the kill lands mid-run however slow the machine.
    const held = holdCompletions(3, 1);
    const slow = await startOpenAIServer({ respond: scriptedRespond, fault: held.fault });
    try {
      const args = [
        'run',
        '--task',
        'hotpotqa',
        '--method',
        'cot',
        '--limit',
        '6',
        '--base-url',
        slow.baseURL,
        '--model',
        'test-model',
        '--cache',
        'off',
      ];
      const killed = path.join(tmp, 'killed');
      const { child, done } = startCli([...args, '--concurrency', '1', '--results-dir', killed], { cwd: tmp });
      // One episode at a time: with the third call held, two episodes are recorded; then SIGKILL.
      await heldBeforeExit(held.reached, done);
      const [dir] = runDirs(killed);
      await waitForLines(path.join(killed, dir, 'episodes.jsonl'), 2);
      child.kill('SIGKILL');
      const k = await done;
      expect(k.signal).toBe('SIGKILL');
      const before = readLines(path.join(killed, dir, 'episodes.jsonl')).length;
      expect(before).toBe(2);
      const resumed = await runCli([...args, '--concurrency', '3', '--results-dir', killed], { cwd: tmp });
      expect(resumed.code).toBe(0);
      expect(resumed.stderr).toMatch(/resuming/);
      const eps = readLines(path.join(killed, dir, 'episodes.jsonl'));
      expect(eps).toHaveLength(6);
      expect(new Set(eps.map((e) => e.idx)).size).toBe(6);
      const full = path.join(tmp, 'full');
      const f = await runCli([...args, '--concurrency', '4', '--results-dir', full], { cwd: tmp });
      expect(f.code).toBe(0);
      expect(runDirs(full)).toEqual([dir]);
      expect(fs.readFileSync(path.join(killed, dir, 'summary.csv'), 'utf8')).toBe(
        fs.readFileSync(path.join(full, dir, 'summary.csv'), 'utf8'),
      );
    } finally {
      await slow.close();
    }
  });

  it('Ctrl-C stops cleanly: exit 130, the summary of what finished, no partial line', async () => {
    // From the third completion request on, none is answered: two episodes finish, two are in flight
    // when Ctrl-C comes, however slow the machine.
    const held = holdCompletions(3);
    const slow = await startOpenAIServer({ respond: scriptedRespond, fault: held.fault });
    try {
      const results = path.join(tmp, 'sigint');
      const { child, done } = startCli(
        [
          'run',
          '--task',
          'fever',
          '--method',
          'standard',
          '--limit',
          '8',
          '--concurrency',
          '2',
          '--base-url',
          slow.baseURL,
          '--model',
          'test-model',
          '--cache',
          'off',
          '--results-dir',
          results,
        ],
        { cwd: tmp },
      );
      await heldBeforeExit(held.reached, done);
      const [dir] = runDirs(results);
      await waitForLines(path.join(results, dir, 'episodes.jsonl'), 2);
      child.kill('SIGINT');
      const r = await done;
      expect(r.code).toBe(130);
      const text = fs.readFileSync(path.join(results, dir, 'episodes.jsonl'), 'utf8');
      expect(text.endsWith('\n')).toBe(true);
      const n = text.split('\n').length - 1;
      expect(n).toBe(2);
      expect(fs.readFileSync(path.join(results, dir, 'summary.csv'), 'utf8')).toContain(`,8,${n},${n},0,`);
      expect(JSON.parse(fs.readFileSync(path.join(results, dir, 'manifest.json'), 'utf8')).sessions[0].status).toBe('interrupted');
    } finally {
      await slow.close();
    }
  });

  it('an unreachable LLM gives error episodes; --retry-errors with a healthy server fixes only those; the key never reaches disk', async () => {
    const KEY = 'sk-test-0123456789abcdefSECRET';
    const down = await startOpenAIServer({ respond: scriptedRespond, apiKey: KEY, fault: () => ({ kind: 'status', status: 503 }) });
    const up = await startOpenAIServer({ respond: scriptedRespond, apiKey: KEY });
    try {
      const results = path.join(tmp, 'errors');
      const env = cleanEnv({ MY_KEY: KEY });
      const base = [
        'run',
        '--task',
        'hotpotqa',
        '--method',
        'cot',
        '--limit',
        '3',
        '--model',
        'test-model',
        '--api-key-env',
        'MY_KEY',
        '--cache',
        'off',
        '--results-dir',
        results,
      ];
      const r1 = await runCli([...base, '--base-url', down.baseURL, '--max-retries', '0'], { cwd: tmp, env });
      expect(r1.code).toBe(3); // finished with error episodes (never exit 0 with errors)
      const [dir] = runDirs(results);
      const eps1 = readLines(path.join(results, dir, 'episodes.jsonl'));
      expect(eps1).toHaveLength(3);
      expect(eps1.every((e) => e.error?.source === 'llm')).toBe(true);
      expect(fs.readFileSync(path.join(results, dir, 'summary.csv'), 'utf8')).toContain(',3,3,0,3,,');
      // Without --retry-errors nothing is re-run, and the run says so.
      const before = up.completionRequests().length;
      const again = await runCli([...base, '--base-url', up.baseURL], { cwd: tmp, env });
      expect(up.completionRequests().length).toBe(before);
      expect(again.code).toBe(3);
      expect(again.stderr).toContain('3 episodes of this run are recorded as errors; --retry-errors re-runs them');
      const r2 = await runCli([...base, '--base-url', up.baseURL, '--retry-errors'], { cwd: tmp, env });
      expect(r2.code).toBe(0);
      expect(up.completionRequests().length).toBe(before + 3);
      const lines = readLines(path.join(results, dir, 'episodes.jsonl'));
      expect(lines).toHaveLength(6);
      expect(lines.slice(3).every((e) => e.error === null)).toBe(true);
      expect(fs.readFileSync(path.join(results, dir, 'summary.csv'), 'utf8')).toContain(',3,3,3,0,');
      for (const f of fs.readdirSync(path.join(results, dir))) {
        expect(fs.readFileSync(path.join(results, dir, f), 'utf8')).not.toContain(KEY);
      }
      expect(r1.stderr + r1.stdout + r2.stderr + r2.stdout).not.toContain(KEY);
    } finally {
      await down.close();
      await up.close();
    }
  });
});
