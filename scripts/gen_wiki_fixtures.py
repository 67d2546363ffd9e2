#!/usr/bin/env python3
"""Generate the Wikipedia environment's expectations with CPython (docs/protocol.md §6).

Run from the repository root:  python3 scripts/gen_wiki_fixtures.py
Needs CPython 3.11, requests and BeautifulSoup 4.11 (Debian: python3-requests python3-bs4; with a
separate interpreter: PYTHONPATH=/usr/lib/python3/dist-packages python3 scripts/gen_wiki_fixtures.py).
Tests never run Python: they read what this script writes.

Writes
  src/util/python-unicode-data.ts         the str.isprintable table and the Latin-1
                                          character names of CPython's unicodedata (for \\N{...})
  test/fixtures/wikipedia/repr.json       Python list repr of tricky title lists
  test/fixtures/wikipedia/clean_str.json  clean_str of tricky strings, incl. the raising cases
  test/fixtures/wikipedia/lower.json      str.lower() of every code point it changes
  test/fixtures/wikipedia/urls.json       the URL requests.get sends for a search[...] entity
  test/fixtures/wikipedia/bs4.json        what BeautifulSoup(html.parser) sees in HTML snippets
  test/fixtures/wikipedia/episodes.json   observations of the released env logic on the test site
  test/fixtures/wikipedia/shipped_snapshot.json  the same on pages of the shipped 2017 snapshot
  test/fixtures/wikipedia/dumps/          tiny dumps in the three formats `wiki build` reads

The env logic below is a restatement of the released wikienv.py behaviour (docs/protocol.md §6),
run against the same test site that test/servers/wiki-server.ts serves.
"""
import json
import os
import warnings
import random
import sys
import unicodedata
import urllib.parse

import bs4
import requests
from bs4 import BeautifulSoup

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(ROOT, "test", "fixtures", "wikipedia")
SITE = os.path.join(FIX, "site")


def js_safe(s):
    """False when a lone high surrogate is followed by a lone low one: JSON carries them to JavaScript
    as one valid pair (one astral character), a string Python can hold but a JS string cannot."""
    return not any(0xD800 <= ord(a) <= 0xDBFF and 0xDC00 <= ord(b) <= 0xDFFF for a, b in zip(s, s[1:]))


