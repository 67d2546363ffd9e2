"""Runs HTML inputs through the real BeautifulSoup(html, "html.parser") and writes what it sees to
test/fixtures/html/bs4-differential.json, for test/util/bs4-html-parser.test.ts (which compares
src/util/bs4-html-parser.ts to it without Python).
Inputs: every page under test/fixtures/wikipedia/site, the cases of test/fixtures/wikipedia/bs4.json,
the WebShop stand-in's pages (npx tsx scripts/dump-webshop-pages.ts > /tmp/webshop-pages.json) and the
adversarial snippets below.
Run with Debian bookworm's interpreter, which has python3-bs4 4.11.2:
  /usr/bin/python3 scripts/gen_bs4_differential.py /tmp/webshop-pages.json"""
import glob, json, os, platform, sys
import bs4
from bs4 import BeautifulSoup, Comment, NavigableString, CData, Tag

SNIPPETS = [
    # unclosed and stray tags
    '<p>a<b>b<i>c</p>d', '<p>open at the end', '</p>stray</div><p>x</p></p>', '<div><p>a</div>b</p>',
    '<p>a<p>b</p>c</p>', '<ul><li>a<p>b<ul><li>c</ul>d</p></ul>', '<p>x</P><P>y</p>',
    # void elements and self-closing forms
    '<p>a<br>b<br/>c</p>d', '<p>a<br></br>b</p>', '<p>x</br>y</p>', '<p><img src=a>t</img>u</p>',
    '<div/>text<p/>more', '<p>a<br>b<br>c<br/>d<br/>e</p>', '<input><input/>x</input>y',
    # entities with and without ';'
    '<p>&amp; &amp &ampx &AMP; &lt;b&gt; &notit; &notin; &unknown; &unknown &Tab;x &nbsp;</p>',
    '<p>a & b &; &1; &-x; & </p>', '<p>fin &a', '<p>fin &am', '<p>fin &amp', '<p>x &', '&',
    # numeric references
    '<p>&#0;|&#x80;|&#128;|&#x81;|&#x8D;|&#159;|&#xD800;|&#xDFFF;|&#x110000;|&#99999999999999999999;|&#65|&#x41 |&#X42;|&#x0041;</p>',
    '<p>&#; &# &#x; &#xz; ok</p>', '<p>&#xyz <b>hi</b></p>', '<p>&#a; x &#b; <b>y</b></p>', '<p>&#12', '<p>tail &#',
    '<p>&#1234567;&#x10FFFF;&#xFFFE;&#127;&#9;&#13;</p>',
    # comments, including malformed ones
    '<p>a<!-- c -->b</p>', '<p>a<!-- c -- >b</p>', '<p>a<!--->b-->c</p>', '<p>a<!---->b</p>', '<p>a<!-- unterminated',
    '<p>a<!>b</p>', '<p>a<!x>b</p>', '<p>a</>b</p>', '<p>a</ p>b</p>', '<p>a</3>b</p>', '<p>a</p foo="bar">b', '<p>a<!-->b</p>',
    # declarations, CDATA, processing instructions
    '<!DOCTYPE html><p>a</p>', '<!doctype>x', '<!DOCTYPEhtml><p>a</p>', '<p><!DOCTYPE inside>b</p>', '<?xml version="1.0"?><p>a</p>',
    '<p>a<?php echo 1 ?>b</p>', '<p>a<![CDATA[ x < y & z ]]>b</p>', '<p>a<![cdata[lower]]>b</p>', '<p><![if IE]>x<![endif]>y</p>',
    '<p>a<![CDATA[unterminated', '<p>a<![foo[x]]>b</p>', '<p>a<![ x', '<template>t<![CDATA[c]]></template><p>z</p>',
    '<p>a<!ELEMENT x>b</p>',
    # raw text elements
    '<script>if (a</b) x = "</div>";</script><p>after</p>', '<p>a<script>unterminated <b>x</b>', '<style>a</style >b<p>c</p>',
    '<SCRIPT>a</script>b', '<script>a</SCRIPT >b', '<script>a</ script>b', '<style>a</styl>b</style>c', '<script>&amp; <!-- x --></script>y',
    '<script>a</\u017fcript>b</script>c', '<script>a</scr\u0130pt>b', '<script>a</scr\u0131pt>b</script>c', '<style>a</\u017ftyle>b', '<p>x<style>p{}</style>y<script>z</script>w</p>',
    # title and textarea parse tags in Python 3.11
    '<title><b>t</b> &amp; u</title><p>x</p>', '<p>a<textarea>\n <b>x</b> </textarea>b</p>', '<textarea>  </textarea><p>  </p>',
    # attributes
    '<div class=foo>a</div>', '<div class="a b" class="mw-search-result-heading">h</div>', '<div class=\'mw-search-result-heading x\'>s</div>',
    '<div CLASS="mw-search-result-heading">u</div>', '<a b=\'c\' d="e" f=g h>x</a>', '<a b=>x</a>', '<a =b>x</a>', '<a/b/c>x</a>',
    '<a b="x>y">z</a>', "<a b='>'>z</a>", '<div class="a&amp;b &notit; &#x80; &#0;">x</div>', '<div class="\u00a0a\u2003b\u200bc">x</div>',
    '<div class="">e</div><div class>f</div>', '<div class = "p q"  >g</div>', '<div class="a"/>x', '<a b="c"d>x</a>', '<a b="unterminated>x</a>',
    '<div class=foo', '<a href="x', '<div\n  class="z"\n>n</div>', '<p id=a/>x', '<a b=c/>x', '<p \x00>y</p>',
    # tag-open edge cases
    '< p>x', '<3 is love', 'trailing <', '<p>a <b>< /b> c</p>', '<p>x<\u00e9>y</p>', '<P CLASS="X">up</P>', '<x:y>ns</x:y>',
    '<p>a<\u0130>b</\u0130>c</p>', '<p>a<\u212aelvin>b</p>', '<p>a<b\u00a0c>d</p>', '<p>a</b\u00a0c>d</p>',
    # whitespace
    '<p>   </p><p>\n\t </p><p> \r\n </p>', '<p>\u00a0</p><p>\u3000 </p>', '<pre>  \n  </pre><p> </p>', '<pre><b>  </b></pre>',
    '<ul>\n<li>a</li>\n<li>b</li>\n</ul>', 'a\r\nb<p>c\rd</p>', '<p>\x00nul\x00</p>',
    # ruby and template string containers
    '<p>a<ruby>k<rt>kan</rt><rp>(</rp></ruby>b</p>', '<template>t<b>u</b></template><p>v</p>', '<p><rt><b>x</b></rt>y</p>',
    # nesting inside p
    '<p>a<ul><li>b</li></ul>c</p>', '<p><p><p>deep</p></p></p>', '<div class="mw-search-result-heading"><a>A</a> <span>(x)</span></div>',
]

