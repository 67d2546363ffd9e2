// CPython 3.11's html.parser.HTMLParser (with the parts of _markupbase it uses) as
// BeautifulSoup(html, "html.parser") drives it: convert_charrefs=False, one feed() of the whole
// page, then close() (docs/protocol.md §6 for Wikipedia pages, §9 for WebShop pages). Written from
// the behaviour of Lib/html/parser.py: the same regular expressions (with Python's \s, which is not
// JavaScript's), the same order of checks and the same two passes, so malformed markup (an
// unterminated tag, a bare "&#", an unclosed <script>) ends up as the same text it does in Python.
// Line/offset tracking (getpos) is left out: nothing here reads it.
import { pyLower, pyStrip } from './python-str.js';
import { EnvironmentFailure } from '../errors.js';
import { HTML5_ENTITIES_JSON, LEGACY_ENTITY_NAMES } from './html-entities.js';

/**
 * The callbacks HTMLParser's subclass overrides. Of the attributes only `class` is passed (the
 * soup keeps nothing else): its last occurrence's unescaped value, null when it has no value,
 * undefined when the tag has none.
 */
export interface PyHtmlHandler {
  starttag(tag: string, cls: string | null | undefined): void;
  startendtag(tag: string, cls: string | null | undefined): void;
  endtag(tag: string): void;
  data(text: string): void;
  charref(name: string): void;
  entityref(name: string): void;
  comment(text: string): void;
  decl(text: string): void;
  pi(text: string): void;
  unknownDecl(text: string): void;
}

/** html.parser raised AssertionError (e.g. "<![foo"): BeautifulSoup 4.11 lets it propagate. */
export class HtmlParserAssertion extends EnvironmentFailure {}

// Python's \s for str patterns (str.isspace()): JavaScript's \s adds U+FEFF and lacks \x1c-\x1f, \x85.
/** The inside of a RegExp character class matching what Python's \s matches. */
export const PY_WS_CLASS = '\\t\\n\\v\\f\\r \\x1c-\\x1f\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const S = PY_WS_CLASS;
const WS = `[${S}]`;

