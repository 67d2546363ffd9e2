// `merge` of overlapping shard runs (docs/cluster.md): which record of an item the merged run keeps,
// and the merged run's recording.jsonl (the kept episodes' recorded attempts), so a merged run can be
// bundled and replayed offline like any run (bundle.ts, from-bundle.ts).
// The rule: per item, the latest valid (error-free) record wins; with none valid, the latest record.
// "Latest" orders the runs by the end of their last session (a re-submitted array task ends later).
import { recordingFile, recordingText } from '../runlog/store.js';
import { parseRecording, recordingLine, type EpisodeRecord, type ParsedRecording, type RunManifest } from '../runlog/schema.js';

export interface MergeSource {
  dir: string;
  manifest: RunManifest;
  records: Map<number, EpisodeRecord>;
}

/** When a run last wrote: the end (else start) of its last session, else its start. */
function lastWrite(m: RunManifest): string {
  const ends = (m.sessions ?? [])
    .map((s) => s.endedAt ?? s.startedAt)
    .filter(Boolean)
    .sort();
  return ends[ends.length - 1] ?? m.startedAt ?? '';
}

/** The kept record per item, how many other records were dropped, and which run each kept record is from. */
export function pickRecords(runs: readonly MergeSource[]): {
  records: Map<number, EpisodeRecord>;
  overlapping: number;
  from: Map<number, MergeSource>;
} {
  // Oldest first: a later run's record replaces an earlier one's unless it is an error and the earlier is not.
  const order = runs.map((r, i) => ({ r, i, t: lastWrite(r.manifest) })).sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : a.i - b.i));
  const records = new Map<number, EpisodeRecord>();
  const from = new Map<number, MergeSource>();
  let overlapping = 0;
  for (const { r } of order) {
    for (const i of r.manifest.indices) {
      const rec = r.records.get(i);
      if (!rec) continue;
      const had = records.get(i);
      if (had) overlapping++;
      if (had && had.error === null && rec.error !== null) continue;
      records.set(i, rec);
      from.set(i, r);
    }
  }
  return { records, overlapping, from };
}

/**
 * Why a source's recording cannot serve the merged run, as far as the shard's manifest tells: `cut`, the
 * file was cut short or not copied (a whole copy of it would do); `unrecorded`, the item's episode ran
 * before recordings existed (no copy holds it: only a re-run records it); `either`, the file is missing
 * and the shard's sessions predate the recording ids that would prove it had one.
 */
export type RecordingLack = 'cut' | 'unrecorded' | 'either';

/** The merged run's recording.jsonl, or null with the reason it has none (one line naming the shard's file). */
export type MergedRecording =
  { text: string; lacking?: undefined; cause?: undefined } | { text: null; lacking: string; cause: RecordingLack };

/**
 * Why a recording has no complete episode of `item`. Lost (`cut`): a torn last line, an attempt of the
 * item begun, or a session the manifest says recorded (its recording id) whose line, or some of whose
 * written episodes, the file lacks. Never held (`unrecorded`): else, when the last session has an id, so
 * nothing was cut from the end: the item was written by an earlier session that left no recording, one
 * run before recordings existed. `either` when the last session has no id (recordings came before the
 * ids, so a file cut at a line's end cannot be told from one never written).
 */
function recordingLack(m: RunManifest, parsed: ParsedRecording, item: number): RecordingLack {
  if (parsed.torn !== undefined || parsed.attempts.some((a) => a.item === item)) return 'cut';
  const held = new Map(parsed.sessions.map((l) => [l.session, 0]));
  for (const a of parsed.attempts) if (a.written) held.set(a.session.session, (held.get(a.session.session) ?? 0) + 1);
  const sessions = m.sessions ?? [];
  const short = sessions.some(
    (s) => s.recording !== undefined && (!held.has(s.recording) || (typeof s.written === 'number' && held.get(s.recording)! < s.written)),
  );
  if (short) return 'cut';
  return sessions.at(-1)?.recording !== undefined ? 'unrecorded' : 'either';
}

/**
 * recording.jsonl of the merged run: from each source run's recording, its session lines and the lines
 * of the final attempt of each item it supplies. None when a source has no recording (made before
 * recordings existed, or not copied) or its recording lacks an item it supplies (cut short, a partial
 * copy, or run before recordings existed): the merged run then cannot be bundled, and `lacking` says
 * which file is why, `cause` whether copying it again would help.
 */
export function mergedRecording(
  runs: readonly MergeSource[],
  selection: readonly number[],
  from: ReadonlyMap<number, MergeSource>,
): MergedRecording {
  const out: string[] = [];
  for (const r of runs) {
    const text = recordingText(r.dir);
    if (text === null) {
      // A session's recording id proves a recording was written (sessions before recording ids prove nothing).
      const recorded = (r.manifest.sessions ?? []).some((s) => s.recording !== undefined);
      return recorded
        ? { text: null, lacking: `${recordingFile(r.dir)} is missing (not copied?)`, cause: 'cut' }
        : {
            text: null,
            lacking: `${recordingFile(r.dir)} is missing (not copied, or the shard ran before recordings existed?)`,
            cause: 'either',
          };
    }
    const parsed = parseRecording(text, recordingFile(r.dir));
    const keep = new Set<string>();
    for (const i of selection) {
      if (from.get(i) !== r) continue;
      const a = parsed.final.get(i);
      if (!a) {
        const cause = recordingLack(r.manifest, parsed, i);
        const why = {
          cut: 'cut short, or a partial copy?',
          unrecorded: 'it ran before recordings existed',
          either: 'cut short, or it ran before recordings existed?',
        };
        return { text: null, lacking: `${recordingFile(r.dir)} has no complete recording of item ${i} (${why[cause]})`, cause };
      }
      keep.add(a.attempt);
    }
    const sessions = new Set([...keep].map((a) => a.slice(0, a.lastIndexOf('.'))));
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      const l = recordingLine(line);
      if (l === undefined) continue; // a torn last line (parseRecording accepted it)
      if (l.t === 'session' ? sessions.has(l.session) : keep.has(l.attempt)) out.push(line + '\n');
    }
  }
  return { text: out.join('') };
}