def dump(name, obj):
    with open(os.path.join(FIX, name), "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=True, indent=0)
        f.write("\n")


# ---------------------------------------------------------------- unicode tables
def ranges(pred):
    out, start = [], None
    for cp in range(0x110000):
        if pred(cp):
            if start is None:
                start = cp
        elif start is not None:
            out.append((start, cp - 1))
            start = None
    if start is not None:
        out.append((start, 0x10FFFF))
    return out


def latin1_names():
    names = {}
    for cp in range(256):
        n = unicodedata.name(chr(cp), None)
        if n:
            names[n] = cp
    # Name aliases (NameAliases.txt) that resolve to U+0000..U+00FF; each is verified below with
    # unicodedata.lookup, which is what the unicode-escape codec's \N{...} uses.
    aliases = """NULL NUL START OF HEADING SOH START OF TEXT STX END OF TEXT ETX END OF TRANSMISSION EOT
    ENQUIRY ENQ ACKNOWLEDGE ACK ALERT BEL BACKSPACE BS CHARACTER TABULATION HORIZONTAL TABULATION HT TAB
    LINE FEED NEW LINE END OF LINE LF NL EOL LINE TABULATION VERTICAL TABULATION VT FORM FEED FF
    CARRIAGE RETURN CR SHIFT OUT LOCKING-SHIFT ONE SO SHIFT IN LOCKING-SHIFT ZERO SI DATA LINK ESCAPE DLE
    DEVICE CONTROL ONE DC1 DEVICE CONTROL TWO DC2 DEVICE CONTROL THREE DC3 DEVICE CONTROL FOUR DC4
    NEGATIVE ACKNOWLEDGE NAK SYNCHRONOUS IDLE SYN END OF TRANSMISSION BLOCK ETB CANCEL CAN END OF MEDIUM EOM
    SUBSTITUTE SUB ESCAPE ESC INFORMATION SEPARATOR FOUR FILE SEPARATOR FS INFORMATION SEPARATOR THREE
    GROUP SEPARATOR GS INFORMATION SEPARATOR TWO RECORD SEPARATOR RS INFORMATION SEPARATOR ONE UNIT SEPARATOR US
    SP DELETE DEL PADDING CHARACTER PAD HIGH OCTET PRESET HOP BREAK PERMITTED HERE BPH NO BREAK HERE NBH
    INDEX IND NEXT LINE NEL START OF SELECTED AREA SSA END OF SELECTED AREA ESA CHARACTER TABULATION SET HTS
    CHARACTER TABULATION WITH JUSTIFICATION HTJ LINE TABULATION SET VTS PARTIAL LINE FORWARD PARTIAL LINE DOWN PLD
    PARTIAL LINE BACKWARD PARTIAL LINE UP PLU REVERSE LINE FEED REVERSE INDEX RI SINGLE SHIFT TWO SINGLE-SHIFT-2 SS2
    SINGLE SHIFT THREE SINGLE-SHIFT-3 SS3 DEVICE CONTROL STRING DCS PRIVATE USE ONE PRIVATE USE-1 PU1
    PRIVATE USE TWO PRIVATE USE-2 PU2 SET TRANSMIT STATE STS CANCEL CHARACTER CCH MESSAGE WAITING MW
    START OF GUARDED AREA START OF PROTECTED AREA SPA END OF GUARDED AREA END OF PROTECTED AREA EPA
    START OF STRING SOS SINGLE GRAPHIC CHARACTER INTRODUCER SGC SINGLE CHARACTER INTRODUCER SCI
    CONTROL SEQUENCE INTRODUCER CSI STRING TERMINATOR ST OPERATING SYSTEM COMMAND OSC PRIVACY MESSAGE PM
    APPLICATION PROGRAM COMMAND APC NBSP SHY"""
    words = aliases.split()
    # try every run of 1..6 consecutive words as a candidate alias
    for i in range(len(words)):
        for j in range(i + 1, min(i + 7, len(words) + 1)):
            cand = " ".join(words[i:j])
            if cand in names:
                continue
            try:
                c = unicodedata.lookup(cand)
            except KeyError:
                continue
            if len(c) == 1 and ord(c) < 256:
                names[cand] = ord(c)
    return names


def write_unicode_ts():
    nonprint = ranges(lambda cp: not chr(cp).isprintable())
    names = latin1_names()
    flat = ",".join(f"{a},{b}" for a, b in nonprint)
    lines = [
        "// GENERATED by scripts/gen_wiki_fixtures.py from CPython "
        + sys.version.split()[0]
        + f" (Unicode {unicodedata.unidata_version}). Do not edit.",
        "// §6: Python's str.isprintable() decides which characters repr() escapes (isspace() and lower()",
        "// are in src/util/python-unicode-tables.ts); \\N{name} in clean_str only matters for",
        "// U+0000..U+00FF (anything above fails the latin1 step), so only those names are kept.",
        f"export const PY_UNICODE_VERSION = '{unicodedata.unidata_version}';",
        "/** Inclusive [start, end] pairs, flattened and sorted: code points whose isprintable() is False. */",
        f"export const NONPRINTABLE_RANGES: readonly number[] = [{flat}];",
        "/** Character names and aliases (upper case) of U+0000..U+00FF as unicodedata.lookup knows them. */",
        "export const LATIN1_NAMES: Readonly<Record<string, number>> = "
        + json.dumps(dict(sorted(names.items())), indent=0)
        + ";",
        "",
    ]
    with open(os.path.join(ROOT, "src", "util", "python-unicode-data.ts"), "w") as f:
        f.write("\n".join(lines))


# ---------------------------------------------------------------- clean_str (released code)
def clean_str(p):
    return p.encode().decode("unicode-escape").encode("latin1").decode("utf-8")


def clean_str_keep(s):
    try:
        return clean_str(s)
    except (UnicodeDecodeError, UnicodeEncodeError):
        return s


def clean_str_result(s):
    try:
        return {"in": s, "out": clean_str(s)}
    except Exception as e:  # noqa: BLE001 - we record which inputs raise
        return {"in": s, "error": type(e).__name__}


# ---------------------------------------------------------------- pools of tricky characters
TRICKY = [
    "a", "Z", " ", "'", '"', "\\", "\n", "\r", "\t", "\x00", "\x07", "\x1b", "\x1f", "\x7f", "\x80",
    "\x85", "\x9f", "\xa0", "\xad", "\xe9", "\xff", "\u0100", "\u0301", "\u0378", "\u200b", "\u200e",
    "\u2028", "\u2029", "\u3000", "\u1680", "\ufeff", "\ufffd", "\uffff", "\ue000", "\ud800", "\udfff",
    "\u6771", "\U0001F600", "\U0001F6DC", "\U00031350", "\U000E0001", "\U000E0080", "\U0010FFFF",
    "\U0001D11E", "\u00e9", "&", "#", "+", "?", "%", "(", ")", "[", "]", ",",
]
CLEAN_PIECES = [
    "\\n", "\\t", "\\\\", "\\'", '\\"', "\\a", "\\b", "\\f", "\\v", "\\r", "\\0", "\\12", "\\101",
    "\\777", "\\400", "\\x41", "\\x4", "\\xZZ", "\\x", "\\xc3\\xa9", "\\xe9", "\\u00e9", "\\u00c3\\u00a9",
    "\\u12", "\\U0001F600", "\\U00110000", "\\U00000041", "\\N{LATIN SMALL LETTER A}", "\\N{nbsp}",
    "\\N{NO-BREAK SPACE}", "\\N{LINE FEED}", "\\N{latin capital letter a with tilde}\\N{COPYRIGHT SIGN}",
    "\\N{SNOWMAN}", "\\N{NOT A NAME}", "\\N", "\\N{", "\\N{}", "\\q", "\\8", "\\\n", "\\", "é", "€", "東",
    "\U0001F600", " ", "plain", "C:\\Geology", "\\\\n", "\xa0", "\x80", "\\x80",
]


def main():
    warnings.simplefilter("ignore", DeprecationWarning)  # unicode-escape warns on \q, \777 (still decodes)
    random.seed(20230201)
    write_unicode_ts()

    # repr of title lists (the "Similar: [...]" observation uses str(list))
    cases = [[], [""], ["a"], ["Arthur's Magazine"], ['He said "hi"'], ["both ' and \""], ["back\\slash"],
             ["x\ny"], ["\xa0"], ["\u200b"], ["\ud800"], ["\U0001F600"], ["\U00031350"], ["\u0378"],
             ["\x00\x7f\x80\x9f\xad"], ["'", '"', "'\"", "\\'"]]
    for _ in range(400):
        n = random.randint(0, 6)
        lst = []
        for _ in range(n):
            k = random.randint(0, 8)
            lst.append("".join(random.choice(TRICKY) for _ in range(k)))
        cases.append(lst)
    for _ in range(100):  # random code points anywhere in the range
        lst = ["".join(chr(random.randint(0, 0x10FFFF)) for _ in range(random.randint(1, 4)))
               for _ in range(random.randint(1, 3))]
        cases.append(lst)
    dump("repr.json", [{"list": c, "repr": repr(c)} for c in cases if all(map(js_safe, c))])

    # clean_str
    cs = [clean_str_result(p) for p in CLEAN_PIECES]
    cs += [clean_str_result("x" + a + b + "y") for a in CLEAN_PIECES[:30] for b in CLEAN_PIECES[25:]]
    for _ in range(300):
        s = "".join(random.choice(CLEAN_PIECES + TRICKY) for _ in range(random.randint(1, 6)))
        cs.append(clean_str_result(s))
    dump("clean_str.json", [c for c in cs if js_safe(c["in"])])

    # str.lower
    dump("lower.json", [[cp, chr(cp).lower()] for cp in range(0x110000)
                        if not 0xD800 <= cp <= 0xDFFF and chr(cp).lower() != chr(cp)])

    # the URL requests sends for search[entity] (spaces become +, then requests quotes it)
    entities = ["Colorado orogeny", "AT&T", "C++", "1984", "Who's Afraid of Virginia Woolf?", "#",
                "High Plains", "[High Plains]", "100% pure", "50%25 off", "a%zz", "Café", "東京",
                "a\"b<c>d`e{f}g|h\\i^j", "x#y#z", "tab\there", "new\nline", "semi;colon:at@slash/",
                "tilde~dash-under_score.dot", "emoji \U0001F600", "q?r=s&search=other", "%41%2B", "",
                "  spaced  ", "[", "]", "a]b", "100%", "%E9", "%C3%A9", "!$'()*,"]
    base = "https://en.wikipedia.org"
    urls = []
    for e in entities:
        raw = f"{base}/w/index.php?search={e.replace(' ', '+')}"
        prep = requests.Request("GET", raw).prepare()
        urls.append({"entity": e, "url": prep.url, "path_url": prep.path_url})
    dump("urls.json", {"requests": requests.__version__, "base": base, "cases": urls})

    # BeautifulSoup(html.parser) on snippets: p blocks then ul blocks, and heading texts
    snippets = [
        "<p>a<ul><li>x</li></ul>b</p><p>c</p>",
        "<p>one<p>two</p>three</p>",
        "<p>x</p></p><p>y",
        "<p>keep<style>.a{b:c}</style>this<script>var s='<p>no</p>';</script> text</p>",
        "<p>a<!-- c -->b<![CDATA[cd]]>e</p>",
        "<p>&#160;&amp;&lt;&gt;&quot;&#39;&#x41;&nbsp;&eacute;&copy;&mdash;&#150;&#129;&unknown;&amp x</p>",
        "<ul>\n  <li>a</li>\n  <li>b</li>\n</ul>",
        "<ul><li>a b</li>   <li> c </li></ul>",
        "<pre>\n   </pre><p>   </p><p>\n\t\n</p><p>x <b> </b> y</p>",
        "<P>Upper</P><UL><LI>case</LI></UL>",
        "<p>br<br>inside<br/>p</p><p>img<img src=x>after</p>",
        "<div/><p>self closing div</p><span/>tail",
        "<template><p>t</p></template><p>after template</p>",
        "<p>a<textarea>\n <b>x</b> </textarea>b</p>",
        "<div class=\"mw-search-result-heading\"><a>T1</a> <span>(redirect from X)</span></div>"
        "<div class=\"foo mw-search-result-heading\">T2</div><div class=\"mw-search-result-headingx\">no</div>",
        "<p>unclosed <b>bold <i>ital</p> after",
        "<p>x</b>y</p>",
        "<ul><li>a<ul><li>b</li></ul></li></ul><ol><li>ol</li></ol>",
        "<p>\u00a0 nbsp stripped? \u00a0</p><p>\u2003em\u2003</p><p>\x1cfs\x1c</p>",
        "<p>tab\tand\\n backslash</p>",
        "<table><tr><td><p>in table</p></td></tr></table>",
        "<p>a</P ><p>b</p >",
    ]
    out = []
    for h in snippets:
        soup = BeautifulSoup(h, features="html.parser")
        blocks = [p.get_text().strip() for p in soup.find_all("p") + soup.find_all("ul")]
        heads = [d.get_text().strip() for d in soup.find_all("div", {"class": "mw-search-result-heading"})]
        out.append({"html": h, "blocks": blocks, "headings": heads})
    dump("bs4.json", {"bs4": bs4.__version__, "cases": out})

    write_episodes()
    write_dumps()
    write_shipped_expectations()


def write_shipped_expectations():
    """Observations of the released logic on pages of the shipped 2017 snapshot (exact-title hits)."""
    import html as htmllib
    pages = {}
    with open(os.path.join(ROOT, "envs", "wikipedia", "hotpotqa-2017", "pages.jsonl"), encoding="utf-8") as f:
        for line in f:
            o = json.loads(line)
            pages.setdefault(htmllib.unescape(o["title"]), "".join(o["sentences"]).strip())

    out = []
    for actions in [["search[Pavel Urysohn]", "lookup[Lemma]", "lookup[topology]", "lookup[Moscow]"],
                    ["search[Leonid Levin]", "lookup[Kolmogorov]", "lookup[computer]", "lookup[computer]"],
                    ['search["Q" Is for Quarry]', "lookup[Grafton]"]]:
        env = PaperEnv(lambda e: None)
        env.reset()
        steps = []
        for a in actions:
            if a.startswith("search["):
                title = a[len("search["):-1]
                block = pages[title]
                env.page = ""
                if len(block.split(" ")) > 2:
                    env.page = clean_str_keep(block) + "\n"
                env.obs = " ".join(env.sentences(env.page)[:5])
                env.lookup_keyword = env.lookup_list = env.cnt = None
                env.steps += 1
                steps.append({"action": a, "obs": env.obs})
            else:
                obs, _, _, _ = env.step(a)
                steps.append({"action": a, "obs": obs})
        out.append(steps)
    dump("shipped_snapshot.json", out)


def write_dumps():
    """Small dumps in the three formats `react-repro wiki build` reads."""
    import bz2
    d = os.path.join(FIX, "dumps")
    os.makedirs(os.path.join(d, "abstracts", "AA"), exist_ok=True)
    os.makedirs(os.path.join(d, "fever"), exist_ok=True)
    abstracts = [
        {"id": "1", "url": "https://en.wikipedia.org/wiki?curid=1", "title": "Colorado orogeny",
         "text": [["The <a href=\"Colorado%20orogeny\">Colorado orogeny</a> was an episode of mountain building "
                   "(an <a href=\"orogeny\">orogeny</a>) in Colorado and surrounding areas."],
                  ["This took place from 1780 to 1650 million years ago.", " The eastern sector extends into the High Plains."]]},
        {"id": "2", "url": "https://en.wikipedia.org/wiki?curid=2", "title": "High Plains (United States)",
         "text": [["The High Plains are a subregion of the Great Plains.", " They rise from 1,800 to 7,000 ft."]]},
    ]
    with bz2.open(os.path.join(d, "abstracts", "AA", "wiki_00.bz2"), "wt", encoding="utf-8") as f:
        for a in abstracts:
            f.write(json.dumps(a) + "\n")
    with bz2.open(os.path.join(d, "abstracts", "AA", "wiki_01.bz2"), "wt", encoding="utf-8") as f:
        f.write(json.dumps({"id": "3", "title": "AT&amp;T", "text": [["AT&T Inc. is an American telecommunications company."]]}) + "\n")
    fever = [
        {"id": "", "text": "", "lines": ""},
        {"id": "Nikolaj_Coster-Waldau", "text": "Nikolaj William Coster-Waldau -LRB- born 27 July 1970 -RRB- is a Danish actor and producer .",
         "lines": "0\tNikolaj William Coster-Waldau -LRB- born 27 July 1970 -RRB- is a Danish actor and producer ."},
        {"id": "Beautiful_-LRB-Christina_Aguilera_song-RRB-", "text": "`` Beautiful '' is a song recorded by American singer Christina Aguilera .",
         "lines": "0\t`` Beautiful '' is a song recorded by American singer Christina Aguilera ."},
    ]
    with open(os.path.join(d, "fever", "wiki-001.jsonl"), "w", encoding="utf-8") as f:
        for x in fever:
            f.write(json.dumps(x) + "\n")
    with open(os.path.join(d, "bad.jsonl"), "w", encoding="utf-8") as f:
        f.write(json.dumps({"title": "Fine", "sentences": ["A fine page."]}) + "\n")
        f.write('{"title": "Broken", "sentences": [\n')


# ---------------------------------------------------------------- the test site (mirrors wiki-server.ts)
def load_site():
    with open(os.path.join(SITE, "site.json"), encoding="utf-8") as f:
        site = json.load(f)
    read = lambda n: open(os.path.join(SITE, n), encoding="utf-8").read()  # noqa: E731
    return site, read


TOKEN_PUNCT = "[](){}\"'.,?!#&+"


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def ucfirst(s):
    return s[:1].upper() + s[1:]


def site_response(site, read, query_string):
    """The HTML the test server answers for /w/index.php?<query_string>."""
    vals = [v for k, v in urllib.parse.parse_qsl(query_string, keep_blank_values=True) if k == "search"]
    term = (vals[-1] if vals else "").strip(" \t\n\r")
    if term:
        t = ucfirst(term.replace("_", " "))
        for cand in (t, ucfirst(term.lower())):
            cand = site["redirects"].get(cand, cand)
            if cand in site["articles"]:
                return read("skin.html").replace("{{TITLE}}", esc(cand)).replace(
                    "{{CONTENT}}", read(site["articles"][cand]))
    if not term:
        results = "<p>Enter a search term to find pages on this wiki.</p>"
    else:
        toks = [t.strip(TOKEN_PUNCT) for t in term.lower().split(" ")]
        toks = [t for t in toks if t]
        hits = [e for e in site["index"] if any(t in e["title"].lower() for t in toks)][:20]
        if not hits:
            results = '<p class="mw-search-nonefound">There were no results matching the query.</p>'
        else:
            items = []
            for e in hits:
                title = e["title"]
                red = ""
                if e.get("redirect_from"):
                    rf = e["redirect_from"]
                    red = (f'  <span class="searchalttitle">(redirect from <a href="/wiki/{esc(rf.replace(" ", "_"))}"'
                           f' title="{esc(rf)}">{esc(rf)}</a>)</span>')
                items.append(f'<li class="mw-search-result"><div class="mw-search-result-heading">'
                             f'<a href="/wiki/{esc(title.replace(" ", "_"))}" title="{esc(title)}">{esc(title)}</a>{red}'
                             f'</div><div class="searchresult">Text about {esc(title)}.</div></li>')
            results = '<ul class="mw-search-results">\n' + "\n".join(items) + "\n</ul>"
    return read("search.html").replace("{{QUERY}}", esc(term)).replace("{{RESULTS}}", results)


class PaperEnv:
    """The released env's observable behaviour, restated (see the module docstring)."""

    def __init__(self, fetch, strict=True):
        self.fetch = fetch
        # strict: clean_str raises as in the released code; otherwise a failing block or title is kept
        # as it was (the suite's default, see src/util/python-clean-str.ts)
        self.clean = clean_str if strict else clean_str_keep
        self.reset()

    def reset(self):
        self.obs = "Interact with Wikipedia using search[], lookup[], and finish[].\n"
        self.page = None
        self.lookup_keyword = self.lookup_list = self.cnt = None
        self.steps = 0
        self.answer = None
        return self.obs

    @staticmethod
    def sentences(page):
        paras = [p.strip() for p in page.split("\n") if p.strip()]
        sents = []
        for p in paras:
            sents += p.split(". ")
        return [s.strip() + "." for s in sents if s.strip()]

    def search_step(self, entity):
        html = self.fetch(entity)
        soup = BeautifulSoup(html, features="html.parser")
        divs = soup.find_all("div", {"class": "mw-search-result-heading"})
        if divs:
            self.result_titles = [self.clean(d.get_text().strip()) for d in divs]
            self.obs = f"Could not find {entity}. Similar: {self.result_titles[:5]}."
        else:
            blocks = [p.get_text().strip() for p in soup.find_all("p") + soup.find_all("ul")]
            if any("may refer to:" in b for b in blocks):
                self.search_step("[" + entity + "]")
            else:
                self.page = ""
                for b in blocks:
                    if len(b.split(" ")) > 2:
                        self.page += self.clean(b)
                        if not b.endswith("\n"):
                            self.page += "\n"
                self.obs = " ".join(self.sentences(self.page)[:5])
                self.lookup_keyword = self.lookup_list = self.cnt = None

    def step(self, action):
        action = action.strip()
        if self.answer is not None:
            return self.obs, 0, True, {"steps": self.steps, "answer": self.answer}
        done = False
        if action.startswith("search[") and action.endswith("]"):
            self.search_step(action[len("search["):-1])
        elif action.startswith("lookup[") and action.endswith("]"):
            kw = action[len("lookup["):-1]
            if self.lookup_keyword != kw:
                self.lookup_keyword = kw
                self.lookup_list = ([] if self.page is None else
                                    [s for s in self.sentences(self.page) if kw.lower() in s.lower()])
                self.cnt = 0
            if self.cnt >= len(self.lookup_list):
                self.obs = "No more results.\n"
            else:
                self.obs = f"(Result {self.cnt + 1} / {len(self.lookup_list)}) " + self.lookup_list[self.cnt]
                self.cnt += 1
        elif action.startswith("finish[") and action.endswith("]"):
            self.answer = action[len("finish["):-1]
            done = True
            self.obs = "Episode finished, reward = 0\n"
        elif action.startswith("think[") and action.endswith("]"):
            self.obs = "Nice thought."
        else:
            self.obs = "Invalid action: {}".format(action)
        self.steps += 1
        return self.obs, 0, done, {"steps": self.steps, "answer": self.answer}


EPISODES = [
    ["search[Colorado orogeny]", "lookup[eastern sector]", "lookup[eastern sector]", "lookup[eastern sector]",
     "lookup[Colorado]", "lookup[colorado]", "lookup[COLORADO]", "lookup[unit]", "lookup[gallery]",
     "lookup[front range]", "lookup[template]", "lookup[script]", "lookup[Geology]", "finish[1,800 ft]",
     "search[High Plains]"],
    ["lookup[anything]", "search[Colorado]", "lookup[Colorado]", "think[hmm]", "  search[High Plains]  ",
     "lookup[elevation]", "lookup[is]", "lookup[is]", "lookup[is]", "lookup[is]", "lookup[is]", "finish[]"],
    ["search[colorado orogen]", "search[Colorado orogeny]", "search[Colorado Orogeny]", "search[colorado orogeny]",
     "Search[Colorado orogeny]", "search Colorado", "", "search[", "lookup[]", "finish[x", "think[]"],
    ["search[AT&T]", "search[C++]", "search[1984]", "search[Who's Afraid of Virginia Woolf?]", "search[#]",
     "search[]", "search[zzzz qqqq]", "search[Nineteen Eighty-Four (year)]", "search[High_Plains_(United_States)]"],
    ["search[Colorado \\u00e9]", "search[Escape sequences]", "search[Tab]", "search[plains]"],
]


def write_episodes():
    site, read = load_site()
    base = "http://127.0.0.1"

    def fetch(entity):
        prep = requests.Request("GET", f"{base}/w/index.php?search={entity.replace(' ', '+')}").prepare()
        qs = urllib.parse.urlsplit(prep.url).query
        return site_response(site, read, qs)

    out = []
    for i, actions in enumerate(EPISODES + [EPISODES[-1]]):
        strict = i == len(EPISODES)  # the last one replays an episode with the released code's raising clean_str
        env = PaperEnv(fetch, strict=strict)
        steps = [{"action": None, "obs": env.reset()}]
        for a in actions:
            try:
                obs, r, done, info = env.step(a)
                steps.append({"action": a, "obs": obs, "done": done, "info": info})
            except Exception as e:  # noqa: BLE001 - the released code crashes here (clean_str)
                steps.append({"action": a, "error": type(e).__name__})
                break
        out.append({"strict": strict, "steps": steps})
    # the HTML each search sent, so the TS server can be checked byte for byte against this mirror
    pages = {}
    for q in ["search=Colorado+orogeny", "search=colorado+orogen", "search=", "search=AT&T", "search=zzzz",
              "search=High+Plains", "search=%5BHigh+Plains%5D"]:
        pages[q] = site_response(site, read, q)
    dump("episodes.json", {"episodes": out, "pages": pages})


if __name__ == "__main__":
    main()
