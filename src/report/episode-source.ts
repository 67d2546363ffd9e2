// A run's episodes for report building in memory independent of the run's length: one chunked pass
// over episodes.jsonl keeps, per episode, what the tables and statistics read (a slim record: no
// trajectory text, steps without their text) and where its line starts; the full record is read back
// from the file when a page or a sheet needs it (the HTML's episode blocks, Table 2's sample, the run's
// few-shot prompt), one at a time. The reading rules are loadEpisodes' (src/run/run-log.ts): the latest
// line per index wins, a torn last line is dropped, any other line that is no record is an error.
import fs from 'node:fs';
import { UserError, errorMessage } from '../errors.js';
import { upgradeRecord } from '../run/run-log.js';
import { forEachLine } from '../run/episode-lines.js';
import type { EpisodeRecord } from '../run/record.js';
import type { StepRecord } from '../run/vocabulary.js';

/** Reads full records back from a run's episodes.jsonl. */
export interface EpisodeSource {
  readonly file: string;
  /** The full record of item `idx` as stored (its latest line). */
  read(idx: number): EpisodeRecord;
  /** The full records of these items, in this order, one at a time (the file is open while iterating). */
  each(indices: Iterable<number>): Generator<EpisodeRecord>;
}

/** A step that carries nothing the tables read: shared, so a slim record's steps cost a pointer each. */
const BARE_STEP = Object.freeze({}) as StepRecord;

/**
 * What the report keeps of a record in memory: every field but the texts (traj, input, the steps'
 * thoughts, actions and observations). Steps keep their number (a step limit is counted from it) and
 * the one fact the limit notes read (turnsDropped, docs/protocol.md §5). Pure.
 */
export function reportSlim(rec: EpisodeRecord): EpisodeRecord {
  const steps = Array.isArray(rec.steps)
    ? rec.steps.map((s) => ((s?.turnsDropped ?? 0) > 0 ? ({ turnsDropped: s.turnsDropped } as StepRecord) : BARE_STEP))
    : rec.steps;
  return { ...rec, traj: '', input: '', steps };
}

/** A line's bytes from `offset` to its newline (the line was seen whole when the file was indexed). */
function readLineAt(fd: number, offset: number, file: string): Buffer {
  let size = 16 * 1024;
  for (;;) {
    const buf = Buffer.allocUnsafe(size);
    const n = fs.readSync(fd, buf, 0, size, offset);
    const nl = buf.subarray(0, n).indexOf(0x0a);
    if (nl >= 0) return buf.subarray(0, nl);
    if (n < size) throw new UserError(`${file}: changed while the report read it (a line at byte ${offset} lost its end)`);
    size *= 4;
  }
}

/** A line read back: it was a record when the file was indexed, so anything else means the file changed since. */
function parseLine(bytes: Buffer, file: string, offset: number): EpisodeRecord {
  try {
    return upgradeRecord(JSON.parse(bytes.toString('utf8')));
  } catch (e) {
    throw new UserError(`${file}: changed while the report read it (the line at byte ${offset}: ${errorMessage(e)})`);
  }
}

function fileSource(file: string, offsets: Map<number, number>): EpisodeSource {
  const at = (idx: number): number => {
    const o = offsets.get(idx);
    if (o === undefined) throw new Error(`${file}: no record of item ${idx}`);
    return o;
  };
  function* each(indices: Iterable<number>): Generator<EpisodeRecord> {
    const fd = fs.openSync(file, 'r');
    try {
      for (const idx of indices) {
        const offset = at(idx);
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

export interface SlimEpisodes {
  /** Latest record per index, slim (reportSlim), in file order of their latest line. */
  records: Map<number, EpisodeRecord>;
  source: EpisodeSource;
}

/** One chunked pass over episodes.jsonl: slim records and where each latest line starts. */
export function readSlimEpisodes(file: string): SlimEpisodes {
  const records = new Map<number, EpisodeRecord>();
  const offsets = new Map<number, number>();
  if (fs.existsSync(file)) {
    forEachLine(file, (bytes, offset, i, last) => {
      const line = bytes.toString('utf8');
      if (line.trim() === '') return;
      let rec: EpisodeRecord;
      try {
        rec = upgradeRecord(JSON.parse(line));
      } catch (e) {
        if (last) return; // a last line that is no record: a torn write, as loadEpisodes treats it
        throw new UserError(`${file}: line ${i + 1} is not an episode record (${errorMessage(e)}); the file was edited or corrupted`);
      }
      records.delete(rec.idx); // insertion order = order of the latest line
      records.set(rec.idx, reportSlim(rec));
      offsets.set(rec.idx, offset);
    });
  }
  return { records, source: fileSource(file, offsets) };
}