def tree(el):
    out = [el.name, el.get('class', []) if isinstance(el.get('class', []), list) else [el['class']]]
    for c in el.contents:
        if isinstance(c, Tag):
            out.append(tree(c))
        elif isinstance(c, Comment):
            continue
        elif type(c) in (NavigableString, CData):
            out.append(str(c))
        else:
            out.append({'hidden': str(c)})
    return out

def tag_visible(element):
    ignore = {'style', 'script', 'head', 'title', 'meta', '[document]'}
    return element.parent.name not in ignore and not isinstance(element, Comment)

def answers(html):
    try:
        soup = BeautifulSoup(html, 'html.parser')
    except AssertionError as e:
        return {'error': str(e)}
    return {
        'text': soup.get_text(),
        'blocks': [p.get_text() for p in soup.find_all('p')] + [u.get_text() for u in soup.find_all('ul')],
        'headings': [d.get_text() for d in soup.find_all('div', {'class': 'mw-search-result-heading'})],
        'visible': [[t.parent.name, str(t)] for t in soup.findAll(text=True) if tag_visible(t)],
        'tree': tree(soup),
    }

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    inputs = []
    for f in sorted(glob.glob(os.path.join(root, 'test/fixtures/wikipedia/site/*.html'))):
        inputs.append(('wikipedia/site/' + os.path.basename(f), open(f, encoding='utf-8').read()))
    for k, c in enumerate(json.load(open(os.path.join(root, 'test/fixtures/wikipedia/bs4.json')))['cases']):
        inputs.append((f'wikipedia/bs4.json#{k}', c['html']))
    for k, page in enumerate(json.load(open(sys.argv[1]))):
        inputs.append((f'webshop-site#{k}', page))
    for k, s in enumerate(SNIPPETS):
        inputs.append((f'snippet#{k}', s))
    cases = [{'source': src, 'html': html, **answers(html)} for src, html in inputs]
    out = {
        'provenance': f'bs4 {bs4.__version__}, Python {platform.python_version()} html.parser, Debian bookworm (/usr/bin/python3); '
                      'generated by scripts/gen_bs4_differential.py',
        'cases': cases,
    }
    with open(os.path.join(root, 'test/fixtures/html/bs4-differential.json'), 'w', encoding='utf-8') as f:
        # ASCII escapes: a lone surrogate (&#xD800;) is valid JSON that way. One case a line.
        f.write('{"provenance": ' + json.dumps(out['provenance']) + ',\n"cases": [\n')
        f.write(',\n'.join(json.dumps(c, separators=(',', ':')) for c in cases))
        f.write('\n]}\n')
    print(len(cases), 'cases,', sum(1 for c in cases if 'error' in c), 'rejected by html.parser')

main()
