// Our BeautifulSoup(html, "html.parser") against the real one: test/fixtures/html/bs4-differential.json
// holds bs4 4.11.2's answers (Python 3.11.2's html.parser) for the Wikipedia and WebShop stand-ins'
// pages and for malformed snippets (scripts/gen_bs4_differential.py regenerates it).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findAll, getText, HtmlParserAssertion, parseSoup, type SoupElement } from '../../src/util/bs4-html-parser.js';
import { entityCharacters, pyUnescape } from '../../src/util/py-html-parser.js';
import { HTML5_ENTITIES_JSON } from '../../src/util/html-entities.js';
import { visibleTexts } from '../../src/benchmarks/webshop/page-text.js';
import { EnvironmentFailure } from '../../src/errors.js';

interface Case {
  source: string;
  html: string;
  error?: string;
  text?: string;
  blocks?: string[];
  headings?: string[];
  visible?: [string, string][];
  tree?: unknown[];
}
const fixture = JSON.parse(readFileSync(path.join(__dirname, '../fixtures/html/bs4-differential.json'), 'utf8')) as {
  provenance: string;
  cases: Case[];
};

type Tree = [string, string[], ...(string | { hidden: string } | Tree)[]];
function tree(el: SoupElement): Tree {
  const out: Tree = [el.name, el.classes];
  for (const c of el.children) out.push('name' in c ? tree(c) : c.hidden ? { hidden: c.text } : c.text);
  return out;
}

describe('BeautifulSoup html.parser port (bs4 4.11.2 differential fixture)', () => {
  const { cases } = fixture;
  it('covers the stand-ins’ pages and the malformed snippets', () => {
    expect(fixture.provenance).toMatch(/^bs4 4\.11\.2, Python 3\.11\.2 html\.parser/);
    expect(cases.filter((c) => c.source.startsWith('wikipedia/site/')).length).toBeGreaterThanOrEqual(11);
    expect(cases.filter((c) => c.source.startsWith('webshop-site#')).length).toBeGreaterThanOrEqual(10);
    expect(cases.filter((c) => c.source.startsWith('snippet#')).length).toBeGreaterThan(100);
  });
  for (const c of cases) {
    it(`${c.source} ${JSON.stringify(c.html.slice(0, 50))}`, () => {
      if (c.error !== undefined) {
        expect(() => parseSoup(c.html)).toThrow(HtmlParserAssertion);
        expect(() => parseSoup(c.html)).toThrow(c.error);
        return;
      }
      const soup = parseSoup(c.html);
      expect(tree(soup)).toEqual(c.tree);
      expect(getText(soup)).toBe(c.text);
      expect([...findAll(soup, 'p'), ...findAll(soup, 'ul')].map(getText)).toEqual(c.blocks);
      expect(findAll(soup, 'div', 'mw-search-result-heading').map(getText)).toEqual(c.headings);
      expect(visibleTexts(c.html).map((v) => [v.parent.name, v.text])).toEqual(c.visible);
    });
  }
  it('markup html.parser rejects is an environment failure, never an observation', () => {
    expect(() => parseSoup('<p>a<![foo[x]]>b</p>')).toThrow(EnvironmentFailure);
  });
});

describe('entity names', () => {
  it('finds every HTML5 name of the table, and no other', () => {
    const table = JSON.parse(HTML5_ENTITIES_JSON) as Record<string, string>;
    expect(Object.keys(table).length).toBe(2125);
    const bad = Object.entries(table).filter(([k, v]) => entityCharacters(k) !== v);
    expect(bad.slice(0, 5)).toEqual([]);
    expect(entityCharacters('bsol')).toBe('\\');
    expect(entityCharacters('QUOT')).toBe('"');
    for (const k of ['ampx', 'Amp', 'lt;', '', 'nl', 'unknown']) expect(entityCharacters(k)).toBeUndefined();
  });
});

describe('html.unescape (attribute values)', () => {
  it('decodes as Python 3.11 does', () => {
    // Expected values from CPython 3.11: html.unescape(...)
    expect(pyUnescape('&amp;&amp&ampx&notit;&notin;&unknown;&#0;&#x80;&#xD800;&#x110000;&#1;&#65')).toBe(
      '&&&x¬it;∉&unknown;\ufffd€\ufffd\ufffdA',
    );
    expect(pyUnescape('no refs')).toBe('no refs');
  });
});
