// §6: the URL the notebook fetched for search[entity]:
//   requests.get(f"https://en.wikipedia.org/w/index.php?search={entity.replace(' ', '+')}")
// Only spaces are replaced; requests then prepares the URL: urllib3's parse_url percent-encodes
// characters that are not allowed in a query ('"', '<', '>', '`', '{', '}', '|', '\', '^', non-ASCII
// as UTF-8...) and requests' requote_uri leaves reserved characters alone. So '&' starts a new
// parameter and '+' becomes a space on the server ("AT&T" searches "AT", "C++" searches "C"), and
// '#' starts a fragment that is never sent ("#" searches ""). This module reproduces that exactly
// (checked against requests 2.x in test/fixtures/wikipedia/urls.json) and the way the server reads the
// search parameter back, which the offline backends use to see the query the live site would see.

const QUERY_ALLOWED = new Set(
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?".split(''),
);
const UNRESERVED = new Set('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~'.split(''));
const REQUOTE_SAFE = new Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~!#$%&'()*+,/:;=?@[]".split(''));

/** UTF-8 with lone surrogates encoded as three bytes (Python's "surrogatepass"). */
function utf8Bytes(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return out;
}

const pct = (b: number) => '%' + b.toString(16).toUpperCase().padStart(2, '0');

/** urllib3's _encode_invalid_chars for a query or fragment. */
function encodeInvalidChars(component: string): string {
  let count = 0;
  const upper = component.replace(/%[a-fA-F0-9]{2}/g, (m) => {
    count++;
    return m.toUpperCase();
  });
  const bytes = utf8Bytes(upper);
  const allPercentEncoded = count === bytes.filter((b) => b === 0x25).length;
  let out = '';
  for (const b of bytes) {
    const ch = String.fromCharCode(b);
    if ((allPercentEncoded && b === 0x25) || (b < 128 && QUERY_ALLOWED.has(ch))) out += ch;
    else out += pct(b);
  }
  return out;
}

/** requests.utils.requote_uri (the input is ASCII by now). */
function requoteUri(uri: string): string {
  const quote = (s: string, keepPercent: boolean) => {
    let out = '';
    for (const b of utf8Bytes(s)) {
      const ch = String.fromCharCode(b);
      out += REQUOTE_SAFE.has(ch) && (keepPercent || ch !== '%') ? ch : pct(b);
    }
    return out;
  };
  // unquote_unreserved: decode %XX only when it is an unreserved character; raises on %zz
  const parts = uri.split('%');
  for (let i = 1; i < parts.length; i++) {
    const h = parts[i].slice(0, 2);
    if (h.length === 2 && /^[A-Za-z0-9]{2}$/.test(h)) {
      if (!/^[0-9A-Fa-f]{2}$/.test(h)) return quote(uri, false); // InvalidURL → quote without keeping %
      const c = String.fromCharCode(parseInt(h, 16));
      parts[i] = UNRESERVED.has(c) ? c + parts[i].slice(2) : '%' + parts[i];
    } else parts[i] = '%' + parts[i];
  }
  return quote(parts.join(''), true);
}

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
  const url = requoteUri(`${origin.protocol}//${origin.host}${path}?${encodeInvalidChars(query)}${fragment ? '#' + encodeInvalidChars(fragment) : ''}`);
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
