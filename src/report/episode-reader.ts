// A run's episodes as the report reads them (load.ts), in memory independent of how many there are
// beyond what the tables keep: one chunked pass over episodes.jsonl, by the run store's reading rules
// (runlog/store.ts loadEpisodes: the latest line per index wins, a torn last line, one without its
// newline, is dropped, any whole line that is no record is an error), keeps the slim records
// (runlog/episode-source.ts reportSlim) and where each latest line starts, as two typed arrays sorted
// by index (8 bytes an episode, 16 where a number does not fit 32 bits; not a Map entry). The file
// is read through one reused chunk buffer and the full records read back one at a time into
// another: a report reads every file once or twice, and a buffer per file or per record would be
// garbage the size of all the run folders.
import fs from 'node:fs';
import { UserError, errorMessage } from '../errors.js';
import { upgradeRecord, type EpisodeRecord } from '../runlog/schema.js';
import { reportSlim, type EpisodeSource, type SlimEpisodes } from '../runlog/episode-source.js';

/** Where each index's latest line starts: indices ascending, offsets beside them. */
interface LineIndex {
  idx: Float64Array | Uint32Array;
  offset: Float64Array | Uint32Array;
}

const fitsUint32 = (v: number) => Number.isInteger(v) && v >= 0 && v <= 0xffffffff;

/** 4 bytes a number where every one fits (item indices, and offsets in a file under 4 GiB: any real run), else 8. */
function compact(all: Float64Array): Float64Array | Uint32Array {
  return all.every(fitsUint32) ? Uint32Array.from(all) : all;
}

function lineIndex(latest: Map<number, number>): LineIndex {
  const idx = compact(Float64Array.from(latest.keys()).sort());
  const offset = compact(Float64Array.from(idx, (i) => latest.get(i)!));
  return { idx, offset };
}

function offsetOf(lines: LineIndex, idx: number): number | undefined {
  let lo = 0;
  let hi = lines.idx.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = lines.idx[mid];
    if (v === idx) return lines.offset[mid];
    if (v < idx) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/** The one buffer lines are read into (grown for a longer line; reading is synchronous, one line at a time). */
let scratch = Buffer.allocUnsafe(64 * 1024);

/** A line's text from `offset` to its newline (the line was seen whole when the file was indexed). */
function readLineAt(fd: number, offset: number, file: string): string {
  for (;;) {
    const n = fs.readSync(fd, scratch, 0, scratch.length, offset);
    const nl = scratch.subarray(0, n).indexOf(0x0a);
    if (nl >= 0) return scratch.toString('utf8', 0, nl);
    if (n < scratch.length) throw new UserError(`${file}: changed while the report read it (a line at byte ${offset} lost its end)`);
    scratch = Buffer.allocUnsafe(scratch.length * 4);
  }
}

/** A line read back: it was a record when the file was indexed, so anything else means the file changed since. */
function parseLine(text: string, file: string, offset: number): EpisodeRecord {
  try {
    return upgradeRecord(JSON.parse(text));
  } catch (e) {
    throw new UserError(`${file}: changed while the report read it (the line at byte ${offset}: ${errorMessage(e)})`);
  }
}

function fileSource(file: string, lines: LineIndex): EpisodeSource {
  function* each(indices: Iterable<number>): Generator<EpisodeRecord> {
    const fd = fs.openSync(file, 'r');
    try {
      for (const idx of indices) {
        const offset = offsetOf(lines, idx);
        if (offset === undefined) throw new Error(`${file}: no record of item ${idx}`);
        yield parseLine(readLineAt(fd, offset, file), file, offset);
      }
    } finally {
      fs.closeSync(fd);
    }
  }
  return {
    file,
    read: (idx) => {
      for (const r of each([idx])) return r;
      throw new Error('unreachable');
    },
    each,
  };
}

const CHUNK = 1 << 20;
/** The chunk buffer of the pass (reading is synchronous: one file at a time). */
let chunk: Buffer | undefined;

/**
 * Calls `visit` with every newline-terminated line of `file` (its text and the byte offset it starts
 * at), in order; a tail without a newline is a torn write and is not visited.
 */
function forEachLineText(file: string, visit: (text: string, offset: number) => void): void {
  chunk ??= Buffer.allocUnsafe(CHUNK);
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    let pos = 0;
    // A line begun in an earlier chunk: its bytes so far (a copy) and where it starts.
    let carry: Buffer | null = null;
    let carryAt = 0;
    while (pos < size) {
      const n = fs.readSync(fd, chunk, 0, Math.min(CHUNK, size - pos), pos);
      if (n <= 0) break;
      const data = chunk.subarray(0, n);
      let start = 0;
      for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, start)) {
        if (carry) {
          const line: Buffer = Buffer.concat([carry, data.subarray(0, nl)]);
          carry = null;
          visit(line.toString('utf8'), carryAt);
        } else visit(data.toString('utf8', start, nl), pos + start);
        start = nl + 1;
      }
      if (start < n) {
        if (!carry) carryAt = pos + start;
        carry = carry ? Buffer.concat([carry, data.subarray(start)]) : Buffer.from(data.subarray(start));
      }
      pos += n;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Slim records (reportSlim, latest line per index, in file order of their latest line) and where to read each full one back. */
export function readReportEpisodes(file: string): SlimEpisodes {
  const records = new Map<number, EpisodeRecord>();
  const latest = new Map<number, number>();
  let count = 0;
  if (fs.existsSync(file)) {
    // Every visited line is newline-terminated, so one that is no record is an error, the last one too.
    let line = 0;
    forEachLineText(file, (text, offset) => {
      line++;
      if (text.trim() === '') return;
      let rec: EpisodeRecord;
      try {
        rec = upgradeRecord(JSON.parse(text));
      } catch (e) {
        throw new UserError(`${file}: line ${line} is not an episode record (${errorMessage(e)}); the file was edited or corrupted`);
      }
      latest.set(rec.idx, offset);
      records.delete(rec.idx); // insertion order = order of the latest line
      records.set(rec.idx, reportSlim(rec));
      count++;
    });
  }
  return { records, source: fileSource(file, lineIndex(latest)), lines: count };
}
