// Readers for the vendored question files, read as the released wrappers.py reads them
// (HotPotQAWrapper: json.load, (question, answer); FeverWrapper: one json.loads per line, (claim, label)).
// A file that is missing or malformed is a UserError naming the file and what is wrong.
import fs from 'node:fs';
import path from 'node:path';
import { dataDir, envsDir } from '../../paths.js';
import { UserError, errorMessage, errorCode } from '../../errors.js';
import type { Example } from './types.js';
import { IdentityMemo, fileIdentity } from '../../util/identity-memo.js';
import { decodeSpans, encodeSpans, fitsJsonArray, fitsLines, jsonArrayObjectSpans, lineSpans, type EntrySpans } from './entry-spans.js';

export const hotpotqaDevFile = path.join(dataDir, 'hotpotqa', 'hotpot_dev_v1_simplified.json');
export const feverDevFile = path.join(dataDir, 'fever', 'paper_dev.jsonl');
export const coveredIndicesFile = path.join(envsDir, 'wikipedia', 'hotpotqa-2017', 'covered_dev_indices.json');

function readBytes(file: string, what: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    const code = errorCode(e);
    const why = code === 'ENOENT' ? 'file not found' : code === 'EISDIR' ? 'is a directory' : errorMessage(e);
    throw new UserError(`${file}: cannot read the ${what} (${why})`);
  }
}

function readText(file: string, what: string): string {
  return readBytes(file, what).toString('utf8');
}

function parseJson(text: string, file: string, where = ''): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    // Newer V8 messages quote a snippet of the input, which may span lines: keep the error on one line.
    throw new UserError(`${file}${where}: invalid JSON (${errorMessage(e).replace(/\s+/g, ' ')})`);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A dataset file's examples, by index (all parsed, or parsed as they are asked for). */
export interface Examples {
  readonly size: number;
  /** The example at `index` (0 ≤ index < size; a fresh object on every call). */
  at(index: number): Example;
}

class ParsedExamples implements Examples {
  constructor(private readonly all: Example[]) {}
  get size(): number {
    return this.all.length;
  }
  at(index: number): Example {
    const e = this.all[index];
    return { ...e, meta: e.meta ? { ...e.meta } : undefined };
  }
}

/** Entries parsed from their remembered spans when asked for (each validated as a full load would). */
class SpannedExamples implements Examples {
  constructor(
    private readonly bytes: Buffer,
    private readonly spans: EntrySpans,
    private readonly entry: (text: string, index: number) => Example,
  ) {}
  get size(): number {
    return this.spans.starts.length;
  }
  at(index: number): Example {
    return this.entry(this.bytes.toString('utf8', this.spans.starts[index], this.spans.ends[index]), index);
  }
}

/** How a dataset file is cut into entries: `tag` names the format and scanner version in the memo. */
interface EntryFormat {
  tag: string;
  scan(bytes: Buffer): EntrySpans;
  fits(bytes: Buffer, spans: EntrySpans): boolean;
}
const JSON_ARRAY: EntryFormat = { tag: 'json-array-objects/1', scan: jsonArrayObjectSpans, fits: fitsJsonArray };
const LINES: EntryFormat = { tag: 'lines/1', scan: lineSpans, fits: fitsLines };

/** Where a dataset file's entries are, by file identity, in the memo file paths.ts names. */
const spansMemo = (memoFile: string | undefined) =>
  new IdentityMemo<{ tag: string; starts: string; ends: string }>(
    'dataset-spans',
    memoFile,
    {
      read: (f) => {
        const [tag, starts, ends] = [f.str('format'), f.str('starts'), f.str('ends')];
        return tag === undefined || starts === undefined || ends === undefined ? undefined : { tag, starts, ends };
      },
      write: ({ tag, starts, ends }) => ({ format: tag, starts, ends }),
    },
    { deferred: true },
  );

/**
 * A dataset file read through the spans memo: with spans remembered for the file's identity (unchanged
 * while it was read), in this format, and fitting the bytes read, only the entries asked for are
 * parsed. Otherwise the file is parsed whole (`parseAll`, which validates every entry) and its spans
 * are remembered (written once the command writes its outputs: IdentityMemo.saveDeferred). The fit
 * check catches another format's or a stale scanner's spans; it does not re-parse each entry, so a
 * memo edited by hand to join two entries would be believed, as an edited sha256 memo would be.
 */
