// CPython-generated expectations (scripts/gen_wiki_fixtures.py) for the pure helpers of §6.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pyListRepr } from '../../../src/util/python-repr.js';
import { cleanStr } from '../../../src/util/python-clean-str.js';
import { pyLower, pyStrip } from '../../../src/util/python-str.js';
import { outcomeFromHtml } from '../../../src/envs/wikipedia/soup-outcome.js';
import { lookupList } from '../../../src/envs/wikipedia/page-text.js';
import { findAll, getText, parseSoup } from '../../../src/util/bs4-html-parser.js';

const fx = (name: string) => JSON.parse(readFileSync(path.join(__dirname, '../../fixtures/wikipedia', name), 'utf8'));

describe('Python list repr (CPython fixtures)', () => {
  const cases: { list: string[]; repr: string }[] = fx('repr.json');
  it(`matches repr() on ${cases.length} title lists`, () => {
    expect(cases.length).toBeGreaterThan(400);
    const bad = cases.filter((c) => pyListRepr(c.list) !== c.repr);
    expect(bad.slice(0, 5).map((c) => ({ list: c.list, want: c.repr, got: pyListRepr(c.list) }))).toEqual([]);
  });
  it('quotes like Python', () => {
    expect(pyListRepr(["Arthur's Magazine", 'say "hi"', `both ' "`, 'a\\b', '\u00a0\u200b\n'])).toBe(
      `["Arthur's Magazine", 'say "hi"', 'both \\' "', 'a\\\\b', '\\xa0\\u200b\\n']`,
    );
  });
});

describe('clean_str (CPython fixtures)', () => {
  const cases: { in: string; out?: string; error?: string }[] = fx('clean_str.json');
  it(`matches clean_str on ${cases.length} strings, including the ones Python raises on`, () => {
    expect(cases.filter((c) => c.error).length).toBeGreaterThan(50);
    expect(cases.filter((c) => !c.error && c.out !== c.in).length).toBeGreaterThan(50);
    const bad = cases.filter((c) => {
      const r = cleanStr(c.in);
      // The error class is only checked without \N{...}: for a name that is not a Latin-1 character the
      // suite cannot tell an unknown name (decode error) from a valid one above U+00FF (latin1 error).
      if (c.error) return r.ok || (!c.in.includes('\\N{') && r.error !== c.error);
      return !r.ok || r.value !== c.out;
    });
    expect(bad.slice(0, 5).map((c) => ({ ...c, got: cleanStr(c.in) }))).toEqual([]);
  });
});

describe('str.lower and str.strip', () => {
  it('lower() agrees with CPython on every code point: the ones it changes and the ones it leaves', () => {
    const pairs: [number, string][] = fx('lower.json');
    const want = new Map(pairs);
    expect(want.size).toBeGreaterThan(1400);
    const bad: [number, string, string][] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const c = String.fromCodePoint(cp);
      const got = pyLower(c);
      const exp = want.get(cp) ?? c; // lower.json lists exactly the code points CPython 3.11 changes
      if (got !== exp) bad.push([cp, exp, got]);
    }
    // E.g. U+10D50 (Garay, Unicode 16): newer JS engines lower it, CPython 3.11 leaves it.
    expect(bad.slice(0, 10)).toEqual([]);
    expect(pyLower('\u{10D50}\uA7CB')).toBe('\u{10D50}\uA7CB');
  });
  it('lookup matches case-insensitively as CPython 3.11 lowers (not as the JS engine does)', () => {
    const page = 'The letter \u{10D50}x is new. Another sentence here.\n';
    // CPython 3.11: '\U00010d50x'.lower() keeps U+10D50, so the lower-case keyword does not match.
    expect(lookupList(page, '\u{10D70}x')).toEqual([]);
    expect(lookupList(page, '\u{10D50}X')).toEqual(['The letter \u{10D50}x is new.']);
  });
  it('strip() removes Python whitespace only', () => {
    expect(pyStrip('\x1c\x85\u00a0\u3000 a \u2003')).toBe('a');
    expect(pyStrip('\ufeffa\u200b')).toBe('\ufeffa\u200b');
  });
});

describe('BeautifulSoup(html.parser) tree rules (bs4 4.11 fixtures)', () => {
  const { cases } = fx('bs4.json') as { cases: { html: string; blocks: string[]; headings: string[] }[] };
  for (const c of cases) {
    it(JSON.stringify(c.html.slice(0, 60)), () => {
      const soup = parseSoup(c.html);
      const blocks = [...findAll(soup, 'p'), ...findAll(soup, 'ul')].map((e) => pyStrip(getText(e)));
      expect(blocks).toEqual(c.blocks);
      expect(findAll(soup, 'div', 'mw-search-result-heading').map((e) => pyStrip(getText(e)))).toEqual(c.headings);
    });
  }
  it('a results page gives the headings, an article the p-then-ul blocks', () => {
    expect(outcomeFromHtml('<div class="mw-search-result-heading"> A </div><p>x y z</p>')).toEqual({ kind: 'similar', titles: ['A'] });
    expect(outcomeFromHtml('<ul><li>u</li></ul><p>p</p>')).toEqual({ kind: 'page', blocks: ['p', 'u'] });
  });
});
