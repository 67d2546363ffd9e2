// How python-requests (2.x, with urllib3 >= 1.25) prepares a URL written by string formatting, and what
// it puts on the request line: the notebooks build their URLs that way and let requests quote them,
// WebShop.ipynb with the raw search query and Python dict literals in the path (docs/protocol.md §9),
// the Wikipedia notebooks with the raw entity in ?search= (§6; src/envs/wikipedia/notebook-url.ts).
// Preparation, step by step:
// 1. urllib3's parse_url splits scheme / authority / path / query / fragment with its RFC 3986
//    regex (the path ends at the first "?" or "#", the query at the first "#"), then for http(s):
//    removes "." and ".." path segments, and percent-encodes every byte that is not allowed in the
//    component (non-ASCII as UTF-8). Existing %XX escapes are kept (upper-cased) only when every "%"
//    of that component starts one; otherwise every "%" of the component becomes "%25".
// 2. urlunparse puts it back together (an empty query or fragment disappears with its "?" / "#").
// 3. requote_uri decodes %XX escapes of unreserved characters ("%41" → "A") and quotes the rest.
// 4. The request line carries path_url: path + "?" + query; the fragment is never sent.
// Checked against requests 2.34.2 / urllib3 2.7.0 (test/benchmarks/webshop/requests-url.test.ts) and
// requests 2.x for the Wikipedia search URLs (test/fixtures/wikipedia/urls.json).

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UNRESERVED = new Set((ALNUM + '-._~').split(''));
// urllib3: _PATH_CHARS = unreserved | sub-delims | ":@/"; _QUERY_CHARS = _FRAGMENT_CHARS = _PATH_CHARS | "?".
export const PATH_CHARS: ReadonlySet<string> = new Set((ALNUM + "-._~!$&'()*+,;=:@/").split(''));
export const QUERY_CHARS: ReadonlySet<string> = new Set([...PATH_CHARS, '?']);
// urllib.parse.quote's always-safe characters plus requote_uri's safe string.
const REQUOTE_BASE = ALNUM + '_.-~';
const SAFE_WITH_PERCENT = new Set((REQUOTE_BASE + "!#$%&'()*+,/:;=?@[]~").split(''));
const SAFE_WITHOUT_PERCENT = new Set((REQUOTE_BASE + "!#$&'()*+,/:;=?@[]~").split(''));

// ^(?:(scheme):)?(?://(authority))?(path)(?:\?(query))?(?:#(fragment))?$
const URI_RE = /^(?:([a-zA-Z][a-zA-Z0-9+.-]*):)?(?:\/\/([^\\/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#([\s\S]*))?$/;

/** UTF-8 bytes; a lone surrogate becomes its three-byte form (Python's "surrogatepass"). */
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

const pct = (b: number): string => '%' + b.toString(16).toUpperCase().padStart(2, '0');

/** urllib3's _encode_invalid_chars. */
export function encodeInvalidChars(component: string, allowed: ReadonlySet<string>): string {
  let escapes = 0;
  const normalised = component.replace(/%[a-fA-F0-9]{2}/g, (m) => {
    escapes++;
    return m.toUpperCase();
  });
  const bytes = utf8Bytes(normalised);
  const allEscapes = escapes === bytes.filter((b) => b === 0x25).length;
  let out = '';
  for (const b of bytes) {
    const ch = String.fromCharCode(b);
    out += (allEscapes && b === 0x25) || (b < 0x80 && allowed.has(ch)) ? ch : pct(b);
  }
  return out;
}

/** urllib3's _remove_path_dot_segments (RFC 3986 §5.2.4). */
export function removeDotSegments(path: string): string {
  const output: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '.') continue;
    if (seg !== '..') output.push(seg);
    else if (output.length) output.pop();
  }
  if (path.startsWith('/') && (output.length === 0 || output[0])) output.unshift('');
  if (path.endsWith('/.') || path.endsWith('/..')) output.push('');
  return output.join('/');
}

/** requests' InvalidURL("Invalid percent-escape sequence"). */
class InvalidEscape extends Error {}

/** requests.utils.unquote_unreserved: throws InvalidEscape on "%" + two alphanumerics that are not hex. */
function unquoteUnreserved(uri: string): string {
  const parts = uri.split('%');
  for (let i = 1; i < parts.length; i++) {
    const h = parts[i].slice(0, 2);
    if (h.length === 2 && /^[A-Za-z0-9]{2}$/.test(h)) {
      if (!/^[0-9A-Fa-f]{2}$/.test(h)) throw new InvalidEscape(h);
      const c = String.fromCharCode(parseInt(h, 16));
      parts[i] = UNRESERVED.has(c) ? c + parts[i].slice(2) : '%' + parts[i];
    } else parts[i] = '%' + parts[i];
  }
  return parts.join('');
}

function quote(s: string, safe: ReadonlySet<string>): string {
  let out = '';
  for (const b of utf8Bytes(s)) {
    const ch = String.fromCharCode(b);
    out += b < 0x80 && safe.has(ch) ? ch : pct(b);
  }
  return out;
}

/** requests.utils.requote_uri. */
export function requoteUri(uri: string): string {
  try {
    return quote(unquoteUnreserved(uri), SAFE_WITH_PERCENT);
  } catch (e) {
    if (!(e instanceof InvalidEscape)) throw e;
    return quote(uri, SAFE_WITHOUT_PERCENT);
  }
}

export interface PreparedTarget {
  /** PreparedRequest.url: the whole prepared URL, fragment included. */
  url: string;
  /** PreparedRequest.path_url: what goes on the request line. */
  pathUrl: string;
}

/**
 * The URL requests would prepare from `url` (an http(s) URL written by string formatting), and the
 * request target it sends. The authority is kept as written (the suite's --env-url is plain ASCII).
 */
export function prepareRequestsUrl(url: string): PreparedTarget {
  const m = URI_RE.exec(url.replace(/^[\s]+/, ''));
  if (!m || !m[1] || !m[2]) throw new Error(`not an absolute http(s) URL: ${url}`);
  const scheme = m[1].toLowerCase();
  const authority = m[2];
  let path = m[3] ?? '';
  let query = m[4];
  let fragment = m[5];
  if (scheme === 'http' || scheme === 'https') {
    if (path) path = encodeInvalidChars(removeDotSegments(path), PATH_CHARS);
    if (query) query = encodeInvalidChars(query, QUERY_CHARS);
    if (fragment) fragment = encodeInvalidChars(fragment, QUERY_CHARS);
  }
  if (!path) path = '/';
  // urlunparse: "?" and "#" only for non-empty parts.
  let joined = `${scheme}://${authority}${path.startsWith('/') ? path : '/' + path}`;
  if (query) joined += '?' + query;
  if (fragment) joined += '#' + fragment;
  const prepared = requoteUri(joined);
  // path_url: urlsplit (fragment first, then query) and keep path + "?" + query.
  let rest = prepared.slice(prepared.indexOf('//') + 2);
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  const slash = rest.search(/[/?]/);
  const afterHost = slash < 0 ? '' : rest.slice(slash);
  const q = afterHost.indexOf('?');
  const p = q < 0 ? afterHost : afterHost.slice(0, q);
  const qs = q < 0 ? '' : afterHost.slice(q + 1);
  return { url: prepared, pathUrl: (p || '/') + (qs ? '?' + qs : '') };
}
