// A run's status in the report comes from its own record: a session that never closed is "running"
// only while the process holding the run's lock is alive. A run killed with -9 (through the real CLI)
// reports interrupted; a clean --max-cost stop reports stopped; a live lock holder reports running.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startOpenAIServer } from '../servers/openai-server.js';
import { heldBeforeExit, holdCompletions, runCli, runDirs, scriptedRespond, startCli, waitForLines } from '../run/cli-helpers.js';
import { runStatus } from '../../src/report/run-status.js';
import { missingRecords } from '../../src/runlog/missing-records.js';
import { lockState, processStartTime } from '../../src/run/lock.js';
import { qaRecords, writeRun } from './run-folders.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'report-status-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const session = (status: string, extra: Record<string, unknown> = {}) => ({ startedAt: '2026-01-01T00:00:00.000Z', status, ...extra });

describe('run status from the run record', () => {
  it('running only while the lock holder lives; a gone holder, no lock or a bare dead PID is interrupted', () => {
    const results = path.join(tmp, 'crafted');
    const dir = writeRun(results, {
      runId: 'r1',
      method: 'cot',
      indices: [0, 1],
      records: qaRecords([0], 'r'),
      sessions: [session('running')],
    });
    const m = { kind: 'run' as const, sessions: [session('running')] as never };
    expect(lockState(dir)).toEqual({ held: 'none' });
    expect(runStatus(m, dir)).toBe('interrupted (process gone)');
    // This test process holds the lock: alive.
    const me = {
      host: os.hostname(),
      pid: process.pid,
      start: processStartTime(process.pid),
      boot: null,
      token: 'x',
      since: '2026-01-01T00:00:00Z',
    };
    fs.writeFileSync(path.join(dir, '.lock'), JSON.stringify(me));
    expect(runStatus(m, dir)).toBe('running');
    // The same PID with another start time: the PID was reused, the holder is gone.
    fs.writeFileSync(path.join(dir, '.lock'), JSON.stringify({ ...me, start: '1' }));
    expect(runStatus(m, dir)).toBe('interrupted (process gone)');
    // Another host's process cannot be checked from here.
    fs.writeFileSync(path.join(dir, '.lock'), JSON.stringify({ ...me, host: 'elsewhere' }));
    expect(runStatus(m, dir)).toBe('running on elsewhere?');
    fs.writeFileSync(path.join(dir, '.lock'), '999999999\n');
    expect(runStatus(m, dir)).toBe('interrupted (process gone)');
    // A bare PID alive here holds the run, as it holds a resume (lock.ts bareLockMayBeLive), though it may be another process's.
    fs.writeFileSync(path.join(dir, '.lock'), `${process.ppid}\n`);
    expect(runStatus(m, dir)).toBe('running?');
    expect(runStatus({ kind: 'run', sessions: [session('interrupted', { stoppedBy: 'max-cost' })] as never }, dir)).toBe(
      'stopped (max-cost)',
    );
    expect(runStatus({ kind: 'run', sessions: [session('interrupted', { stoppedBy: 'SIGINT' })] as never }, dir)).toBe(
      'interrupted (SIGINT)',
    );
    expect(runStatus({ kind: 'run', sessions: [session('complete')] as never }, dir)).toBe('complete');
    expect(runStatus({ kind: 'combination', sessions: [session('partial')] as never }, dir)).toBe('partial (combination)');
  });

  it('records missing: fewer record lines than the sessions wrote, whatever the last session says; a merge is not judged', () => {
    const dir = path.join(tmp, 'no-such-run');
    const sessions = [session('interrupted', { stoppedBy: 'SIGINT', written: 6 }), session('running'), session('complete', { written: 4 })];
    const m = { kind: 'run' as const, sessions: sessions as never };
    expect(missingRecords(m, 10)).toBeNull();
    // A --retry-errors replacement is a line of its own: lines, not items, are compared.
    expect(missingRecords(m, 12)).toBeNull();
    expect(missingRecords(m, 7)).toEqual({ written: 10, held: 7 });
    expect(runStatus(m, dir, undefined, 7)).toBe('records missing (7 of 10 written in episodes.jsonl)');
    expect(runStatus(m, dir, undefined, 10)).toBe('complete');
    expect(runStatus(m, dir)).toBe('complete');
    expect(runStatus({ kind: 'combination', sessions: [session('complete', { written: 3 })] as never }, dir, undefined, 2)).toBe(
      'records missing (2 of 3 written in episodes.jsonl) (combination)',
    );
    // A merge carries its shards' sessions, whose overlapping and replaced lines it de-duplicated.
    expect(missingRecords({ kind: 'merge', sessions: sessions as never }, 3)).toBeNull();
  });

  it('a run killed with -9 through the CLI shows interrupted in the report, never running', async () => {
    // From the third completion request on, none is answered: the kill lands mid-run however slow the machine.
    const held = holdCompletions(3);
    const slow = await startOpenAIServer({ respond: scriptedRespond, fault: held.fault });
    try {
      const results = path.join(tmp, 'killed');
      const { child, done } = startCli(
        [
          'run',
          '--task',
          'hotpotqa',
          '--method',
          'cot',
          '--limit',
          '8',
          '--concurrency',
          '1',
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
      child.kill('SIGKILL');
      expect((await done).signal).toBe('SIGKILL');
      const manifest = JSON.parse(fs.readFileSync(path.join(results, dir, 'manifest.json'), 'utf8'));
      // What the killed run left: a session that never closed, and a lock naming a dead process.
      expect(manifest.sessions.at(-1).status).toBe('running');
      expect(fs.existsSync(path.join(results, dir, '.lock'))).toBe(true);
      const rep = await runCli(['report', results], { cwd: tmp });
      expect(rep.code).toBe(0);
      const row = rep.stdout.split('\n').find((l) => l.startsWith('| HotpotQA CoT |'))!;
      expect(row).toMatch(/\| interrupted \(process gone\) \|$/);
      expect(rep.stdout).not.toMatch(/\| running \|/);
    } finally {
      await slow.close();
    }
  });
});
