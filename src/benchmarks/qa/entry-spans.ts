// Where each entry of a dataset file begins and ends, in bytes (pure). A run needs a few of the
// file's thousands of entries, and parsing all of them took most of a QA run's data loading (HotpotQA
// ~25 ms, FEVER ~75 ms: bench/results-start.md); with the spans remembered (datasets.ts) a run parses
// only the entries it asks for. Computed only from a file that has just parsed whole, so the scan
// may assume valid JSON.

/** Byte offsets: entry i is bytes [starts[i], ends[i]) of the file. */
export interface EntrySpans {
  starts: Uint32Array;
  ends: Uint32Array;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const NEWLINE = 0x0a;
const COMMA = 0x2c;

/**
 * The elements of a valid JSON array of objects (the top-level array's direct children). The bytes of
 * '"', '\\', brackets and braces never occur inside a UTF-8 multi-byte sequence, so a byte scan is exact.
 */
export function jsonArrayObjectSpans(buf: Uint8Array): EntrySpans {
  const starts: number[] = [];
  const ends: number[] = [];
  let depth = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i];
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) {
      inString = true;
    } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      if (depth === 1) starts.push(i);
      depth++;
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      depth--;
      if (depth === 1) ends.push(i + 1);
    }
  }
  return { starts: Uint32Array.from(starts), ends: Uint32Array.from(ends) };
}

const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/** Whether bytes[from, to) are JSON whitespace with exactly one `sep` among them (sep -1: none). */
function onlySpaceAround(buf: Uint8Array, from: number, to: number, sep: number): boolean {
  let seen = sep < 0;
  for (let i = from; i < to; i++) {
    if (buf[i] === sep && !seen) seen = true;
    else if (!isSpace(buf[i])) return false;
  }
  return seen;
}

/**
 * Whether remembered spans fit these bytes as jsonArrayObjectSpans gives them: each span one
 * object's braces, '[' before the first, ',' between two, ']' after the last, whitespace elsewhere.
 * A memo that does not fit (another file's, another format's, a hand edit) is not believed, so it
 * can never change how many entries a file has.
 */
export function fitsJsonArray(buf: Uint8Array, s: EntrySpans): boolean {
  const n = s.starts.length;
  if (n === 0) return false;
  for (let i = 0; i < n; i++) {
    if (buf[s.starts[i]] !== OPEN_BRACE || buf[s.ends[i] - 1] !== CLOSE_BRACE) return false;
    if (i > 0 && !onlySpaceAround(buf, s.ends[i - 1], s.starts[i], COMMA)) return false;
  }
  return onlySpaceAround(buf, 0, s.starts[0], OPEN_BRACKET) && onlySpaceAround(buf, s.ends[n - 1], buf.length, CLOSE_BRACKET);
}

/**
 * Whether remembered spans fit these bytes as lineSpans gives them: from the first byte, one newline
 * between two, the last ending at the end of the file or at its final newline (a span holding a
 * newline of its own is not looked for, as fitsJsonArray does not look inside an object).
 */
export function fitsLines(buf: Uint8Array, s: EntrySpans): boolean {
  const n = s.starts.length;
  if (n === 0 || s.starts[0] !== 0) return false;
  for (let i = 1; i < n; i++) {
    if (buf[s.ends[i - 1]] !== NEWLINE || s.starts[i] !== s.ends[i - 1] + 1) return false;
  }
  const last = s.ends[n - 1];
  return last === buf.length || (last === buf.length - 1 && buf[last] === NEWLINE);
}

/** The lines of a file read as Python's list(file) reads it: the newline ends a line, and is not in it. */
export function lineSpans(buf: Uint8Array): EntrySpans {
  const starts: number[] = [];
  const ends: number[] = [];
  let at = 0;
  const bytes = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  while (at < bytes.length) {
    const nl = bytes.indexOf(NEWLINE, at);
    const end = nl < 0 ? bytes.length : nl;
    starts.push(at);
    ends.push(end);
    at = end + 1;
  }
  return { starts: Uint32Array.from(starts), ends: Uint32Array.from(ends) };
}

/** The spans as two base64 strings (the memo file's fields). */
export function encodeSpans(s: EntrySpans): { starts: string; ends: string } {
  const b64 = (a: Uint32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
  return { starts: b64(s.starts), ends: b64(s.ends) };
}

/** encodeSpans' inverse; undefined unless the two decode to equal-length, ordered spans within `size` bytes. */
export function decodeSpans(starts: string, ends: string, size: number): EntrySpans | undefined {
  const u32 = (s: string) => {
    const b = Buffer.from(s, 'base64');
    if (b.length % 4 !== 0) return undefined;
    const out = new Uint32Array(b.length / 4);
    Buffer.from(out.buffer).set(b);
    return out;
  };
  const st = u32(starts);
  const en = u32(ends);
  if (!st || !en || st.length !== en.length) return undefined;
  for (let i = 0; i < st.length; i++) {
    if (st[i] >= en[i] || en[i] > size || (i > 0 && st[i] < en[i - 1])) return undefined;
  }
  return { starts: st, ends: en };
}
