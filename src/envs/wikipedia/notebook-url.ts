// §6: the URL the notebook fetched for search[entity]:
//   requests.get(f"https://en.wikipedia.org/w/index.php?search={entity.replace(' ', '+')}")
// Only spaces are replaced; requests then prepares the URL: urllib3's parse_url percent-encodes
// characters that are not allowed in a query ('"', '<', '>', '`', '{', '}', '|', '\', '^', non-ASCII
// as UTF-8...) and requests' requote_uri leaves reserved characters alone. So '&' starts a new
// parameter and '+' becomes a space on the server ("AT&T" searches "AT", "C++" searches "C"), and
// '#' starts a fragment that is never sent ("#" searches ""). This module reproduces that exactly
// (checked against requests 2.x in test/fixtures/wikipedia/urls.json; requests' quoting itself is
// src/util/python-requests-url.ts, shared with WebShop) and the way the server reads the search
// parameter back, which the offline backends use to see the query the live site would see.
import { encodeInvalidChars, QUERY_CHARS, requoteUri } from '../../util/python-requests-url.js';

export interface NotebookRequest {
  /** The full prepared URL, fragment included (as requests' PreparedRequest.url). */
  url: string;
  /** What goes on the request line: path and query, no fragment. */
  pathAndQuery: string;
}

/** The request requests.get would make for search[entity] against `base` (default https://en.wikipedia.org). */
export function notebookSearchRequest(base: string, entity: string): NotebookRequest {
  const b = base.replace(/\/+$/, '');
  const rest = entity.replaceAll(' ', '+');
  const hash = rest.indexOf('#');
  const query = 'search=' + (hash < 0 ? rest : rest.slice(0, hash));
  const fragment = hash < 0 ? null : rest.slice(hash + 1);
  const origin = new URL(b);
  const basePath = origin.pathname.replace(/\/+$/, '');
  const path = `${basePath}/w/index.php`;
  const url = requoteUri(`${origin.protocol}//${origin.host}${path}?${encodeInvalidChars(query, QUERY_CHARS)}${fragment ? '#' + encodeInvalidChars(fragment, QUERY_CHARS) : ''}`);
  const cut = url.indexOf('#');
  const noFrag = cut < 0 ? url : url.slice(0, cut);
  return { url, pathAndQuery: noFrag.slice(noFrag.indexOf(path)) };
}

/**
 * The `search` value the site reads from that request (PHP's query parsing: '&' separates, '+' is a
 * space, %XX decoded, the last `search` wins), trimmed and NFC-normalised as MediaWiki does.
 */
export function effectiveSearchTerm(entity: string): string {
  const { pathAndQuery } = notebookSearchRequest('http://localhost', entity);
  const params = new URLSearchParams(pathAndQuery.slice(pathAndQuery.indexOf('?') + 1));
  const all = params.getAll('search');
  return (all.length ? all[all.length - 1] : '').trim().normalize('NFC');
}
