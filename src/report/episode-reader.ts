// A run's episodes as the report reads them (load.ts), in memory independent of how many there are
// beyond what the tables keep: one chunked pass over episodes.jsonl (loadEpisodes: the latest line per
// index wins, a torn last line is dropped, any other line that is no record is an error) keeps the
// slim records (runlog/episode-source.ts reportSlim) and where each latest line starts, as two typed
// arrays sorted by index (16 bytes an episode, not a Map entry); the full records are read back one
// at a time into one reused buffer (a page reads every record back: a buffer each would be garbage
// the size of the run's file).
import fs from 'node:fs';
import { UserError, errorMessage } from '../errors.js';
import { upgradeRecord, type EpisodeRecord } from '../runlog/schema.js';
import { loadEpisodes } from '../runlog/store.js';
import { reportSlim, type EpisodeSource, type SlimEpisodes } from '../runlog/episode-source.js';

/** Where each index's latest line starts: indices ascending, offsets beside them. */
interface LineIndex {
  idx: Float64Array;
  offset: Float64Array;
}

function lineIndex(latest: Map<number, number>): LineIndex {
  const idx = Float64Array.from(latest.keys()).sort();
  const offset = new Float64Array(idx.length);
  idx.forEach((i, k) => (offset[k] = latest.get(i)!));
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

/** Slim records (reportSlim, latest line per index, in file order of their latest line) and where to read each full one back. */
export function readReportEpisodes(file: string): SlimEpisodes {
  const latest = new Map<number, number>();
  const { records } = loadEpisodes(file, {
    keep: (rec, offset) => {
      latest.set(rec.idx, offset);
      return reportSlim(rec);
    },
  });
  return { records, source: fileSource(file, lineIndex(latest)) };
}
