// A Wikipedia look-alike on 127.0.0.1 for the Wikipedia backends' tests (docs/protocol.md §6).
// /w/index.php?search=Q: an existing title (after MediaWiki-like normalisation and redirects) →
// 302 to /wiki/Title, which serves the article in Vector-like chrome; otherwise a Special:Search
// results page with div.mw-search-result-heading entries (some with "(redirect from ...)").
// /w/api.php: action=parse, action=query&prop=pageprops (disambiguation, redirects) and list=search.
// The page content, the index and the templates are the files in test/fixtures/wikipedia/site/, and
// the HTML equals what scripts/gen_wiki_fixtures.py builds (it mirrors this logic for CPython).
// Faults for error tests: setFault({ kind: '503' | 'hang' | 'drop', count }).
import http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const SITE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'wikipedia', 'site');

interface SiteIndexEntry {
  title: string;
  redirect_from?: string;
}
interface Site {
  articles: Record<string, string>;
  redirects: Record<string, string>;
  disambiguation: string[];
  index: SiteIndexEntry[];
}

export type WikiFault = { kind: '503' | 'hang' | 'drop'; count?: number };

export interface WikiServerOptions {
  fault?: WikiFault;
}

export interface WikiServer {
  url: string;
  /** Request targets (path + query) in arrival order. */
  requests: string[];
  setFault(f: WikiFault | undefined): void;
  close(): Promise<void>;
}

const read = (name: string) => readFileSync(path.join(SITE, name), 'utf8');
export const site: Site = JSON.parse(read('site.json'));
const TOKEN_PUNCT = '[](){}"\'.,?!#&+';

const esc = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
const ucfirst = (s: string) => (s ? s[0].toUpperCase() + s.slice(1) : s);
function stripChars(s: string, chars: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && chars.includes(s[a])) a++;
  while (b > a && chars.includes(s[b - 1])) b--;
  return s.slice(a, b);
}

/** The article title a search term goes to, or undefined (MediaWiki "go" near match, simplified). */
export function resolveTitle(term: string): string | undefined {
  if (!term) return undefined;
  for (let cand of [ucfirst(term.replaceAll('_', ' ')), ucfirst(term.toLowerCase())]) {
    cand = site.redirects[cand] ?? cand;
    if (cand in site.articles) return cand;
  }
  return undefined;
}

export function searchHits(term: string, limit = 20): SiteIndexEntry[] {
  const toks = term
    .toLowerCase()
    .split(' ')
    .map((t) => stripChars(t, TOKEN_PUNCT))
    .filter(Boolean);
  return site.index.filter((e) => toks.some((t) => e.title.toLowerCase().includes(t))).slice(0, limit);
}

export function articleHtml(title: string): string {
  return read('skin.html')
    .replaceAll('{{TITLE}}', () => esc(title))
    .replaceAll('{{CONTENT}}', () => read(site.articles[title]));
}

export function searchPageHtml(term: string): string {
  let results: string;
  if (!term) results = '<p>Enter a search term to find pages on this wiki.</p>';
  else {
    const hits = searchHits(term);
    if (hits.length === 0) results = '<p class="mw-search-nonefound">There were no results matching the query.</p>';
    else {
      const items = hits.map((e) => {
        const rf = e.redirect_from;
        const red = rf
          ? `  <span class="searchalttitle">(redirect from <a href="/wiki/${esc(rf.replaceAll(' ', '_'))}" title="${esc(rf)}">${esc(rf)}</a>)</span>`
          : '';
        return (
          `<li class="mw-search-result"><div class="mw-search-result-heading">` +
          `<a href="/wiki/${esc(e.title.replaceAll(' ', '_'))}" title="${esc(e.title)}">${esc(e.title)}</a>${red}` +
          `</div><div class="searchresult">Text about ${esc(e.title)}.</div></li>`
        );
      });
      results = '<ul class="mw-search-results">\n' + items.join('\n') + '\n</ul>';
    }
  }
  return read('search.html')
    .replaceAll('{{QUERY}}', () => esc(term))
    .replaceAll('{{RESULTS}}', () => results);
}

function lastParam(params: URLSearchParams, name: string): string {
  const all = params.getAll(name);
  return all.length ? all[all.length - 1] : '';
}

