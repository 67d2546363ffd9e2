// The run lock (src/run/lock.ts): exactly one of two processes racing for a fresh (or a
// stale) lock wins, 100 times out of 100; a lock left by a kill -9'd process is taken over; a lock
// whose PID is alive but belongs to another process (start time differs, as PID 1 of a restarted
// container) is stale; a lock from another host or a live process is not; and, where root can use
// `unshare --pid --fork`, a holder killed -9 in one PID namespace is replaced by PID 1 of the next.
import { execFileSync, spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireRunLock, judgeHolder, lockState, LOCK_FILE, processStartTime, type LockHolder } from '../../src/run/lock.js';
import { UserError } from '../../src/errors.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const LOCK_TS = path.join(repo, 'src/run/lock.ts');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'run-lock-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

let n = 0;
const freshDir = () => {
  const d = path.join(tmp, `run-${n++}`);
  fs.mkdirSync(d);
  return d;
};
const lockOf = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')) as LockHolder;
const writeLock = (dir: string, h: Partial<LockHolder>) =>
  fs.writeFileSync(
    path.join(dir, LOCK_FILE),
    JSON.stringify({ host: os.hostname(), token: 'x'.repeat(32), since: '2024-01-01T00:00:00.000Z', ...h }),
  );

/** A dead PID: a child that has exited. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

/** Node running TypeScript through tsx, with a script given inline (cwd = the repo so tsx resolves). */
function nodeTs(code: string, args: string[] = [], wrap: string[] = []): ChildProcessWithoutNullStreams {
  const argv = [process.execPath, '--import', 'tsx', '--input-type=module', '-e', code, '--', ...args];
  const [cmd, ...rest] = [...wrap, ...argv];
  return spawn(cmd, rest, { cwd: repo, stdio: ['pipe', 'pipe', 'pipe'] });
}

function lines(child: ChildProcessWithoutNullStreams, onLine: (l: string) => void): void {
  let buf = '';
  child.stdout.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      onLine(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  });
}

