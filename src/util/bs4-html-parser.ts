// What BeautifulSoup(html, features="html.parser") sees in a page (docs/protocol.md §6 for Wikipedia
// pages, §9 for WebShop's webshop_text): Python 3.11's html.parser, ported in ./py-html-parser.ts,
// driving BS4 4.11's tree-builder rules, replayed here. (cheerio cannot stand in: parse5 and
// htmlparser2's DOM apply HTML implied end tags, a <ul> or <p> closing an open <p>, where html.parser
// builds the tree exactly as written.) The rules:
// - a start tag nests inside whatever is open; a void element (br, img, link, meta...) closes at
//   once and remembers its name, so that one later end tag of that name is swallowed; <x/> opens x
//   and closes it with the end-tag rule (so after a <br>, a <br/> stays open);
// - an end tag closes the most recent open element of that name (and everything opened after it);
//   an end tag with no such open element is ignored;
// - text runs between two tags/comments become one string, character and entity references joined
//   in (bs4's handle_charref: below 256 as Windows-1252; its handle_entityref: an unknown name keeps
//   its "&" and loses its ";"); a run made only of ASCII whitespace becomes "\n" if it contains a
//   newline, else " " (unless inside <pre>/<textarea>);
// - get_text() joins every descendant string except comments, doctypes, declarations, processing
//   instructions and the strings of <style>, <script>, <template>, <rt> and <rp> (BS4's string
//   containers); CDATA sections count as text. Comments are left out of the tree (no caller reads
//   them); the other hidden kinds are kept, as findAll(text=True) returns them.
import { entityCharacters, parsePyHtml, PY_WS_CLASS, type PyHtmlHandler } from './py-html-parser.js';

export { HtmlParserAssertion } from './py-html-parser.js';

export interface SoupElement {
  name: string;
  classes: string[];
  children: SoupNode[];
}
export interface SoupText {
  text: string;
  /** Left out of BS4's get_text(): a string container's string, a doctype, declaration or PI. */
  hidden: boolean;
}
export type SoupNode = SoupElement | SoupText;

// HTMLTreeBuilder.empty_element_tags (bs4 4.11).
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'keygen',
  'link',
  'menuitem',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
  'basefont',
  'bgsound',
  'command',
  'frame',
  'image',
  'isindex',
  'nextid',
  'spacer',
]);
// HTMLTreeBuilder.DEFAULT_STRING_CONTAINERS: their strings are not NavigableStrings.
const STRING_CONTAINERS = new Set(['rt', 'rp', 'style', 'script', 'template']);
const PRESERVE_WS = new Set(['pre', 'textarea']);
const ASCII_WS = /^[ \n\t\f\r]*$/;
// Python's \S+ (the split of a multi-valued attribute such as class).
const PY_NON_WS = new RegExp(`[^${PY_WS_CLASS}]+`, 'g');

/** How BeautifulSoupHTMLParser.handle_charref turns a numeric reference's name into text. */
function charrefText(name: string): string {
  const hex = name[0] === 'x' || name[0] === 'X';
  const num = parseInt(hex ? name.slice(1) : name, hex ? 16 : 10);
  if (num < 256) {
    const c = windows1252(num);
    if (c !== undefined) return c;
  }
  if (num <= 0x10ffff) return String.fromCodePoint(num); // chr(): lone surrogates included
  return '\ufffd';
}

// Windows-1252 bytes 0x80-0x9f (Python's codec leaves 0x81, 0x8d, 0x8f, 0x90, 0x9d undefined).
const CP1252_HIGH =
  '\u20ac\0\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\0\u017d\0\0\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\0\u017e\u0178';
function windows1252(b: number): string | undefined {
  if (b < 0x80 || b > 0x9f) return String.fromCharCode(b);
  const c = CP1252_HIGH[b - 0x80];
  return c === '\0' ? undefined : c;
}

