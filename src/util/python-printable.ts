// Python's str.isprintable(), which decides what repr() escapes (docs/protocol.md §6: the "Similar:"
// list of wikienv.py; §9: WebShop's option dicts), from CPython's Unicode database
// (python-unicode-data.ts), so Node's own ICU version does not matter. strip/isspace/lower are in
// python-str.ts.
import { NONPRINTABLE_RANGES } from './python-unicode-data.js';

/** Python's str.isprintable() for one code point (CPython's Unicode database). */
export function pyIsPrintable(cp: number): boolean {
  // Binary search over flattened inclusive [start, end] pairs of non-printable code points.
  let lo = 0;
  let hi = NONPRINTABLE_RANGES.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const a = NONPRINTABLE_RANGES[2 * mid];
    const b = NONPRINTABLE_RANGES[2 * mid + 1];
    if (cp < a) hi = mid - 1;
    else if (cp > b) lo = mid + 1;
    else return false;
  }
  return true;
}
