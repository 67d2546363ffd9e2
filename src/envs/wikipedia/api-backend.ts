// The MediaWiki Action API backend (§6 alternative to scraping index.php): one query for the
// candidate titles (prop=pageprops, redirects followed: a disambiguation page takes the released
// code's "may refer to:" path), action=parse for an article's HTML (same p-then-ul extraction as the
// live backend), list=search for the similar titles. Requests are built with URLSearchParams on a
// configurable base URL: the `wikipedia` npm package could not be used (docs/wikipedia.md: it
// hardcodes https://<lang>.wikipedia.org, leaves & + # unescaped in queries and sends numeric titles
// such as "1984" as page ids).
//
// Differences from the live HTML backend, by construction: action=parse returns the article content
// without the skin's navigation/footer lists (fewer ul blocks at the end of the page), and search
// titles carry no "(redirect from ...)" text. The query is the one the live site would have seen
// (effectiveSearchTerm: "AT&T" → "AT", as the notebook's URL makes it).
import type { SearchOutcome, WikiBackend } from './backend.js';
import { InfraError } from '../../errors.js';
import { httpGet, WIKI_USER_AGENT, type HttpOptions } from './http-get.js';
import { effectiveSearchTerm } from './notebook-url.js';
import { outcomeFromHtml } from './soup-outcome.js';
import { DEFAULT_WIKI_URL } from './live-backend.js';
import { NO_RESULTS_BLOCKS } from './offline-pages.js';

export interface ApiBackendOptions extends Omit<HttpOptions, 'signal'> {
  baseUrl?: string;
  /** How many search hits to ask for (the HTML results page shows 20; the observation uses 5). */
  searchLimit?: number;
}

const ucfirst = (s: string) => (s ? s[0].toUpperCase() + s.slice(1) : s);
const ucwords = (s: string) => s.replace(/(^|\s)(\S)/g, (_m, a: string, b: string) => a + b.toUpperCase());

/** The titles MediaWiki's "go" near-match tries for a term, in its order. */
export function nearMatchCandidates(term: string): string[] {
  const lc = term.toLowerCase();
  const c = [term, ucfirst(lc), term.toUpperCase(), ucwords(lc), ucwords(term)];
  return [...new Set(c)].filter((t) => t && !t.includes('|'));
}

interface PagepropsAnswer {
  query?: {
    normalized?: { from: string; to: string }[];
    redirects?: { from: string; to: string }[];
    pages?: { title: string; missing?: boolean; invalid?: boolean; pageprops?: Record<string, string> }[];
  };
  error?: { code: string; info: string };
}

export class ApiBackend implements WikiBackend {
  readonly kind = 'api';
  readonly baseUrl: string;
  private readonly origin: string;
  private readonly apiPath: string;

  constructor(private readonly opts: ApiBackendOptions = {}) {
    this.baseUrl = (opts.baseUrl ?? DEFAULT_WIKI_URL).replace(/\/+$/, '');
    const u = new URL(this.baseUrl);
    this.origin = u.origin;
    this.apiPath = u.pathname.replace(/\/+$/, '') + '/w/api.php';
  }

  private async call(params: Record<string, string>, signal?: AbortSignal): Promise<any> {
    const qs = new URLSearchParams({ ...params, format: 'json', formatversion: '2' });
    const res = await httpGet(this.origin, `${this.apiPath}?${qs}`, { ...this.opts, signal });
    let body: any;
    try {
      body = JSON.parse(res.body);
    } catch {
      throw new InfraError(`Wikipedia API at ${this.baseUrl} did not answer JSON`, 'env');
    }
    return body;
  }

  async search(entity: string, o?: { signal?: AbortSignal }): Promise<SearchOutcome> {
    const term = effectiveSearchTerm(entity);
    if (!term) return { kind: 'page', blocks: [] };
    const cands = nearMatchCandidates(term);
    const pp: PagepropsAnswer = await this.call({ action: 'query', prop: 'pageprops', titles: cands.join('|'), redirects: '1' }, o?.signal);
    if (pp.error) throw new InfraError(`Wikipedia API error ${pp.error.code}: ${pp.error.info}`, 'env');
    const q = pp.query ?? {};
    const follow = (t: string) => {
      const n = q.normalized?.find((x) => x.from === t)?.to ?? t;
      return q.redirects?.find((x) => x.from === n)?.to ?? n;
    };
    for (const cand of cands) {
      const title = follow(cand);
      const page = q.pages?.find((p) => p.title === title);
      if (!page || page.missing || page.invalid) continue;
      if (page.pageprops && 'disambiguation' in page.pageprops) return { kind: 'page', blocks: [`${title} may refer to:`], title };
      const parsed = await this.call({ action: 'parse', page: title, prop: 'text', redirects: '1' }, o?.signal);
      if (parsed.error) throw new InfraError(`Wikipedia API error ${parsed.error.code}: ${parsed.error.info}`, 'env');
      const html: string = typeof parsed.parse?.text === 'string' ? parsed.parse.text : (parsed.parse?.text?.['*'] ?? '');
      const outcome = outcomeFromHtml(html);
      return outcome.kind === 'page' ? { ...outcome, title: parsed.parse?.title ?? title } : outcome;
    }
    const s = await this.call({ action: 'query', list: 'search', srsearch: term, srlimit: String(this.opts.searchLimit ?? 20) }, o?.signal);
    if (s.error) throw new InfraError(`Wikipedia API error ${s.error.code}: ${s.error.info}`, 'env');
    const titles: string[] = (s.query?.search ?? []).map((h: { title: string }) => h.title);
    return titles.length ? { kind: 'similar', titles } : { kind: 'page', blocks: [...NO_RESULTS_BLOCKS] };
  }

  describe(): Record<string, unknown> {
    return {
      kind: this.kind,
      baseUrl: this.baseUrl,
      userAgent: this.opts.userAgent ?? WIKI_USER_AGENT,
      searchLimit: this.opts.searchLimit ?? 20,
      query: 'the term the notebook URL makes the site see (AT&T → AT)',
    };
  }
}