/** Parses HTML into a tree shaped as BeautifulSoup's html.parser builder shapes it. */
export function parseSoup(html: string): SoupElement {
  const root: SoupElement = { name: '[document]', classes: [], children: [] };
  const stack: SoupElement[] = [root];
  const openCount = new Map<string, number>();
  let preserveDepth = 0;
  let containerDepth = 0;
  let current = root;
  let data: string[] = [];
  const alreadyClosedEmpty: string[] = [];

  // BeautifulSoup.endData: `hidden` for the kinds get_text() skips whatever their container.
  const endData = (kind: 'text' | 'cdata' | 'other' = 'text') => {
    if (data.length === 0) return;
    let text = data.length === 1 ? data[0] : data.join('');
    data = [];
    if (preserveDepth === 0 && ASCII_WS.test(text)) text = text.includes('\n') ? '\n' : ' ';
    const hidden = kind === 'other' || (kind === 'text' && containerDepth > 0);
    current.children.push({ text, hidden });
  };
  const popTag = () => {
    const el = stack.pop()!;
    openCount.set(el.name, openCount.get(el.name)! - 1);
    if (PRESERVE_WS.has(el.name)) preserveDepth--;
    if (STRING_CONTAINERS.has(el.name)) containerDepth--;
    current = stack[stack.length - 1];
  };
  // BeautifulSoup._popToTag
  const popToTag = (name: string) => {
    for (let k = stack.length - 1; k > 0; k--) {
      if (!openCount.get(name)) break;
      const t = stack[k];
      popTag();
      if (t.name === name) break;
    }
  };
  const soupEndtag = (name: string) => {
    endData();
    popToTag(name);
  };
  const startTag = (name: string, attrs: [string, string | null][]) => {
    endData();
    let cls: string | null | undefined;
    for (const [k, v] of attrs) if (k === 'class') cls = v; // a repeated attribute: the last wins
    const el: SoupElement = { name, classes: cls ? (cls.match(PY_NON_WS) ?? []) : [], children: [] };
    current.children.push(el);
    stack.push(el);
    current = el;
    openCount.set(name, (openCount.get(name) ?? 0) + 1);
    if (PRESERVE_WS.has(name)) preserveDepth++;
    if (STRING_CONTAINERS.has(name)) containerDepth++;
  };
  // BeautifulSoupHTMLParser.handle_endtag
  const endTag = (name: string, checkAlreadyClosed: boolean) => {
    const at = checkAlreadyClosed ? alreadyClosedEmpty.indexOf(name) : -1;
    if (at >= 0) alreadyClosedEmpty.splice(at, 1);
    else soupEndtag(name);
  };
  const special = (text: string, kind: 'cdata' | 'other' | 'comment') => {
    endData();
    data.push(text);
    if (kind === 'comment') data = [];
    else endData(kind);
  };

  const handler: PyHtmlHandler = {
    starttag(tag, attrs) {
      startTag(tag, attrs);
      if (VOID.has(tag)) {
        endTag(tag, false);
        alreadyClosedEmpty.push(tag);
      }
    },
    startendtag(tag, attrs) {
      startTag(tag, attrs);
      endTag(tag, true);
    },
    endtag(tag) {
      endTag(tag, true);
    },
    data(text) {
      data.push(text);
    },
    charref(name) {
      data.push(charrefText(name));
    },
    entityref(name) {
      data.push(entityCharacters(name) ?? '&' + name);
    },
    comment(text) {
      special(text, 'comment');
    },
    decl(text) {
      special(text.slice('DOCTYPE '.length), 'other');
    },
    unknownDecl(text) {
      if (text.toUpperCase().startsWith('CDATA[')) special(text.slice('CDATA['.length), 'cdata');
      else special(text, 'other');
    },
    pi(text) {
      special(text, 'other');
    },
  };
  parsePyHtml(html, handler);
  endData();
  return root;
}

/** Elements named `name` (and with class `cls`, if given) in document order, like soup.find_all. */
export function findAll(root: SoupElement, name: string, cls?: string): SoupElement[] {
  const out: SoupElement[] = [];
  const walk = (el: SoupElement) => {
    for (const c of el.children) {
      if ('name' in c) {
        if (c.name === name && (cls === undefined || c.classes.includes(cls))) out.push(c);
        walk(c);
      }
    }
  };
  walk(root);
  return out;
}

/** Tag.get_text(): every visible descendant string, concatenated. */
export function getText(el: SoupElement): string {
  const parts: string[] = [];
  const walk = (e: SoupElement) => {
    for (const c of e.children) {
      if ('name' in c) walk(c);
      else if (!c.hidden) parts.push(c.text);
    }
  };
  walk(el);
  return parts.join('');
}
