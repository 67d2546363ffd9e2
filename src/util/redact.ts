// Secrets never reach disk, logs or messages (DEVELOPERS.md): a key may hide in a URL -- its userinfo
// (`http://user:KEY@host/v1`) or the value of a query parameter named for one (`?api-key=KEY`), README
// "Reliability" -- or be known by value (an API key read from the environment).

const URL_START = /[a-zA-Z][a-zA-Z0-9+.-]*:\/\//g;
/** What ends a URL inside free text (characters a URL never holds unencoded). */
const URL_END = ' \t\r\n"\'<>`';
/**
 * The authority of a URL ends at the first "/", "?" or "#" (or "\" for http/https, as WHATWG URL
 * parses them); inside it, the userinfo is everything up to the LAST "@".
 */
const AUTHORITY_END = '/?#\\' + URL_END;
/** A parameter's name in a query or fragment, up to its "=" (the value follows); ";" separates as "&" does (and ends "&amp;"). */
const PARAM_NAME = /[?&#;]([^=&#?;]*)=/g;
/** What ends a parameter's value: the next parameter or the fragment (";" does not: a key may hold one, and "&amp;" ends at its "&"). */
const VALUE_END = '&#';
/** A "," that starts the next URL of a list (--base-url a,b is one text) also ends a value. */
const NEXT_URL = /^,\s*[a-zA-Z][a-zA-Z0-9+.-]*:\/\//;
/** Punctuation that ends a sentence around a URL in free text ("failed at http://h?key=K: ...", "(http://h?key=K)"), not part of a value. */
const TRAILING_PUNCTUATION = '.,:;!?)]}';

/**
 * Parameters whose value is a credential, as compared: lower case, without "-" and "_" (api-key,
 * api_key, apiKey and APIKEY are one name). Whole names only: keyboard= or monkey= are data.
 */
const SECRET_PARAMS = new Set([
  'key',
  'apikey',
  'xapikey',
  'apitoken',
  'accesskey',
  'accesstoken',
  'authtoken',
  'idtoken',
  'refreshtoken',
  'sessiontoken',
  'securitytoken',
  'token',
  'auth',
  'authorization',
  'secret',
  'clientsecret',
  'password',
  'passwd',
  'pwd',
  'sig',
  'signature',
  'subscriptionkey',
  'xamzsignature',
  'xamzsecuritytoken',
  'xgoogsignature',
]);

/** Whether a query parameter of this name (as written in the URL, maybe percent-encoded) holds a credential. */
function isSecretParam(name: string): boolean {
  let n = name.replaceAll('+', ' ');
  try {
    n = decodeURIComponent(n);
  } catch {
    /* not percent-encoded */
  }
  return SECRET_PARAMS.has(n.toLowerCase().replace(/[-_]/g, ''));
}

/** [start, end) of a part of a text that holds a credential. */
type Span = readonly [number, number];

/**
 * The credentials of the URL whose authority starts at `start` in `text`: its userinfo (empty included:
 * `http://@host` is shown as `***@host`) and the non-empty value of each secret parameter of its query
 * and fragment (the URL runs to the first URL_END character).
 */
function credentialSpans(text: string, start: number): Span[] {
  let authorityEnd = start;
  while (authorityEnd < text.length && !AUTHORITY_END.includes(text[authorityEnd])) authorityEnd++;
  const at = text.lastIndexOf('@', authorityEnd - 1);
  const spans: Span[] = at >= start ? [[start, at]] : [];
  let end = authorityEnd;
  while (end < text.length && !URL_END.includes(text[end])) end++;
  let query = authorityEnd;
  while (query < end && text[query] !== '?' && text[query] !== '#') query++;
  for (const m of text.slice(query, end).matchAll(PARAM_NAME)) {
    if (!isSecretParam(m[1])) continue;
    const from = query + m.index + m[0].length;
    let to = from;
    while (to < end && !VALUE_END.includes(text[to]) && !(text[to] === ',' && NEXT_URL.test(text.slice(to, to + 40)))) to++;
    // only where the URL is followed by more text: a setting's URL (the whole text) keeps its last character redacted
    if (to === end && end < text.length) while (to > from && TRAILING_PUNCTUATION.includes(text[to - 1])) to--;
    if (to > from) spans.push([from, to]);
  }
  return spans;
}

/** The credentials of every URL in `text`, overlapping ones (a URL inside another's query) joined, in order. */
function allCredentialSpans(text: string): Span[] {
  const spans = [...text.matchAll(URL_START)]
    .flatMap((m) => credentialSpans(text, m.index + m[0].length))
    .sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const out: [number, number][] = [];
  for (const [s, e] of spans) {
    const last = out.at(-1);
    // A span starting inside the last one widens it; an empty userinfo is shown as *** once.
    if (last && s < last[1]) last[1] = Math.max(last[1], e);
    else if (!last || s !== last[0] || e !== last[1]) out.push([s, e]);
  }
  return out;
}

/** What a URL's credential is replaced with (redactUrlsIn), and so what marks one redacted (holdsRedactedCredentials). */
export const REDACTED = '***';

/**
 * Every URL in free text (error messages, server answers, settings) with its credentials replaced by
 * "***": `scheme://user:KEY@host/p?api-key=KEY&v=1` → `scheme://***@host/p?api-key=***&v=1`; everything
 * else byte-identical.
 */
export function redactUrlsIn(text: string): string {
  let out = '';
  let last = 0;
  for (const [s, e] of allCredentialSpans(text)) {
    out += text.slice(last, s) + REDACTED;
    last = e;
  }
  return out + text.slice(last);
}

/**
 * The shortest secret matched by value wherever it appears (an API key from the environment, a URL's
 * credential): a write refused (src/run/manifest.ts assertNoSecrets), a cached or server text scrubbed
 * (src/llm/cache/store.ts, src/llm/secret.ts). A shorter value -- a placeholder key such as Ollama's
 * "ollama" or vLLM's "EMPTY", a short query key "secret" -- is too likely in ordinary text (a model named
 * ollama-llama3, a question about a secretary) to refuse or rewrite it there; a URL's credential is
 * still redacted wherever it stands in a URL (redactUrlsIn), and a key is never written as itself.
 */
export const MIN_SECRET_BY_VALUE = 12;

/** Whether `s` is long enough to be matched by value (MIN_SECRET_BY_VALUE). */
export function matchableSecret(s: string | undefined | null): s is string {
  return !!s && s.length >= MIN_SECRET_BY_VALUE;
}

/**
 * The credentials written in the URLs of `text` (settings, a comma-separated list), as known values that
 * must never be written (src/run/deps.ts secrets): each secret parameter's value and each userinfo's
 * password (a user name alone is not one), as written and percent-decoded, when matchableSecret.
 */
export function urlCredentials(text: string): string[] {
  const out: string[] = [];
  for (const [s, e] of allCredentialSpans(text)) {
    const part = text.slice(s, e);
    // a userinfo ends where its host begins; its password follows the first ":"
    const value = text[e] === '@' ? (part.includes(':') ? part.slice(part.indexOf(':') + 1) : '') : part;
    if (!value) continue;
    let decoded = value;
    try {
      decoded = decodeURIComponent(value.replaceAll('+', ' '));
    } catch {
      /* not percent-encoded */
    }
    // both forms or neither: the decoded one is what the server is sent, and may echo
    if (matchableSecret(value) || matchableSecret(decoded)) out.push(value, decoded);
  }
  return [...new Set(out)];
}

/** A URL with its credentials replaced by "***" (redactUrlsIn); a text that does not start with a URL is returned as it is. */
export function redactUrl(url: string): string {
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(url) ? redactUrlsIn(url) : url;
}

/**
 * A flag's value meant as a URL, maybe unparsable, as a message may echo it: redacted as a URL even
 * without its "scheme://", and when that finds no userinfo, everything up to a last "@" is "***"
 * (`user:K/EY@host` has no authority to find it in).
 */
export function redactBadUrl(text: string): string {
  const r = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(text) ? redactUrl(text) : redactUrl(`x://${text}`).slice('x://'.length);
  return r === text && text.includes('@') ? `${REDACTED}${text.slice(text.lastIndexOf('@'))}` : r;
}

/**
 * Whether `text` holds a URL whose credentials were redacted (`***@`, a secret parameter `=***`): the
 * key it had must be given again (a resumed run: src/run/manifest.ts redactedSettingKeys). Read with
 * the rule that wrote it (allCredentialSpans), a credential redactUrlsIn replaced starts where it
 * stood, with REDACTED; what followed it may join it when read again, so a credential that starts
 * with REDACTED is one: the punctuation ending a sentence (`?key=***!` in a setting, as earlier
 * versions trimmed it), a ";" or "," that earlier versions ended a value at (`?key=***;rest`), what
 * followed a userinfo nested in a query past its "&" (`?key=http://u&x=KEY@i` is `?key=***@i`).
 */
export function holdsRedactedCredentials(text: string): boolean {
  return allCredentialSpans(text).some(([s]) => text.startsWith(REDACTED, s));
}

/** A character of a secret that no encoder escapes (RFC 3986 §2.3: letters and digits are written as themselves). */
const ALPHANUMERIC = /^[a-zA-Z0-9]$/;

/** A hex letter (A-F) as a pattern that takes it in either case (`%2f` and `%2F` are one byte). */
function hexDigit(d: string): string {
  return `[${d}${d.toLowerCase()}]`;
}

/** `ch` (one code point) as a pattern: itself, or its UTF-8 bytes each written %HH in either case. */
function anyEncodingOfChar(ch: string): string {
  const literal = ch.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  if (ALPHANUMERIC.test(ch)) return literal;
  const code = ch.codePointAt(0) ?? 0;
  // ASCII as one byte (encodeURIComponent keeps "-_.!~*'()", which other encoders escape); a lone
  // surrogate has no UTF-8 form, so only itself
  const isLoneSurrogate = ch.length === 1 && code >= 0xd800 && code <= 0xdfff;
  if (isLoneSurrogate) return literal;
  const bytes = code < 0x80 ? `%${code.toString(16).toUpperCase().padStart(2, '0')}` : encodeURIComponent(ch);
  // the escape first: a "%" is also where "%25" begins, and the longer reading must win
  return `(?:${bytes.replace(/[A-F]/g, hexDigit)}|${literal})`;
}

/**
 * Each secret's pattern, built once: a run matches the same few keys in every completion
 * (src/llm/cache/store.ts); null for a secret no pattern can be run for (replaceSecretValues).
 */
const patterns = new Map<string, RegExp | null>();

/**
 * A pattern that finds `secret` however a server percent-encoded it: each character other than a letter
 * or digit as itself or its %HH escapes, in either case -- encodeURIComponent's form, Python's quote
 * (which keeps "/"), lowercase hex, any mix. Linear in the secret: one group per character, no
 * repetition; its characters are taken literally.
 */
function anyEncodingOf(secret: string): RegExp | null {
  let pattern = patterns.get(secret);
  if (pattern === undefined) patterns.set(secret, (pattern = new RegExp([...secret].map(anyEncodingOfChar).join(''), 'g')));
  return pattern;
}

/** `secret` as written and as encodeURIComponent writes it: what is matched when no pattern can be built. */
function plainForms(secret: string): string[] {
  try {
    return [secret, encodeURIComponent(secret)];
  } catch {
    return [secret]; // a lone surrogate has no encoded form
  }
}

/**
 * `text` with each of `secrets` (non-empty; the caller decides which are long enough, MIN_SECRET_BY_VALUE)
 * replaced by `replacement` wherever it stands, as written or percent-encoded in any way (anyEncodingOf):
 * the one rule for matching a secret by value. Longest first, so a secret that contains another is
 * replaced whole.
 */
export function replaceSecretValues(text: string, secrets: readonly string[], replacement: string): string {
  let out = text;
  for (const s of [...new Set(secrets)].filter(Boolean).sort((a, b) => b.length - a.length)) {
    try {
      const pattern = anyEncodingOf(s);
      if (pattern) {
        out = out.replace(pattern, () => replacement);
        continue;
      }
    } catch {
      // a key of thousands of characters is past V8's pattern limits, met when the pattern is first
      // run (its error would quote the key): remembered, so later texts do not try it again
      patterns.set(s, null);
    }
    // the forms a pattern is not needed for
    for (const f of plainForms(s)) out = out.split(f).join(replacement);
  }
  return out;
}
