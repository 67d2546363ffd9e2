// Python str semantics the released notebooks rely on (§4 webthink), where JavaScript differs.

/**
 * Code points Python's str.strip()/isspace() treat as whitespace (CPython 3.11, Unicode 14).
 * Differs from String.prototype.trim(): Python adds \x1c-\x1f and \x85, and does NOT strip \ufeff.
 */
const PY_WHITESPACE = new Set<number>([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680,
  0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
  0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

export function isPythonWhitespace(ch: string): boolean {
  return ch.length === 1 && PY_WHITESPACE.has(ch.charCodeAt(0));
}

/** Python's s.strip() with no argument. (Every Python whitespace code point is a single UTF-16 unit.) */
export function pythonStrip(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && PY_WHITESPACE.has(s.charCodeAt(start))) start++;
  while (end > start && PY_WHITESPACE.has(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}

/**
 * Capital letters that the running JavaScript engine (newer Unicode) lower-cases but CPython 3.11
 * (Unicode 14) leaves unchanged, because they were unassigned in Unicode 14. Measured by comparing
 * str.lower() of every code point with toLowerCase() under Node 20 (Unicode 17 data).
 */
const NEWER_THAN_PY311: Array<[number, number]> = [
  [0x1c89, 0x1c89], [0xa7cb, 0xa7cc], [0xa7ce, 0xa7ce], [0xa7d2, 0xa7d2], [0xa7d4, 0xa7d4],
  [0xa7da, 0xa7da], [0xa7dc, 0xa7dc], [0x10d50, 0x10d65], [0x16ea0, 0x16eb8],
];

/** Python's c.lower() for one code point (full case mapping: U+0130 becomes two code points). */
export function pythonLowerCodePoint(cp: number): string {
  const ch = String.fromCodePoint(cp);
  if (NEWER_THAN_PY311.some(([lo, hi]) => cp >= lo && cp <= hi)) return ch;
  return ch.toLowerCase();
}

/**
 * The notebook's `action[0].lower() + action[1:]`: Python indexes code points, not UTF-16 units.
 * The empty string has no action[0] (the released code raises IndexError); callers decide.
 */
export function lowerFirstCodePoint(s: string): string {
  const cp = s.codePointAt(0);
  if (cp === undefined) return s;
  const width = cp > 0xffff ? 2 : 1;
  return pythonLowerCodePoint(cp) + s.slice(width);
}

/** Python's `len(s.split(sep)) - 1` for a non-empty separator: how many times sep occurs, left to right. */
export function countOccurrences(s: string, sep: string): number {
  if (sep === '') throw new RangeError('empty separator');
  let n = 0;
  for (let i = s.indexOf(sep); i !== -1; i = s.indexOf(sep, i + sep.length)) n++;
  return n;
}
