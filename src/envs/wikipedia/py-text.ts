// Python str semantics the released wikienv.py relies on (docs/protocol.md §6). str.isprintable()
// (which characters repr() escapes) is wikienv's own; strip/isspace/lower are the suite-wide ones of
// src/util/python-str.ts, re-exported for the modules of this folder.
import { NONPRINTABLE_RANGES } from './py-unicode-data.js';

export { pyIsSpace, pyLower, pyStrip } from '../../util/python-str.js';

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