function api(params: URLSearchParams): unknown {
  const action = params.get('action');
  if (action === 'parse') {
    let title = params.get('page') ?? '';
    if (params.get('redirects') !== null) title = site.redirects[ucfirst(title)] ?? title;
    title = ucfirst(title.replaceAll('_', ' '));
    if (!(title in site.articles)) return { error: { code: 'missingtitle', info: "The page you specified doesn't exist." } };
    return { parse: { title, pageid: Object.keys(site.articles).indexOf(title) + 1, text: read(site.articles[title]) } };
  }
  if (action === 'query' && params.get('list') === 'search') {
    const q = params.get('srsearch') ?? '';
    const hits = searchHits(q, Number(params.get('srlimit') ?? 10));
    return {
      batchcomplete: true,
      query: {
        searchinfo: { totalhits: searchHits(q, 10_000).length },
        search: hits.map((h) => ({ ns: 0, title: h.title, pageid: site.index.indexOf(h) + 100, snippet: `Text about ${esc(h.title)}.` })),
      },
    };
  }
  if (action === 'query' && params.get('prop') === 'pageprops') {
    const titles = (params.get('titles') ?? '').split('|');
    const normalized: { from: string; to: string }[] = [];
    const redirects: { from: string; to: string }[] = [];
    const pages: unknown[] = [];
    for (const t0 of titles) {
      let t = ucfirst(t0.replaceAll('_', ' '));
      if (t !== t0) normalized.push({ from: t0, to: t });
      if (params.get('redirects') !== null && site.redirects[t]) {
        redirects.push({ from: t, to: site.redirects[t] });
        t = site.redirects[t];
      }
      if (t in site.articles) {
        const page: Record<string, unknown> = { pageid: Object.keys(site.articles).indexOf(t) + 1, ns: 0, title: t };
        if (site.disambiguation.includes(t)) page.pageprops = { disambiguation: '' };
        pages.push(page);
      } else if (/[[\]{}<>|#]/.test(t) || !t)
        pages.push({ title: t, invalidreason: 'The requested page title contains invalid characters', invalid: true });
      else pages.push({ ns: 0, title: t, missing: true });
    }
    const query: Record<string, unknown> = { pages };
    if (normalized.length) query.normalized = normalized;
    if (redirects.length) query.redirects = redirects;
    return { batchcomplete: true, query };
  }
  return { error: { code: 'badvalue', info: 'Unrecognized value for parameter "action".' } };
}

export async function startWikiServer(opts: WikiServerOptions = {}): Promise<WikiServer> {
  const requests: string[] = [];
  let fault = opts.fault;
  const server = http.createServer((req, res) => {
    const target = req.url ?? '/';
    requests.push(target);
    if (fault && (fault.count === undefined || fault.count > 0)) {
      if (fault.count !== undefined) fault.count--;
      if (fault.kind === '503') {
        res.writeHead(503, { 'Content-Type': 'text/html; charset=utf-8' });
        res.end('<html><body><p>Our servers are currently under maintenance or experiencing a technical problem.</p></body></html>');
        return;
      }
      if (fault.kind === 'drop') {
        req.socket.destroy();
        return;
      }
      return; // hang: never answer
    }
    const u = new URL(target, 'http://127.0.0.1');
    const send = (status: number, body: string, type = 'text/html; charset=utf-8', extra: Record<string, string> = {}) => {
      res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), ...extra });
      res.end(body);
    };
    if (u.pathname === '/w/index.php') {
      const term = lastParam(u.searchParams, 'search').replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, '');
      const title = resolveTitle(term);
      if (title) {
        send(302, '', 'text/html; charset=utf-8', {
          Location: '/wiki/' + encodeURIComponent(title.replaceAll(' ', '_')).replace(/%2F/g, '/'),
        });
        return;
      }
      send(200, searchPageHtml(term));
      return;
    }
    if (u.pathname.startsWith('/wiki/')) {
      const title = decodeURIComponent(u.pathname.slice('/wiki/'.length)).replaceAll('_', ' ');
      if (title in site.articles) send(200, articleHtml(title));
      else send(404, searchPageHtml(''));
      return;
    }
    if (u.pathname === '/w/api.php') {
      send(200, JSON.stringify(api(u.searchParams)), 'application/json; charset=utf-8');
      return;
    }
    send(404, '<html><body><p>Not found.</p></body></html>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setFault(f) {
      fault = f;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
