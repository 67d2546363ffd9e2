// Python's repr() of a str and of a list of str, as f"...{titles[:5]}." prints them (docs/protocol.md §6
// "Similar:") and as WebShop.ipynb's f'{options}' writes a dict's keys and values (§9).
import { pyIsPrintable } from './python-printable.js';

function hex(cp: number, width: number): string {
  return cp.toString(16).padStart(width, '0');
}

/** repr(s) for a Python str: quote choice, escapes and the isprintable rule of CPython's unicode_repr. */
export function pyStrRepr(s: string): string {
  // ' unless the text has ' and no " (then ").
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    // for..of yields a lone surrogate as one unit, which is what Python holds too.
    const cp = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += '\\' + ch;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + hex(cp, 2);
    else if (cp < 0x7f) out += ch;
    else if (pyIsPrintable(cp)) out += ch;
    else if (cp <= 0xff) out += '\\x' + hex(cp, 2);
    else if (cp <= 0xffff) out += '\\u' + hex(cp, 4);
    else out += '\\U' + hex(cp, 8);
  }
  return out + quote;
}

/** str(list_of_str) == repr(list_of_str): "['a', \"b'c\"]". */
export function pyListRepr(items: readonly string[]): string {
  return '[' + items.map(pyStrRepr).join(', ') + ']';
}
