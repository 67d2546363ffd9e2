// Group commit for an append-only log: each record is written whole (appendRecord: the whole line or,
// on failure, the file cut back), and made durable by an fsync run off the event loop (libuv's thread
// pool) that covers every record written before it started. A record's promise resolves only once an
// fsync that started after its write has completed, so "reported written" still means "on the disk";
// records finishing while an fsync is in flight share the next one, instead of each blocking the
// event loop for its own. A crash can leave at most a torn last line, which truncateTornTail (and the
// run log's repairing open) removes.
import fs from 'node:fs';
import { appendRecord, toDiskError, type WriteFn } from './durable.js';

interface Waiter {
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class GroupCommitLog {
  /** Records written but not yet covered by a started fsync. */
  private waiting: Waiter[] = [];
  private syncing = false;
  private closeWhenIdle = false;
  private fd: number | null;
  /**
   * The file's length, tracked across appends so none has to ask the file for it (fstat); unknown
   * (asked again) at first and after a failed append, whose cut-back may itself have failed.
   */
  private size: number | undefined;

  constructor(
    fd: number,
    private readonly file: string,
    private readonly opts: { what?: string; write?: WriteFn } = {},
  ) {
    this.fd = fd;
  }

  /**
   * Writes `line` now (whole or not at all: a failed write throws here, synchronously, and leaves the
   * file as it was), then resolves once it is durable; rejects with a DiskError when the fsync fails.
   */
  append(line: string): Promise<void> {
    this.write(line);
    const done = new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
    if (!this.syncing) this.syncNext();
    return done;
  }

  /**
   * Writes `line` now, whole or not at all (a failed write throws, the file as it was), without waiting
   * for it to be durable: the next fsync covers it (`fsync`: one now, on the event loop, before returning).
   */
  write(line: string, opts: { fsync?: boolean } = {}): void {
    if (this.fd === null || this.closeWhenIdle) throw new Error(`${this.file}: the log is closed`);
    const size = this.size;
    this.size = undefined;
    this.size = appendRecord(this.fd, this.file, line, { what: this.opts.what, write: this.opts.write, fsync: opts.fsync, size });
  }

  /** Whether an fsync is in flight or records wait for one. */
  get busy(): boolean {
    return this.syncing || this.waiting.length > 0;
  }

  private syncNext(): void {
    if (this.waiting.length === 0 || this.fd === null) {
      this.syncing = false;
      if (this.closeWhenIdle) this.closeNow();
      return;
    }
    const batch = this.waiting;
    this.waiting = [];
    this.syncing = true;
    fs.fsync(this.fd, (err) => {
      if (err) {
        const e = toDiskError(err, this.file, `appending to ${this.opts.what ?? 'the file'}`);
        for (const w of batch) w.reject(e);
      } else {
        for (const w of batch) w.resolve();
      }
      this.syncNext();
    });
  }

  /** Closes the file now, or after the fsync in flight (a record already written stays written). */
  close(): void {
    if (this.fd === null) return;
    if (this.busy) this.closeWhenIdle = true;
    else this.closeNow();
  }

  private closeNow(): void {
    if (this.fd === null) return;
    fs.closeSync(this.fd);
    this.fd = null;
  }
}
