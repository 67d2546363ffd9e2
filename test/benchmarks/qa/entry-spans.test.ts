// Dataset entries by their remembered byte spans (src/benchmarks/qa/entry-spans.ts, datasets.ts): the
// spans of a JSON array's objects and of a JSONL file's lines give exactly the entries a full parse
// gives (the vendored files, and generated arrays with brackets, quotes, backslashes and multi-byte
// text inside strings); a loader with remembered spans answers every example as the full parse does,
// believes the memo for an unchanged file and parses whole again for a file written since.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  decodeSpans,
  encodeSpans,
  fitsJsonArray,
  fitsLines,
  jsonArrayObjectSpans,
  lineSpans,
} from '../../../src/benchmarks/qa/entry-spans.js';
import { feverDevFile, hotpotqaDevFile, loadFever, loadHotpotQA, type Examples } from '../../../src/benchmarks/qa/datasets.js';
import { UserError } from '../../../src/errors.js';
import { IdentityMemo } from '../../../src/util/identity-memo.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'entry-spans-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const sliceOf = (buf: Buffer, s: { starts: Uint32Array; ends: Uint32Array }, i: number) => buf.toString('utf8', s.starts[i], s.ends[i]);
const all = (x: Examples) => Array.from({ length: x.size }, (_, i) => x.at(i));

/** A small seeded generator (xorshift32), so a failure names a case that can be run again. */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return (n: number) => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s % n;
  };
}
const PIECES = [
  '{',
  '}',
  '[',
  ']',
  '"',
  '\\',
  '\\"',
  '\\\\',
  ',',
  ':',
  ' ',
  '\n',
  'é',
  '漢',
  '😀',
  'a',
  '{"question": "x"}',
  '\u2028',
  '\t',
];
function randomValue(r: (n: number) => number, depth: number): unknown {
  const k = r(depth > 2 ? 4 : 7);
  if (k === 0) return Array.from({ length: r(6) }, () => PIECES[r(PIECES.length)]).join('');
  if (k === 1) return r(1000) - 500 + r(7) / 8;
  if (k === 2) return [true, false, null][r(3)];
  if (k === 3) return '';
  if (k === 4) return Array.from({ length: r(4) }, () => randomValue(r, depth + 1));
  return randomObject(r, depth + 1);
}
function randomObject(r: (n: number) => number, depth: number): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (let i = r(4); i > 0; i--) o[String(randomValue(r, 3)) + i] = randomValue(r, depth);
  return o;
}

describe('jsonArrayObjectSpans', () => {
  it('finds every entry of the vendored HotpotQA file, each span parsing to the full parse’s entry', () => {
    const buf = fs.readFileSync(hotpotqaDevFile);
    const whole = JSON.parse(buf.toString('utf8')) as unknown[];
    const spans = jsonArrayObjectSpans(buf);
    expect(spans.starts.length).toBe(7405);
    expect(spans.starts.length).toBe(whole.length);
    for (let i = 0; i < whole.length; i++) expect(JSON.parse(sliceOf(buf, spans, i))).toEqual(whole[i]);
  });

  it('gives the full parse’s entries for 400 generated arrays (strings holding brackets, quotes, backslashes, multi-byte text; nested values; any spacing)', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const r = rng(seed);
      const entries = Array.from({ length: r(6) }, () => randomObject(r, 0));
      const text = [JSON.stringify(entries), JSON.stringify(entries, null, 2), JSON.stringify(entries, null, '\t')][r(3)];
      const buf = Buffer.from(` \n${text}\n`);
      const spans = jsonArrayObjectSpans(buf);
      expect(spans.starts.length, `seed ${seed}`).toBe(entries.length);
      for (let i = 0; i < entries.length; i++) expect(JSON.parse(sliceOf(buf, spans, i)), `seed ${seed} entry ${i}`).toEqual(entries[i]);
    }
  });
});

