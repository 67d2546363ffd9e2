// What a Wikipedia backend gives WikiEnv for one search (docs/protocol.md §6).
// A backend reproduces what BeautifulSoup saw on the page the notebook fetched; WikiEnv applies the
// released code's logic on top ("may refer to:" retry, >2-token filter, clean_str, 5-sentence obs).

export type SearchOutcome =
  /** The site answered with a search-results page: the heading texts, in order, stripped (all of them). */
  | { kind: 'similar'; titles: string[] }
  /** The site answered with an article: the stripped text of every <p>, then of every <ul>. */
  | { kind: 'page'; blocks: string[]; title?: string };

export interface WikiBackend {
  /** Short name for manifests and logs: snapshot | live | api | record | replay. */
  readonly kind: string;
  /** The exact entity string from search[...] (the live backend turns spaces into +). */
  search(entity: string, opts?: { signal?: AbortSignal }): Promise<SearchOutcome>;
  /** Secret-free description for the run manifest (base URL, snapshot path and sha256...). */
  describe(): Record<string, unknown>;
  /** The part of describe() that is a run's identity (not where the site is, its timeouts, retries, User-Agent); absent: all of it. */
  identity?(): Record<string, unknown>;
  close?(): Promise<void>;
}
