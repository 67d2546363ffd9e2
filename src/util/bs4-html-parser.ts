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
// The usual value (words split by single spaces), where split(' ') gives the same list.
const SIMPLE_CLASSES = /^[-\w]+(?: [-\w]+)*$/;

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

// The builder's state; a class (not closures) so each parse allocates one object and the methods,
// shared by every parse, warm up once.
class SoupBuilder implements PyHtmlHandler {
  readonly root: SoupElement = { name: '[document]', classes: [], children: [] };
  private readonly stack: SoupElement[] = [this.root];
  private readonly openCount = new Map<string, number>();
  private current: SoupElement = this.root;
  private preserveDepth = 0;
  private containerDepth = 0;
  private buf: string[] = [];
  private readonly alreadyClosedEmpty: string[] = [];

  /** BeautifulSoup.endData; `kind` is the string's class: text, CData, or one get_text() skips. */
  endData(kind: 'text' | 'cdata' | 'other' = 'text'): void {
    const buf = this.buf;
    if (buf.length === 0) return;
    let text = buf.length === 1 ? buf[0] : buf.join('');
    this.buf = [];
    if (this.preserveDepth === 0 && ASCII_WS.test(text)) text = text.includes('\n') ? '\n' : ' ';
    const hidden = kind === 'other' || (kind === 'text' && this.containerDepth > 0);
    this.current.children.push({ text, hidden });
  }

  private popTag(): void {
    const el = this.stack.pop()!;
    this.openCount.set(el.name, this.openCount.get(el.name)! - 1);
    if (PRESERVE_WS.has(el.name)) this.preserveDepth--;
    if (STRING_CONTAINERS.has(el.name)) this.containerDepth--;
    this.current = this.stack[this.stack.length - 1];
  }

  /** BeautifulSoup._popToTag: up to and including the most recent open `name`, if any is open. */
  private popToTag(name: string): void {
    if (!this.openCount.get(name)) return;
    const stack = this.stack;
    for (let k = stack.length - 1; k > 0; k--) {
      const t = stack[k];
      this.popTag();
      if (t.name === name) break;
    }
  }

  private pushTag(name: string, cls: string | null | undefined): void {
    this.endData();
    const classes = !cls ? [] : SIMPLE_CLASSES.test(cls) ? cls.split(' ') : (cls.match(PY_NON_WS) ?? []);
    const el: SoupElement = { name, classes, children: [] };
    this.current.children.push(el);
    this.stack.push(el);
    this.current = el;
    this.openCount.set(name, (this.openCount.get(name) ?? 0) + 1);
    if (PRESERVE_WS.has(name)) this.preserveDepth++;
    if (STRING_CONTAINERS.has(name)) this.containerDepth++;
  }

  /** BeautifulSoupHTMLParser.handle_endtag. */
  private closeTag(name: string, checkAlreadyClosed: boolean): void {
    const list = this.alreadyClosedEmpty;
    const at = checkAlreadyClosed && list.length > 0 ? list.indexOf(name) : -1;
    if (at >= 0) {
      list.splice(at, 1);
      return;
    }
    this.endData();
    this.popToTag(name);
  }

  private special(text: string, kind: 'cdata' | 'other'): void {
    this.endData();
    this.buf.push(text);
    this.endData(kind);
  }

  starttag(tag: string, cls: string | null | undefined): void {
    this.pushTag(tag, cls);
    if (VOID.has(tag)) {
      this.closeTag(tag, false);
      this.alreadyClosedEmpty.push(tag);
    }
  }
  startendtag(tag: string, cls: string | null | undefined): void {
    this.pushTag(tag, cls);
    this.closeTag(tag, true);
  }
  endtag(tag: string): void {
    this.closeTag(tag, true);
  }
  data(text: string): void {
    this.buf.push(text);
  }
  charref(name: string): void {
    this.buf.push(charrefText(name));
  }
  entityref(name: string): void {
    this.buf.push(entityCharacters(name) ?? '&' + name);
  }
  comment(): void {
    this.endData(); // a Comment: not kept (get_text() and findAll(text=True) callers drop it)
  }
  decl(text: string): void {
    this.special(text.slice('DOCTYPE '.length), 'other');
  }
  unknownDecl(text: string): void {
    if (text.toUpperCase().startsWith('CDATA[')) this.special(text.slice('CDATA['.length), 'cdata');
    else this.special(text, 'other');
  }
  pi(text: string): void {
    this.special(text, 'other');
  }
}

/** Parses HTML into a tree shaped as BeautifulSoup's html.parser builder shapes it. */
export function parseSoup(html: string): SoupElement {
  const b = new SoupBuilder();
  parsePyHtml(html, b);
  b.endData();
  return b.root;
}

function collectElements(el: SoupElement, name: string, cls: string | undefined, out: SoupElement[]): void {
  const children = el.children;
  for (let k = 0; k < children.length; k++) {
    const c = children[k];
    if ('name' in c) {
      if (c.name === name && (cls === undefined || c.classes.includes(cls))) out.push(c);
      if (c.children.length > 0) collectElements(c, name, cls, out);
    }
  }
}

/** Elements named `name` (and with class `cls`, if given) in document order, like soup.find_all. */
export function findAll(root: SoupElement, name: string, cls?: string): SoupElement[] {
  const out: SoupElement[] = [];
  collectElements(root, name, cls, out);
  return out;
}

function collectText(el: SoupElement, parts: string[]): void {
  const children = el.children;
  for (let k = 0; k < children.length; k++) {
    const c = children[k];
    if ('name' in c) {
      if (c.children.length > 0) collectText(c, parts);
    } else if (!c.hidden) parts.push(c.text);
  }
}

/** Tag.get_text(): every visible descendant string, concatenated. */
export function getText(el: SoupElement): string {
  const parts: string[] = [];
  collectText(el, parts);
  return parts.join('');
}
