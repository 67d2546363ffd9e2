// Reads episodes.jsonl line by line in fixed-size chunks, so that opening a run's log for resume
// holds one chunk and the records kept, never the whole file (a long run's log is hundreds of MB).
// The rules are loadEpisodes' (store.ts): a last line without its newline is a torn write (dropped;
// cut off with `repair`); a whole line that is no record, the last one too, is an error.
import fs from 'node:fs';

const CHUNK = 1 << 20;

export interface LineVisitor {
  /** A complete line (without "\n") starting at byte `offset`. */
  (line: Buffer, offset: number, index: number): void;
}

/**
 * Calls `visit` for every newline-terminated line of `file` in order. Returns the byte length of the
 * newline-terminated part (the rest is a torn tail). A line longer than a chunk is assembled whole.
 */
export function forEachLine(file: string, visit: LineVisitor): { complete: number; size: number } {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    let carry: Buffer = Buffer.alloc(0);
    let carryAt = 0; // file offset of carry[0]
    let pos = 0;
    let index = 0;
    const buf = Buffer.allocUnsafe(CHUNK);
    while (pos < size) {
      const n = fs.readSync(fd, buf, 0, Math.min(CHUNK, size - pos), pos);
      if (n <= 0) break;
      pos += n;
      const data: Buffer = carry.length ? Buffer.concat([carry, buf.subarray(0, n)]) : Buffer.from(buf.subarray(0, n));
      let start = 0;
      for (let nl = data.indexOf(0x0a, start); nl >= 0; nl = data.indexOf(0x0a, start)) {
        visit(data.subarray(start, nl), carryAt + start, index++);
        start = nl + 1;
      }
      carryAt += start;
      carry = data.subarray(start);
    }
    return { complete: carryAt, size };
  } finally {
    fs.closeSync(fd);
  }
}
