// The paper's backend (§6): GET {base}/w/index.php?search=<entity, spaces as +>, exactly as the
// notebook's requests.get sends it, then what BeautifulSoup(html.parser) sees on the answer.
import type { SearchOutcome, WikiBackend } from './backend.js';
import { httpGet, wikiRetryPolicy, WIKI_USER_AGENT, type HttpOptions } from './http-get.js';
import { notebookSearchRequest } from './notebook-url.js';
import { outcomeFromHtml } from './soup-outcome.js';
import { redactUrl } from '../../util/redact.js';
import { authorityOf } from '../http/base-url.js';

export const DEFAULT_WIKI_URL = 'https://en.wikipedia.org';

export interface LiveFetch {
  url: string;
  time: string;
  html: string;
  outcome: SearchOutcome;
}

export interface LiveBackendOptions extends Omit<HttpOptions, 'signal'> {
  baseUrl?: string;
  /** Called with every answer (the recorder stores them). */
  onFetch?: (entity: string, fetch: LiveFetch) => void;
}

// What "a page of the expected kind" is for an index.php answer (README "Reliability": anything else is an
// outage, retried then InfraError, never an observation). Whatever index.php answers to a search --
// an article (after the "go" redirect), a disambiguation page, or Special:Search with hits, with "no
// results" or with an empty query -- is a MediaWiki page view, and every MediaWiki skin renders
// the page body inside <div id="mw-content-text">; the released code then reads either the
// div.mw-search-result-heading entries or the p/ul blocks, both inside it. An empty body, a
// proxy/CDN error page ("Our servers are currently under maintenance..." has <p> text but no
// content container), a truncated page or random bytes lack it.
const CONTENT_CONTAINER = /<div\b[^>]*\sid\s*=\s*(["']?)mw-content-text\1(?=[\s/>])/i;

/** Why `html` is not a MediaWiki page view (then it must not become an observation), or undefined. */
export function notAWikiPage(html: string): string | undefined {
  if (html.trim() === '') return 'empty body';
  if (!CONTENT_CONTAINER.test(html)) return 'not a MediaWiki page (no <div id="mw-content-text">)';
  return undefined;
}

// Part of live run ids: what the pages are read as. The port of Python's html.parser
// (src/util/py-html-parser.ts) answers as BeautifulSoup 4.11 does on malformed markup where the
// htmlparser2-based reader before it did not, so live runs made with that reader are other runs.
const PARSER = 'BeautifulSoup 4.11 html.parser rules on a port of Python 3.11 html.parser';

export class LiveHtmlBackend implements WikiBackend {
  readonly kind: string = 'live';
  readonly baseUrl: string;

  constructor(private readonly opts: LiveBackendOptions = {}) {
    this.baseUrl = (opts.baseUrl ?? DEFAULT_WIKI_URL).replace(/\/+$/, '');
  }

  async search(entity: string, o?: { signal?: AbortSignal }): Promise<SearchOutcome> {
    const req = notebookSearchRequest(this.baseUrl, entity);
    const res = await httpGet(authorityOf(this.baseUrl), req.pathAndQuery, { ...this.opts, signal: o?.signal }, (r) => notAWikiPage(r.body));
    const outcome = outcomeFromHtml(res.body);
    // req.url holds no credential (scheme, host, path and the model's search term): recorded as sent,
    // so a search term that looks like a key parameter (X&key=Y) stays the term it was
    this.opts.onFetch?.(entity, { url: req.url, time: new Date().toISOString(), html: res.body, outcome });
    return outcome;
  }

  describe(): Record<string, unknown> {
    const retry = wikiRetryPolicy(this.opts);
    return {
      kind: this.kind,
      baseUrl: redactUrl(this.baseUrl),
      userAgent: this.opts.userAgent ?? WIKI_USER_AGENT,
      timeoutMs: this.opts.timeoutMs ?? 30_000,
      attempts: retry.maxAttempts,
      retry,
      parser: PARSER,
      pageCheck: 'a 200 without <div id="mw-content-text"> (empty, garbage, an error page) is retried, then an error',
    };
  }

  /** What the pages are read as; not where from, how patiently, or with which User-Agent. */
  identity(): Record<string, unknown> {
    return { kind: this.kind, parser: PARSER };
  }
}
