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
import { httpJson } from '../http/request.js';
import { authorityOf } from '../http/base-url.js';
import { WIKI_SERVICE, WIKI_USER_AGENT, wikiRetryPolicy, type HttpOptions } from './http-get.js';
import { redactUrl } from '../../util/redact.js';
import { effectiveSearchTerm } from './notebook-url.js';
import { outcomeFromHtml } from './soup-outcome.js';
import { DEFAULT_WIKI_URL } from './live-backend.js';
import { NO_RESULTS_BLOCKS } from './offline-pages.js';
import { JsonFields } from '../../util/json-fields.js';

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

type ApiCall = 'pageprops' | 'parse' | 'search';

// MediaWiki API error codes that a later attempt may not get (replication lag, rate limit, read-only
// maintenance, an internal exception): retried like a 5xx.
const TRANSIENT_API_ERRORS = /^(maxlag|ratelimited|readonly|internal_api_error_.*)$/;

/**
 * What "an answer of the expected kind" is for api.php (README "Reliability"): a JSON object that is either an
 * API error ({"error": {"code": string, "info": string}}; a transient code is retried) or holds the
 * fields the call reads -- pageprops: query.pages (an array of {title}); parse: parse.text (a
 * non-empty string, or {"*": string} in formatversion 1); search: query.search (an array of
 * {title}). Anything else (an HTML error page, "{}", an empty body) is a malformed response.
 */
export function notAnApiAnswer(kind: ApiCall, v: unknown): string | undefined {
  const answer = JsonFields.of(v);
  if (!answer) return 'not a JSON object';
  if (answer.get('error') !== undefined) {
    const code = answer.obj('error')?.str('code');
    if (code === undefined) return 'malformed API error';
    return TRANSIENT_API_ERRORS.test(code) ? `API error ${code}` : undefined;
  }
  const titled = (a: unknown) => Array.isArray(a) && a.every((p) => JsonFields.of(p)?.str('title') !== undefined);
  if (kind === 'pageprops') return titled(answer.obj('query')?.get('pages')) ? undefined : 'no query.pages in a pageprops answer';
  if (kind === 'search') return titled(answer.obj('query')?.get('search')) ? undefined : 'no query.search in a search answer';
  const parse = answer.obj('parse');
  const text = parse?.str('text') ?? parse?.obj('text')?.str('*');
  return text ? undefined : 'no parse.text in a parse answer';
}

const ANSWER_CHECK =
  'JSON with the fields each call reads (query.pages, parse.text, query.search) or an API error; anything else is retried, then an error';
const QUERY = 'the term the notebook URL makes the site see (AT&T → AT)';

export class ApiBackend implements WikiBackend {
  readonly kind = 'api';
  readonly baseUrl: string;
  /** Scheme, credentials (sent as Basic auth) and host. */
  private readonly authority: string;
  private readonly apiPath: string;

  constructor(private readonly opts: ApiBackendOptions = {}) {
    this.baseUrl = (opts.baseUrl ?? DEFAULT_WIKI_URL).replace(/\/+$/, '');
    const u = new URL(this.baseUrl);
    this.authority = authorityOf(this.baseUrl);
    this.apiPath = u.pathname.replace(/\/+$/, '') + '/w/api.php';
  }

  // MediaWiki's JSON: each caller narrows the fields it reads.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private async call(kind: ApiCall, params: Record<string, string>, signal?: AbortSignal): Promise<any> {
    const qs = new URLSearchParams({ ...params, format: 'json', formatversion: '2' });
    const o = this.opts;
    const res = await httpJson(this.authority, `${this.apiPath}?${qs}`, {
      service: WIKI_SERVICE,
      headers: { 'User-Agent': o.userAgent ?? WIKI_USER_AGENT },
      timeoutMs: o.timeoutMs,
      retry: wikiRetryPolicy(o),
      signal,
      onRetry: o.onRetry,
      clock: o.clock,
      random: o.random,
      validateJson: (v) => notAnApiAnswer(kind, v),
    });
    const body = res.json as { error?: { code: string; info: string } };
    if (body.error) throw new InfraError(`Wikipedia API at ${redactUrl(this.baseUrl)}: error ${body.error.code}: ${body.error.info}`, 'env');
    return body;
  }

  async search(entity: string, o?: { signal?: AbortSignal }): Promise<SearchOutcome> {
    const term = effectiveSearchTerm(entity);
    if (!term) return { kind: 'page', blocks: [] };
    const cands = nearMatchCandidates(term);
    const pp: PagepropsAnswer = await this.call('pageprops', { action: 'query', prop: 'pageprops', titles: cands.join('|'), redirects: '1' }, o?.signal);
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
      const parsed = await this.call('parse', { action: 'parse', page: title, prop: 'text', redirects: '1' }, o?.signal);
      const html: string = typeof parsed.parse?.text === 'string' ? parsed.parse.text : (parsed.parse?.text?.['*'] ?? '');
      const outcome = outcomeFromHtml(html);
      return outcome.kind === 'page' ? { ...outcome, title: parsed.parse?.title ?? title } : outcome;
    }
    const s = await this.call('search', { action: 'query', list: 'search', srsearch: term, srlimit: String(this.opts.searchLimit ?? 20) }, o?.signal);
    const titles: string[] = (s.query?.search ?? []).map((h: { title: string }) => h.title);
    return titles.length ? { kind: 'similar', titles } : { kind: 'page', blocks: [...NO_RESULTS_BLOCKS] };
  }

  describe(): Record<string, unknown> {
    return {
      kind: this.kind,
      baseUrl: redactUrl(this.baseUrl),
      userAgent: this.opts.userAgent ?? WIKI_USER_AGENT,
      timeoutMs: this.opts.timeoutMs ?? 30_000,
      retry: wikiRetryPolicy(this.opts),
      answerCheck: ANSWER_CHECK,
      searchLimit: this.opts.searchLimit ?? 20,
      query: QUERY,
    };
  }

  /** What is asked and how answers are read; not where from, how patiently, with which User-Agent. */
  identity(): Record<string, unknown> {
    return { kind: this.kind, answerCheck: ANSWER_CHECK, query: QUERY };
  }
}