const INTERESTING_NORMAL = /[&<]/g;
const ENTITYREF = /&([a-zA-Z][-.a-zA-Z0-9]*)[^a-zA-Z0-9]/y;
const CHARREF = /&#(?:[0-9]+|[xX][0-9a-fA-F]+)[^0-9a-fA-F]/y;
const INCOMPLETE = /&[a-zA-Z#]/y;
const TAGFIND_TOLERANT = new RegExp(`([a-zA-Z][^\\t\\n\\r\\f />\\x00]*)(?:${WS}|/(?!>))*`, 'y');
const ATTRFIND_TOLERANT = new RegExp(
  `((?<=['"${S}/])[^${S}/>][^${S}/=>]*)(${WS}*=+${WS}*('[^']*'|"[^"]*"|(?!['"])[^>${S}]*))?(?:${WS}|/(?!>))*`,
  'y',
);
const LOCATESTARTTAGEND_TOLERANT = new RegExp(
  `<[a-zA-Z][^\\t\\n\\r\\f />\\x00]*` +
    `(?:[${S}/]*(?:(?<=['"${S}/])[^${S}/>][^${S}/=>]*` +
    `(?:${WS}*=+${WS}*(?:'[^']*'|"[^"]*"|(?!['"])[^>${S}]*)${WS}*)?(?:${WS}|/(?!>))*)*)?` +
    `${WS}*`,
  'y',
);
const ENDTAGFIND = new RegExp(`</${WS}*([a-zA-Z][-.a-zA-Z0-9:_]*)${WS}*>`, 'y');
const COMMENTCLOSE = new RegExp(`--${WS}*>`, 'g');
const DECLNAME = new RegExp(`[a-zA-Z][-_.a-zA-Z0-9]*${WS}*`, 'y');
const MARKEDSECTIONCLOSE = new RegExp(`]${WS}*]${WS}*>`, 'g');
const MSMARKEDSECTIONCLOSE = new RegExp(`]${WS}*>`, 'g');
const CDATA_CONTENT_ELEMENTS = new Set(['script', 'style']);
// set_cdata_mode's pattern, compiled with re.I: Python's case-insensitive match also takes U+017F
// for "s" and U+0130, U+0131 for "i" (JavaScript's /iu folds only the first), so the letters are spelt out.
const SCRIPT_CLOSE = new RegExp(`</${WS}*[sS\u017f][cC][rR][iI\u0130\u0131][pP][tT]${WS}*>`, 'g');
const STYLE_CLOSE = new RegExp(`</${WS}*[sS\u017f][tT][yY][lL][eE]${WS}*>`, 'g');
// The fast path's three forms, each a case where the regular expressions above give the same result:
// a text run up to the next & or <; <name attrs> or <name attrs/> with an ASCII name and attributes
// separated by spaces or newlines, each a bare name or name="value"; </name> with nothing else in it.
const FAST = /([^&<]+)|<([a-zA-Z][a-zA-Z0-9]*)((?:[ \n]+[a-zA-Z_:][-a-zA-Z0-9_:.]*(?:="[^"]*")?)*)[ \n]*(\/?)>|<\/([a-zA-Z][a-zA-Z0-9]*)>/y;
const FAST_ATTR = /[ \n]+([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:="([^"]*)")?/g;
const CLASS_WORD = /class/i;
const NON_ASCII = /[\u0080-\uffff]/;

const lower = (s: string) => (NON_ASCII.test(s) ? pyLower(s) : s.toLowerCase());
const isAsciiLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

function stickyMatch(re: RegExp, s: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(s);
}
function searchFrom(re: RegExp, s: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(s);
}

/** feed(html) then close(), calling `h` as HTMLParser calls its handle_* methods. */
export function parsePyHtml(raw: string, h: PyHtmlHandler): void {
  const n = raw.length;
  let cdataElem: string | null = null;
  let cdataClose: RegExp | null = null;

  const parseStarttag = (i: number): number => {
    const endpos = checkForWholeStartTag(i);
    if (endpos < 0) return endpos;
    let cls: string | null | undefined;
    const m = stickyMatch(TAGFIND_TOLERANT, raw, i + 1)!;
    let k = TAGFIND_TOLERANT.lastIndex;
    const tag = lower(m[1]);
    while (k < endpos) {
      const a = stickyMatch(ATTRFIND_TOLERANT, raw, k);
      if (!a) break;
      let value: string | null = a[2] === undefined ? null : a[3];
      // Only a quoted value can start with a quote (the bare form excludes it), and it ends with the same.
      if (value !== null && (value[0] === "'" || value[0] === '"')) value = value.slice(1, -1);
      if (lower(a[1]) === 'class') cls = value ? pyUnescape(value) : value;
      k = ATTRFIND_TOLERANT.lastIndex;
    }
    const end = pyStrip(raw.slice(k, endpos));
    if (end !== '>' && end !== '/>') {
      h.data(raw.slice(i, endpos));
      return endpos;
    }
    if (end.endsWith('/>')) {
      h.startendtag(tag, cls); // XHTML-style empty tag
    } else {
      h.starttag(tag, cls);
      if (CDATA_CONTENT_ELEMENTS.has(tag)) {
        cdataElem = tag;
        cdataClose = tag === 'script' ? SCRIPT_CLOSE : STYLE_CLOSE;
      }
    }
    return endpos;
  };

  const checkForWholeStartTag = (i: number): number => {
    if (!stickyMatch(LOCATESTARTTAGEND_TOLERANT, raw, i)) throw new HtmlParserAssertion('we should not get here!');
    const j = LOCATESTARTTAGEND_TOLERANT.lastIndex;
    const next = raw.charAt(j);
    if (next === '>') return j + 1;
    if (next === '/') {
      if (raw.startsWith('/>', j)) return j + 2;
      return -1; // raw.startswith("/", j) always holds here: a buffer boundary for Python
    }
    if (next === '') return -1;
    if (isAsciiLetter(next.charCodeAt(0)) || next === '=' || next === '/') return -1;
    return j > i ? j : i + 1;
  };

  const parseEndtag = (i: number): number => {
    const gt = raw.indexOf('>', i + 1);
    if (gt < 0) return -1;
    let gtpos = gt + 1;
    const m = stickyMatch(ENDTAGFIND, raw, i);
    if (!m) {
      if (cdataElem !== null) {
        h.data(raw.slice(i, gtpos));
        return gtpos;
      }
      const nm = stickyMatch(TAGFIND_TOLERANT, raw, i + 2);
      if (!nm) {
        if (raw.startsWith('</>', i)) return i + 3;
        return parseBogusComment(i);
      }
      const tagname = lower(nm[1]);
      gtpos = raw.indexOf('>', TAGFIND_TOLERANT.lastIndex);
      h.endtag(tagname);
      return gtpos + 1;
    }
    const elem = lower(m[1]);
    if (cdataElem !== null && elem !== cdataElem) {
      h.data(raw.slice(i, gtpos));
      return gtpos;
    }
    h.endtag(elem);
    cdataElem = null;
    cdataClose = null;
    return gtpos;
  };

  const parseBogusComment = (i: number): number => {
    const pos = raw.indexOf('>', i + 2);
    if (pos < 0) return -1;
    h.comment(raw.slice(i + 2, pos));
    return pos + 1;
  };

  const parseComment = (i: number): number => {
    const m = searchFrom(COMMENTCLOSE, raw, i + 4);
    if (!m) return -1;
    h.comment(raw.slice(i + 4, m.index));
    return COMMENTCLOSE.lastIndex;
  };

  const parsePi = (i: number): number => {
    const j = raw.indexOf('>', i + 2);
    if (j < 0) return -1;
    h.pi(raw.slice(i + 2, j));
    return j + 1;
  };

  // _markupbase.ParserBase._scan_name: [name, end] or [null, -1] at the end of the buffer.
  const scanName = (i: number, declstartpos: number): [string | null, number] => {
    if (i === n) return [null, -1];
    const m = stickyMatch(DECLNAME, raw, i);
    if (!m) throw new HtmlParserAssertion(`expected name token at ${pyRepr(raw.slice(declstartpos, declstartpos + 20))}`);
    if (i + m[0].length === n) return [null, -1];
    return [lower(pyStrip(m[0])), DECLNAME.lastIndex];
  };

  const parseMarkedSection = (i: number): number => {
    const [sectName, j] = scanName(i + 3, i);
    if (j < 0) return j;
    let re: RegExp;
    if (sectName === 'temp' || sectName === 'cdata' || sectName === 'ignore' || sectName === 'include' || sectName === 'rcdata') {
      re = MARKEDSECTIONCLOSE;
    } else if (sectName === 'if' || sectName === 'else' || sectName === 'endif') {
      re = MSMARKEDSECTIONCLOSE;
    } else {
      throw new HtmlParserAssertion(`unknown status keyword ${pyRepr(raw.slice(i + 3, j))} in marked section`);
    }
    const m = searchFrom(re, raw, i + 3);
    if (!m) return -1;
    h.unknownDecl(raw.slice(i + 3, m.index));
    return re.lastIndex;
  };

  const parseHtmlDeclaration = (i: number): number => {
    if (raw.startsWith('<!--', i)) return parseComment(i);
    if (raw.startsWith('<![', i)) return parseMarkedSection(i);
    if (raw.slice(i, i + 9).toLowerCase() === '<!doctype') {
      const gtpos = raw.indexOf('>', i + 9);
      if (gtpos < 0) return -1;
      h.decl(raw.slice(i + 2, gtpos));
      return gtpos + 1;
    }
    return parseBogusComment(i);
  };

  // A start tag the fast path matched: an ASCII name and attributes, each a name alone or name="value".
  const fastStarttag = (name: string, attrText: string, selfClosing: boolean) => {
    const tag = name.toLowerCase();
    let cls: string | null | undefined;
    if (attrText.length > 0 && CLASS_WORD.test(attrText)) {
      FAST_ATTR.lastIndex = 0;
      for (let a = FAST_ATTR.exec(attrText); a !== null; a = FAST_ATTR.exec(attrText)) {
        if (a[1].toLowerCase() === 'class') cls = a[2] === undefined ? null : a[2] ? pyUnescape(a[2]) : '';
      }
    }
    if (selfClosing) h.startendtag(tag, cls);
    else {
      h.starttag(tag, cls);
      if (tag === 'script' || tag === 'style') {
        cdataElem = tag;
        cdataClose = tag === 'script' ? SCRIPT_CLOSE : STYLE_CLOSE;
      }
    }
  };

  // One step of goahead's loop past the fast path: the new position, or -(position) - 1 where
  // Python's loop breaks. Kept apart so the fast loop compiles small.
  const step = (start: number, end: boolean): number => {
    let i = start;
    let j: number;
    if (cdataElem === null) {
      const m = searchFrom(INTERESTING_NORMAL, raw, i);
      j = m ? m.index : n;
    } else {
      const m = searchFrom(cdataClose!, raw, i);
      if (!m) return -i - 1;
      j = m.index;
    }
    if (i < j) h.data(raw.slice(i, j));
    i = j;
    if (i === n) return -i - 1;
    const c = raw.charCodeAt(i);
    if (c === 60 /* < */) {
      let k: number;
      const c1 = raw.charCodeAt(i + 1);
      if (isAsciiLetter(c1)) k = parseStarttag(i);
      else if (c1 === 47 /* / */) k = parseEndtag(i);
      else if (raw.startsWith('<!--', i)) k = parseComment(i);
      else if (c1 === 63 /* ? */) k = parsePi(i);
      else if (c1 === 33 /* ! */) k = parseHtmlDeclaration(i);
      else if (i + 1 < n) {
        h.data('<');
        k = i + 1;
      } else return -i - 1;
      if (k < 0) {
        if (!end) return -i - 1;
        k = raw.indexOf('>', i + 1);
        if (k < 0) {
          k = raw.indexOf('<', i + 1);
          if (k < 0) k = i + 1;
        } else k += 1;
        h.data(raw.slice(i, k));
      }
      return k;
    } else if (raw.startsWith('&#', i)) {
      const m = stickyMatch(CHARREF, raw, i);
      if (m) {
        h.charref(m[0].slice(2, -1));
        let k = CHARREF.lastIndex;
        if (raw.charCodeAt(k - 1) !== 59 /* ; */) k -= 1;
        return k;
      }
      if (raw.indexOf(';', i) >= 0) {
        // bail by consuming "&#"
        h.data('&#');
        i += 2;
      }
      return -i - 1;
    } else {
      const m = stickyMatch(ENTITYREF, raw, i);
      if (m) {
        h.entityref(m[1]);
        let k = ENTITYREF.lastIndex;
        if (raw.charCodeAt(k - 1) !== 59) k -= 1;
        return k;
      }
      if (stickyMatch(INCOMPLETE, raw, i)) {
        if (end && i + 2 === n) i += 1; // Python drops the "&" of a final "&x"
        return -i - 1;
      } else if (i + 1 < n) {
        h.data('&');
        return i + 1;
      } else return -i - 1;
    }
  };

  // HTMLParser.goahead(end): returns where it stopped (Python keeps rawdata[i:] for the next call).
  const goahead = (start: number, end: boolean): number => {
    let i = start;
    while (i < n) {
      if (cdataElem === null) {
        // Fast path: a text run, a plain start tag or a plain end tag, each handled exactly as the
        // general steps below would; anything else (references, comments, odd tags) goes there.
        FAST.lastIndex = i;
        const f = FAST.exec(raw);
        if (f !== null) {
          if (f[1] !== undefined) h.data(f[1]);
          else if (f[2] !== undefined) fastStarttag(f[2], f[3], f[4] === '/');
          else h.endtag(f[5].toLowerCase());
          i = FAST.lastIndex;
          continue;
        }
      }
      const r = step(i, end);
      if (r < 0) {
        i = -r - 1;
        break;
      }
      i = r;
    }
    if (end && i < n && cdataElem === null) {
      h.data(raw.slice(i, n));
      i = n;
    }
    return i;
  };

  const rest = goahead(0, false); // feed()
  goahead(rest, true); // close()
}

// A page uses a handful of names: each is looked up in the JSON text (its keys are quoted ASCII
// names, so '"name":' finds exactly that key) and remembered, rather than parsing 2,125 entries.
const entityCache = new Map<string, string | null>([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['nbsp', '\u00a0'],
]);

/** bs4's EntitySubstitution.HTML_ENTITY_TO_CHARACTER.get(name): the HTML5 name without ';'. */
export function entityCharacters(name: string): string | undefined {
  let v = entityCache.get(name);
  if (v === undefined) {
    v = null;
    const key = `"${name}":"`;
    const at = HTML5_ENTITIES_JSON.indexOf(key);
    if (at >= 0) {
      const start = at + key.length - 1;
      let k = start + 1;
      while (HTML5_ENTITIES_JSON[k] !== '"') k += HTML5_ENTITIES_JSON[k] === '\\' ? 2 : 1;
      const value: unknown = JSON.parse(HTML5_ENTITIES_JSON.slice(start, k + 1));
      if (typeof value === 'string') v = value;
    }
    entityCache.set(name, v);
  }
  return v ?? undefined;
}

/** html.unescape also accepts these names without a ';'. */
const isLegacyEntity = (name: string) => ` ${LEGACY_ENTITY_NAMES} `.includes(` ${name} `);

const INVALID_CHARREFS: Record<number, string> = {
  0x00: '\ufffd',
  0x0d: '\r',
  0x80: '\u20ac',
  0x81: '\x81',
  0x82: '\u201a',
  0x83: '\u0192',
  0x84: '\u201e',
  0x85: '\u2026',
  0x86: '\u2020',
  0x87: '\u2021',
  0x88: '\u02c6',
  0x89: '\u2030',
  0x8a: '\u0160',
  0x8b: '\u2039',
  0x8c: '\u0152',
  0x8d: '\x8d',
  0x8e: '\u017d',
  0x8f: '\x8f',
  0x90: '\x90',
  0x91: '\u2018',
  0x92: '\u2019',
  0x93: '\u201c',
  0x94: '\u201d',
  0x95: '\u2022',
  0x96: '\u2013',
  0x97: '\u2014',
  0x98: '\u02dc',
  0x99: '\u2122',
  0x9a: '\u0161',
  0x9b: '\u203a',
  0x9c: '\u0153',
  0x9d: '\x9d',
  0x9e: '\u017e',
  0x9f: '\u0178',
};

function isInvalidCodepoint(cp: number): boolean {
  return (
    (cp >= 0x1 && cp <= 0x8) ||
    (cp >= 0xe && cp <= 0x1f) ||
    (cp >= 0x7f && cp <= 0x9f) ||
    (cp >= 0xfdd0 && cp <= 0xfdef) ||
    cp === 0xb ||
    (cp & 0xfffe) === 0xfffe
  );
}

const UNESCAPE = /&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[^\t\n\f <&#;]{1,32};?)/g;

/** html.unescape (Python 3.11): how html.parser decodes attribute values. */
export function pyUnescape(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(UNESCAPE, (_all, ref: string) => {
    if (ref[0] === '#') {
      const hex = ref[1] === 'x' || ref[1] === 'X';
      const digits = ref.slice(hex ? 2 : 1).replace(/;$/, '');
      const num = parseInt(digits, hex ? 16 : 10);
      if (num in INVALID_CHARREFS) return INVALID_CHARREFS[num];
      if ((num >= 0xd800 && num <= 0xdfff) || num > 0x10ffff) return '\ufffd';
      if (isInvalidCodepoint(num)) return '';
      return String.fromCodePoint(num);
    }
    if (ref.endsWith(';')) {
      const whole = entityCharacters(ref.slice(0, -1));
      if (whole !== undefined) return whole;
    } else if (isLegacyEntity(ref)) return entityCharacters(ref)!;
    // the longest legacy name that prefixes it (html5 keys without ';' are the legacy ones)
    for (let x = ref.length - 1; x > 1; x--) {
      if (isLegacyEntity(ref.slice(0, x))) return entityCharacters(ref.slice(0, x))! + ref.slice(x);
    }
    return '&' + ref;
  });
}

/** Python's repr() of a short str, for error messages. */
function pyRepr(s: string): string {
  return s.includes("'") && !s.includes('"') ? `"${s}"` : `'${s.replaceAll("'", "\\'")}'`;
}