describe('in one process', () => {
  it('holds host, PID, start time, token; refuses a second take; release frees it', () => {
    const dir = freshDir();
    const lock = acquireRunLock(dir);
    const h = lockOf(dir);
    expect(h).toMatchObject({ host: os.hostname(), pid: process.pid, token: lock.holder.token });
    expect(h.token).toMatch(/^[0-9a-f]{32}$/);
    if (fs.existsSync('/proc/self/stat')) expect(h.start).toBe(processStartTime(process.pid));
    expect(() => acquireRunLock(dir)).toThrow(`${dir}: this run is already open in this process`);
    lock.release();
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    acquireRunLock(dir).release();
    expect(fs.readdirSync(dir)).toEqual([]); // no temp files left
  });

  it('release leaves a lock that is no longer ours', () => {
    const dir = freshDir();
    const lock = acquireRunLock(dir);
    writeLock(dir, { pid: process.ppid, start: processStartTime(process.ppid) });
    lock.release();
    expect(lockOf(dir).pid).toBe(process.ppid);
  });

  it('a live holder (same host) is never taken over: UserError naming the folder and the holder', () => {
    const dir = freshDir();
    writeLock(dir, { pid: process.ppid, start: processStartTime(process.ppid) });
    const err = (() => {
      try {
        acquireRunLock(dir);
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toBeInstanceOf(UserError);
    expect(err!.message).toBe(
      `${dir}: this run is in progress in process ${process.ppid} on host ${os.hostname()} since 2024-01-01T00:00:00.000Z; wait for it or stop it first`,
    );
  });

  it('a lock from another host is never judged stale', () => {
    const dir = freshDir();
    writeLock(dir, { host: 'other-host', pid: deadPid() });
    expect(() => acquireRunLock(dir)).toThrow(
      /in progress in process \d+ on host other-host .*; if that host no longer runs it, delete .*\.lock$/,
    );
  });

  it('stale: PID gone', () => {
    const dir = freshDir();
    writeLock(dir, { pid: deadPid(), start: '12345' });
    const lock = acquireRunLock(dir);
    expect(lockOf(dir).token).toBe(lock.holder.token);
    lock.release();
  });

  it.skipIf(!fs.existsSync('/proc/self/stat'))('stale: PID alive but started at another time (a reused PID), even our own', () => {
    for (const pid of [process.ppid, process.pid]) {
      const dir = freshDir();
      writeLock(dir, { pid, start: String(Number(processStartTime(pid)) + 1) });
      const lock = acquireRunLock(dir);
      expect(lockOf(dir).pid).toBe(process.pid);
      lock.release();
    }
    expect(
      judgeHolder({ host: os.hostname(), pid: process.pid, start: processStartTime(process.pid), boot: null, token: 't', since: '' }),
    ).toEqual({ stale: false });
  });

  it("0.1's PID-only lock: ours (a previous container's) or dead is stale, a live other PID is not; lockState (merge, the report) judges it alike", () => {
    for (const pid of [process.pid, deadPid()]) {
      const dir = freshDir();
      fs.writeFileSync(path.join(dir, LOCK_FILE), String(pid));
      expect(lockState(dir)).toEqual({ held: 'none' });
      acquireRunLock(dir).release();
    }
    const dir = freshDir();
    const lockPath = path.join(dir, LOCK_FILE);
    fs.writeFileSync(lockPath, String(process.ppid));
    // A bare PID says no host: a live one here may be that run or an unrelated process, so it holds until deleted.
    expect(lockState(dir)).toEqual({ held: 'bare-pid', pid: process.ppid });
    expect(() => acquireRunLock(dir)).toThrow(
      new UserError(
        `${dir}: this run may be in progress: its run lock ${lockPath} is an old bare-PID lock naming process ${process.ppid}, which is alive on this machine (such a lock does not say which host wrote it); wait for that run or stop it, or, if no process on this machine is running that run, delete ${lockPath}`,
      ),
    );
  });

  it('a folder that cannot hold a lock is a UserError', () => {
    const file = path.join(tmp, 'a-file');
    fs.writeFileSync(file, '');
    expect(() => acquireRunLock(file)).toThrow(UserError);
  });
});

describe('two processes racing', () => {
  // Two long-lived children; for each trial the parent names a folder and a start instant, both spin
  // until that instant and call acquireRunLock, report WON/LOST, and hold until told to release.
  const racer = `
    import readline from 'node:readline';
    const { acquireRunLock } = await import(${JSON.stringify(LOCK_TS)});
    let held;
    for await (const line of readline.createInterface({ input: process.stdin })) {
      const [cmd, dir, at] = line.split(' ');
      if (cmd === 'race') {
        while (Date.now() < Number(at)) {}
        try { held = acquireRunLock(dir); console.log('WON'); }
        catch (e) { console.log(e.name === 'UserError' ? 'LOST' : 'ERROR ' + e.message); }
      } else if (cmd === 'release') { held?.release(); held = undefined; console.log('RELEASED'); }
    }`;
  let kids: { child: ChildProcessWithoutNullStreams; next: () => Promise<string> }[] = [];
  beforeAll(async () => {
    kids = [0, 1].map(() => {
      const child = nodeTs(racer);
      const queue: string[] = [];
      const waiting: ((l: string) => void)[] = [];
      lines(child, (l) => (waiting.length ? waiting.shift()!(l) : queue.push(l)));
      return { child, next: () => (queue.length ? Promise.resolve(queue.shift()!) : new Promise<string>((r) => waiting.push(r))) };
    });
  });
  afterAll(() => kids.forEach((k) => k.child.kill()));

  async function trial(dir: string): Promise<string[]> {
    const at = Date.now() + 30;
    kids.forEach((k) => k.child.stdin.write(`race ${dir} ${at}\n`));
    const out = await Promise.all(kids.map((k) => k.next()));
    kids.forEach((k) => k.child.stdin.write('release\n'));
    await Promise.all(kids.map((k) => k.next()));
    return out;
  }

  it('100 fresh locks: exactly one winner each time', async () => {
    for (let i = 0; i < 100; i++) {
      const out = await trial(freshDir());
      expect(out.sort()).toEqual(['LOST', 'WON']);
    }
  }, 120_000);

  it('100 stale locks (holder killed): exactly one takes it over each time', async () => {
    const dead = deadPid();
    for (let i = 0; i < 100; i++) {
      const dir = freshDir();
      writeLock(dir, { pid: dead, start: '1' });
      const out = await trial(dir);
      expect(out.sort()).toEqual(['LOST', 'WON']);
      expect(fs.readdirSync(dir)).toEqual([]); // released, nothing left behind
    }
  }, 120_000);
});

describe('kill -9', () => {
  const holder = `
    const { acquireRunLock } = await import(${JSON.stringify(LOCK_TS)});
    const lock = acquireRunLock(process.argv[process.argv.length - 1]);
    console.log('LOCKED ' + process.pid + ' ' + lock.holder.start);
    setInterval(() => {}, 1000);`;

  async function lockedBy(child: ChildProcessWithoutNullStreams): Promise<string[]> {
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    return new Promise((resolve, reject) => {
      lines(child, (l) => l.startsWith('LOCKED ') && resolve(l.split(' ').slice(1)));
      child.on('exit', (code) => reject(new Error(`holder exited (${code}): ${err}`)));
    });
  }
  const exited = (c: ChildProcessWithoutNullStreams) =>
    new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(null) : c.on('exit', r)));

  it('a lock left by a killed process is taken over', async () => {
    const dir = freshDir();
    const child = nodeTs(holder, [dir]);
    const [pid] = await lockedBy(child);
    expect(() => acquireRunLock(dir)).toThrow(new RegExp(`in progress in process ${pid} `));
    child.kill('SIGKILL');
    await exited(child);
    expect(lockOf(dir).pid).toBe(Number(pid)); // still there
    const lock = acquireRunLock(dir);
    expect(lockOf(dir).pid).toBe(process.pid);
    lock.release();
  });

  // unshare --pid --fork --mount-proc: the child is PID 1 of a new PID namespace, with its own /proc.
  const unshareWhy = (() => {
    if (process.getuid?.() !== 0) return 'not running as root';
    const r = spawnSync('unshare', ['--pid', '--fork', '--kill-child', '--mount-proc', 'true'], { encoding: 'utf8' });
    return r.status === 0 ? undefined : `unshare --pid --fork unavailable: ${(r.stderr || String(r.error)).trim()}`;
  })();
  it.skipIf(unshareWhy !== undefined)(
    `restart in a new PID namespace after kill -9${unshareWhy ? ` (skipped: ${unshareWhy})` : ''}`,
    async () => {
      const dir = freshDir();
      const wrap = ['unshare', '--pid', '--fork', '--kill-child', '--mount-proc'];
      const first = nodeTs(holder, [dir], wrap);
      const [pid1, start1] = await lockedBy(first);
      first.kill('SIGKILL'); // unshare dies; --kill-child kills the namespace's PID 1 with it
      await exited(first);
      const second = nodeTs(holder, [dir], wrap);
      const [pid2, start2] = await lockedBy(second); // same PID, another start time: the lock was stale
      second.kill('SIGKILL');
      await exited(second);
      expect(pid1).toBe(pid2);
      expect(start2).not.toBe(start1);
      expect(lockOf(dir)).toMatchObject({ pid: Number(pid2), start: start2 });
      // seen from here (another namespace) that lock's holder is gone too
      expect(
        execFileSync('ls', ['-a', dir], { encoding: 'utf8' })
          .split('\n')
          .filter((f) => f.includes('.tmp-')),
      ).toEqual([]);
    },
    60_000,
  );
});