function loadSpanned(
  file: string,
  what: string,
  memoFile: string | undefined,
  format: EntryFormat,
  parseAll: (text: string) => Example[],
  entry: (text: string, index: number) => Example,
): Examples {
  const abs = path.resolve(file);
  const before = statIdentity(abs);
  const bytes = readBytes(file, what);
  const unchanged = before !== undefined && statIdentity(abs) === before;
  const memo = spansMemo(memoFile);
  const known = unchanged ? memo.get(abs, before) : undefined;
  const spans = known?.tag === format.tag ? decodeSpans(known.starts, known.ends, bytes.length) : undefined;
  if (spans && format.fits(bytes, spans)) return new SpannedExamples(bytes, spans, entry);
  const all = parseAll(bytes.toString('utf8'));
  if (unchanged) {
    const found = format.scan(bytes);
    if (found.starts.length === all.length) memo.set(abs, before, { tag: format.tag, ...encodeSpans(found) });
  }
  return new ParsedExamples(all);
}

function statIdentity(file: string): string | undefined {
  try {
    return fileIdentity(fs.statSync(file));
  } catch {
    return undefined; // readBytes says what is wrong
  }
}

/** One hotpot_dev_v1_simplified.json entry as an Example, or a UserError naming the entry. */
function hotpotExample(d: unknown, index: number, file: string): Example {
  if (!isRecord(d)) throw new UserError(`${file}: entry ${index}: expected an object with "question" and "answer"`);
  const { question, answer, ...meta } = d;
  if (typeof question !== 'string') throw new UserError(`${file}: entry ${index}: "question" must be a string`);
  if (typeof answer !== 'string') throw new UserError(`${file}: entry ${index}: "answer" must be a string`);
  return { index, question, answer, meta };
}

/**
 * hotpot_dev_v1_simplified.json: a JSON array of {question, answer, type}. `memoFile` remembers where
 * its entries are (paths.ts datasetSpansMemoFile), so a run parses only the questions it asks.
 */
export function loadHotpotQA(file = hotpotqaDevFile, opts: { memoFile?: string } = {}): Examples {
  const parseAll = (text: string): Example[] => {
    const data = parseJson(text, file);
    if (!Array.isArray(data)) throw new UserError(`${file}: expected a JSON array of {"question", "answer"} objects`);
    return data.map((d, index) => hotpotExample(d, index, file));
  };
  const entry = (text: string, index: number) => hotpotExample(parseJson(text, file, `: entry ${index}`), index, file);
  return loadSpanned(file, 'HotpotQA data', opts.memoFile, JSON_ARRAY, parseAll, entry);
}

/** One paper_dev.jsonl line as an Example, or a UserError naming the line. */
function feverExample(line: string, index: number, file: string): Example {
  const where = `:${index + 1}`;
  if (line.trim() === '') throw new UserError(`${file}${where}: empty line (expected one JSON object per line)`);
  const d = parseJson(line, file, where);
  if (!isRecord(d)) throw new UserError(`${file}${where}: expected a JSON object with "claim" and "label"`);
  const { claim, label, id, verifiable } = d;
  if (typeof claim !== 'string') throw new UserError(`${file}${where}: "claim" must be a string`);
  if (typeof label !== 'string') throw new UserError(`${file}${where}: "label" must be a string`);
  return { index, question: claim, answer: label, meta: { id, verifiable } };
}

/** paper_dev.jsonl: one JSON object per line with "claim" and "label" (the answer). `memoFile` as loadHotpotQA's. */
export function loadFever(file = feverDevFile, opts: { memoFile?: string } = {}): Examples {
  const parseAll = (text: string): Example[] => {
    const lines = text.split('\n');
    // Like Python's list(file): the newline after the last line does not start another entry.
    if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    if (lines.length === 0) throw new UserError(`${file}: no claims (expected one JSON object per line)`);
    return lines.map((line, index) => feverExample(line, index, file));
  };
  const entry = (text: string, index: number) => feverExample(text, index, file);
  return loadSpanned(file, 'FEVER data', opts.memoFile, LINES, parseAll, entry);
}

/** covered_dev_indices.json: ascending, distinct dataset indices below `size`. */
export function loadCoveredIndices(file: string, size: number): number[] {
  const data = parseJson(readText(file, 'offline-coverage index list'), file);
  if (!Array.isArray(data)) throw new UserError(`${file}: expected a JSON array of dataset indices`);
  const indices: number[] = [];
  data.forEach((v: unknown, i) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v >= size) {
      throw new UserError(`${file}: entry ${i}: expected an integer index in 0..${size - 1}, got ${JSON.stringify(v)}`);
    }
    if (i > 0 && v <= indices[i - 1]) {
      throw new UserError(`${file}: entry ${i}: indices must be ascending and distinct`);
    }
    indices.push(v);
  });
  return indices;
}

const coveredSets = new Map<string, ReadonlySet<number>>();
/** loadCoveredIndices as a set, read once per file and size: a run's split and its start notice both ask. */
export function coveredIndexSet(file: string, size: number): ReadonlySet<number> {
  const key = `${size}:${file}`;
  let set = coveredSets.get(key);
  if (!set) coveredSets.set(key, (set = new Set(loadCoveredIndices(file, size))));
  return set;
}