describe('lineSpans', () => {
  it('gives the vendored FEVER file’s lines, as split on newlines without the last empty one', () => {
    const buf = fs.readFileSync(feverDevFile);
    const lines = buf.toString('utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    const spans = lineSpans(buf);
    expect(spans.starts.length).toBe(9999);
    expect(Array.from({ length: spans.starts.length }, (_, i) => sliceOf(buf, spans, i))).toEqual(lines);
  });

  it('ends the last line at the end of the file with or without a newline, and keeps a carriage return in the line', () => {
    const lines = (s: string) => {
      const buf = Buffer.from(s);
      const sp = lineSpans(buf);
      return Array.from({ length: sp.starts.length }, (_, i) => sliceOf(buf, sp, i));
    };
    expect(lines('a\nbé')).toEqual(['a', 'bé']);
    expect(lines('a\nb\n')).toEqual(['a', 'b']);
    expect(lines('a\r\nb\r\n')).toEqual(['a\r', 'b\r']);
    expect(lines('')).toEqual([]);
  });
});

describe('encodeSpans / decodeSpans', () => {
  it('round-trips, and refuses spans that are not ordered, not within the file, or not whole 32-bit words', () => {
    const spans = { starts: Uint32Array.from([1, 5, 9]), ends: Uint32Array.from([4, 8, 12]) };
    const { starts, ends } = encodeSpans(spans);
    expect(decodeSpans(starts, ends, 12)).toEqual(spans);
    expect(decodeSpans(starts, ends, 11)).toBeUndefined(); // past the end of the file
    expect(decodeSpans(ends, starts, 12)).toBeUndefined(); // each start after its end
    const overlap = encodeSpans({ starts: Uint32Array.from([1, 3]), ends: Uint32Array.from([4, 8]) });
    expect(decodeSpans(overlap.starts, overlap.ends, 12)).toBeUndefined();
    expect(decodeSpans('AAA', 'AAA', 12)).toBeUndefined(); // 2 bytes
    expect(decodeSpans(starts, encodeSpans({ starts: Uint32Array.from([4]), ends: Uint32Array.from([4]) }).ends, 12)).toBeUndefined();
  });
});

describe('loaders with remembered spans', () => {
  it('answer every HotpotQA and FEVER example as the full parse does, from a memo another process wrote', () => {
    for (const [load, file] of [
      [loadHotpotQA, hotpotqaDevFile],
      [loadFever, feverDevFile],
    ] as const) {
      const memo = path.join(tmp, `${path.basename(file)}.memo.json`);
      const parsed = all(load(file, { memoFile: memo }));
      // Kept in this process until the command writes its outputs (a dry run writes nothing).
      expect(fs.existsSync(memo)).toBe(false);
      IdentityMemo.saveDeferred();
      expect(JSON.parse(fs.readFileSync(memo, 'utf8'))[path.resolve(file)].starts).toMatch(/^[A-Za-z0-9+/]+=*$/);
      // A copy under another name is a memo this process has not read: it is loaded from the file.
      const copy = path.join(tmp, `${path.basename(file)}.copy.json`);
      fs.copyFileSync(memo, copy);
      const spanned = load(file, { memoFile: copy });
      expect(spanned.size).toBe(parsed.length);
      expect(all(spanned)).toEqual(parsed);
      expect(spanned.at(3)).not.toBe(spanned.at(3)); // a fresh object each time
    }
  });

  it('believe a fitting memo for an unchanged file (no full parse), and parse whole again once the file is written, also with its old size and time', () => {
    const f = path.join(tmp, 'h.json');
    const text = '[{"question": "q0", "answer": "a0"}, {"question": "q1", "answer": "a1"}]';
    fs.writeFileSync(f, text);
    const memo = path.join(tmp, 'h.memo.json');
    expect(all(loadHotpotQA(f, { memoFile: memo })).map((e) => e.question)).toEqual(['q0', 'q1']);
    IdentityMemo.saveDeferred();
    // Another process's memo: only the entries asked for are parsed, never the whole text.
    const fresh = path.join(tmp, 'h.memo-fresh.json');
    fs.copyFileSync(memo, fresh);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const spanned = loadHotpotQA(f, { memoFile: fresh });
      expect(spanned.at(1)).toEqual({ index: 1, question: 'q1', answer: 'a1', meta: {} });
      expect(parse.mock.calls.some(([t]) => t === text)).toBe(false);
    } finally {
      parse.mockRestore();
    }
    // Written in place with the same size and its modification time set back: the change time moved.
    const { atime, mtime } = fs.statSync(f);
    fs.writeFileSync(f, '[{"question": "Q0", "answer": "A0"}, {"question": "Q1", "answer": "A1"}]');
    fs.utimesSync(f, atime, mtime);
    const two = path.join(tmp, 'h.memo2.json');
    fs.copyFileSync(memo, two);
    expect(all(loadHotpotQA(f, { memoFile: two })).map((x) => x.question)).toEqual(['Q0', 'Q1']);
  });

  it('do not believe spans that do not fit the bytes (an entry dropped, another format’s spans): the file is parsed whole', () => {
    const f = path.join(tmp, 'k.json');
    fs.writeFileSync(
      f,
      '[{"question": "q0", "answer": "a0", "claim": "c0", "label": "SUPPORTS"}, {"question": "q1", "answer": "a1", "claim": "c1", "label": "REFUTES"}]',
    );
    const memo = path.join(tmp, 'k.memo.json');
    expect(loadHotpotQA(f, { memoFile: memo }).size).toBe(2);
    IdentityMemo.saveDeferred();
    const e = JSON.parse(fs.readFileSync(memo, 'utf8'))[path.resolve(f)];
    const spans = decodeSpans(e.starts, e.ends, fs.statSync(f).size)!;
    const variants = {
      dropped: { ...e, ...encodeSpans({ starts: spans.starts.slice(1), ends: spans.ends.slice(1) }) },
      empty: { ...e, ...encodeSpans({ starts: new Uint32Array(0), ends: new Uint32Array(0) }) },
      inner: { ...e, ...encodeSpans({ starts: spans.starts.map((x) => x + 1), ends: spans.ends }) },
      'other format': { ...e, format: 'lines/1' },
    };
    for (const [name, entry] of Object.entries(variants)) {
      const m = path.join(tmp, `k.memo-${name.replace(' ', '-')}.json`);
      fs.writeFileSync(m, JSON.stringify({ [path.resolve(f)]: entry }));
      expect(
        all(loadHotpotQA(f, { memoFile: m })).map((x) => x.question),
        name,
      ).toEqual(['q0', 'q1']);
    }
    // The same one-line file read as FEVER lines does not take the HotpotQA spans: it is one claim line,
    // and fails as a full load would (an array is not a claim object).
    const asLines = path.join(tmp, 'k.memo-as-lines.json');
    fs.copyFileSync(memo, asLines);
    expect(() => loadFever(f, { memoFile: asLines })).toThrow(/k\.json:1: expected a JSON object with "claim" and "label"/);
  });

  it('fitsLines and fitsJsonArray accept exactly the spans their scanners give', () => {
    for (const text of ['a\nb', 'a\nb\n', 'x\r\n', '{"q": 1}\n{"q": 2}\n']) {
      const buf = Buffer.from(text);
      const sp = lineSpans(buf);
      expect(fitsLines(buf, sp), text).toBe(true);
      expect(fitsLines(buf, { starts: sp.starts.slice(1), ends: sp.ends.slice(1) }), text).toBe(false);
      expect(fitsLines(buf, { starts: sp.starts.slice(0, -1), ends: sp.ends.slice(0, -1) }), text).toBe(sp.starts.length === 0);
    }
    const buf = Buffer.from(' [ {"a": "}, {"} ,\n{"b": [1, {}]} ] \n');
    const sp = jsonArrayObjectSpans(buf);
    expect(sp.starts.length).toBe(2);
    expect(fitsJsonArray(buf, sp)).toBe(true);
    expect(fitsJsonArray(buf, { starts: sp.starts.slice(0, 1), ends: sp.ends.slice(0, 1) })).toBe(false);
    expect(fitsJsonArray(Buffer.from('[]'), { starts: new Uint32Array(0), ends: new Uint32Array(0) })).toBe(false);
  });

  it('parse whole when the memo is corrupt, foreign or out of the file, and keep the errors of a full load', () => {
    const f = path.join(tmp, 'g.json');
    fs.writeFileSync(f, '[{"question": "q", "answer": "a", "type": "bridge"}]');
    for (const [name, text] of [
      ['corrupt.json', '{"trunc'],
      ['array.json', '[1,2]'],
      ['foreign.json', JSON.stringify({ [path.resolve(f)]: { id: 'x', format: 'json-array-objects/1', starts: 'AAAA', ends: 'AAAA' } })],
    ]) {
      const memo = path.join(tmp, name);
      fs.writeFileSync(memo, text);
      expect(all(loadHotpotQA(f, { memoFile: memo }))).toEqual([{ index: 0, question: 'q', answer: 'a', meta: { type: 'bridge' } }]);
    }
    const bad = path.join(tmp, 'bad.json');
    fs.writeFileSync(bad, '[{"question": "q", "answer": "a"}, {"question": "q2", "answer": 3}]');
    const memo = path.join(tmp, 'bad.memo.json');
    for (let i = 0; i < 2; i++) {
      expect(() => loadHotpotQA(bad, { memoFile: memo })).toThrow(UserError);
      expect(() => loadHotpotQA(bad, { memoFile: memo })).toThrow(/bad\.json: entry 1: "answer" must be a string/);
    }
    IdentityMemo.saveDeferred();
    expect(fs.existsSync(memo)).toBe(false); // a file that does not load whole is never remembered
  });
});
