// The paper's backend (§6): GET {base}/w/index.php?search=<entity, spaces as +>, exactly as the
// notebook's requests.get sends it, then what BeautifulSoup(html.parser) sees on the answer.
import type { SearchOutcome, WikiBackend } from './backend.js';
import { httpGet, WIKI_USER_AGENT, type HttpOptions } from './http-get.js';
import { notebookSearchRequest } from './notebook-url.js';
import { outcomeFromHtml } from './soup-outcome.js';

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

export class LiveHtmlBackend implements WikiBackend {
  readonly kind: string = 'live';
  readonly baseUrl: string;

  constructor(private readonly opts: LiveBackendOptions = {}) {
    this.baseUrl = (opts.baseUrl ?? DEFAULT_WIKI_URL).replace(/\/+$/, '');
  }

  async search(entity: string, o?: { signal?: AbortSignal }): Promise<SearchOutcome> {
    const req = notebookSearchRequest(this.baseUrl, entity);
    const origin = new URL(this.baseUrl).origin;
    const res = await httpGet(origin, req.pathAndQuery, { ...this.opts, signal: o?.signal });
    const outcome = outcomeFromHtml(res.body);
    this.opts.onFetch?.(entity, { url: req.url, time: new Date().toISOString(), html: res.body, outcome });
    return outcome;
  }

  describe(): Record<string, unknown> {
    return {
      kind: this.kind,
      baseUrl: this.baseUrl,
      userAgent: this.opts.userAgent ?? WIKI_USER_AGENT,
      timeoutMs: this.opts.timeoutMs ?? 30_000,
      attempts: this.opts.attempts ?? 10,
      parser: 'BeautifulSoup html.parser rules on htmlparser2 tokenizer',
    };
  }
}
