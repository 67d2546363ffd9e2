// Long text in a cell that wraps (README "Reports"): a line breaks at spaces, never inside a name,
// and a long identifier only where a URL may break; no hyphenation (see NO_HYPHENATION, float.ts).
import { texEscape } from './escape.js';
import { SIZE_SCALE, textWidthPt } from './font-metrics.js';
import type { TexLayout } from './layout.js';

const MARK = /[_.\-#@?=&]/;
/**
 * A token in the pieces a line may end between: after a slash (not between two: "https://"), and before
 * _ . - # @ ? = & (as a URL breaks, so a line never ends in a hyphen that reads as hyphenation; not
 * after another such mark, not inside a number like 3.5, not before closing punctuation). A name
 * (`name`) breaks only after a slash: "gpt-3.5-turbo-0613" stays whole.
 */
export function tokenPieces(tok: string, name = false): string[] {
  const chars = [...tok];
  const out: string[] = [];
  let cur = '';
  chars.forEach((ch, i) => {
    const prev = chars[i - 1] ?? '';
    const next = chars[i + 1] ?? '';
    const before =
      !name &&
      cur !== '' &&
      MARK.test(ch) &&
      !MARK.test(prev) &&
      prev !== '/' &&
      /[A-Za-z0-9]/.test(next) &&
      !(ch === '.' && /\d/.test(prev) && /\d/.test(next));
    if (before) {
      out.push(cur);
      cur = '';
    }
    cur += ch;
    if (ch === '/' && next !== '' && next !== '/') {
      out.push(cur);
      cur = '';
    }
  });
  if (cur) out.push(cur);
  return out;
}

/**
 * The text of a cell that wraps in a paragraph `widthPt` wide at `size`: words break only at spaces
 * (the float turns TeX's hyphenation off: \hyphenpenalty, \exhyphenpenalty), and a token wider than
 * the paragraph only at its tokenPieces points.
 */
export function wrappedText(s: string, name: boolean, widthPt: number, size: TexLayout['size']): string {
  return s
    .split(/(\s+)/)
    .map((tok) =>
      /^\s*$/.test(tok) || textWidthPt(tok) * SIZE_SCALE[size] * 1.01 <= widthPt
        ? texEscape(tok)
        : tokenPieces(tok, name).map(texEscape).join('\\allowbreak{}'),
    )
    .join('');
}

/** Lines a text takes in a paragraph `widthPt` wide, filled word by word as wrappedText breaks it. */
export function wrappedLines(s: string, name: boolean, widthPt: number, k: number): number {
  const pieces = s
    .split(/\s+/)
    .filter(Boolean)
    .flatMap((tok) =>
      textWidthPt(tok) * k * 1.01 <= widthPt
        ? [{ w: textWidthPt(tok) * k, space: true }]
        : tokenPieces(tok, name).map((p, i) => ({ w: textWidthPt(p) * k, space: i === 0 })),
    );
  let lines = 1;
  let used = 0;
  for (const p of pieces) {
    const add = used === 0 ? p.w : p.w + (p.space ? 3.33 * k : 0);
    if (used > 0 && used + add > widthPt) {
      lines++;
      used = p.w;
    } else used += add;
  }
  return lines;
}
