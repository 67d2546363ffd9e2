// Secrets in URLs (src/util/redact.ts, README "Reliability"): the userinfo of a URL and the value of each
// query parameter named for a key (?api-key=KEY) are replaced by "***" and the rest kept byte for byte; a
// key given inside --base-url (http://user:KEY@127.0.0.1:port/v1) or --wiki-url never shows in describe()
// output (what the manifest records) or in error messages.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  holdsRedactedCredentials,
  redactBadUrl,
  redactUrl,
  redactUrlsIn,
  replaceSecretValues,
  urlCredentials,
} from '../../src/util/redact.js';
import { resolveModelConfig, VirtualClock } from '../../src/llm/index.js';
import { redactServerText, Secret } from '../../src/llm/secret.js';
import { ApiBackend } from '../../src/envs/wikipedia/api-backend.js';
import { LiveHtmlBackend } from '../../src/envs/wikipedia/live-backend.js';
import { httpRequest } from '../../src/envs/http/request.js';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';

const KEY = 'sk-live-SECRET-9f8e7d6c5b4a';

describe('redactUrl', () => {
  it('replaces the userinfo only, the rest byte-identical', () => {
    expect(redactUrl(`http://user:${KEY}@127.0.0.1:8000/v1`)).toBe('http://***@127.0.0.1:8000/v1');
    expect(redactUrl(`https://${KEY}@host/a%2Fb?x=1&y=%20#f`)).toBe('https://***@host/a%2Fb?x=1&y=%20#f');
    expect(redactUrl('http://u:p@ss@host:1/x')).toBe('http://***@host:1/x'); // the last "@" ends the userinfo
    expect(redactUrl('HTTP://Host/Path?q=a@b')).toBe('HTTP://Host/Path?q=a@b'); // "@" after the authority is data
    expect(redactUrl('http://host/x@y')).toBe('http://host/x@y');
    expect(redactUrl('http://host?u=a@b')).toBe('http://host?u=a@b');
    expect(redactUrl('not a url')).toBe('not a url');
    expect(redactUrl('http://[::1]:8080/v1')).toBe('http://[::1]:8080/v1');
  });

  it('in free text: every URL', () => {
    expect(redactUrlsIn(`GET http://a:${KEY}@h1/x failed; retry at https://b:c@h2:9/y (see http://h3/z)`)).toBe(
      'GET http://***@h1/x failed; retry at https://***@h2:9/y (see http://h3/z)',
    );
  });

  it('replaceSecretValues: known values, raw and percent-encoded, of any length the caller gives, longest first', () => {
    const k = 'p@ss/w0rd';
    expect(replaceSecretValues(redactUrlsIn(`key=${k} enc=${encodeURIComponent(k)} url=http://x:y@h/`), [k, ''], '***')).toBe(
      'key=*** enc=*** url=http://***@h/',
    );
    expect(replaceSecretValues('abcabc', ['abc', 'abcabc'], '***')).toBe('***');
    expect(replaceSecretValues('a/b a%2Fb a%2fb', ['a/b'], '***')).toBe('*** *** ***');
  });

  it('replaceSecretValues: a secret partly percent-encoded or with lowercase escapes', () => {
    const k = 'sk-live/SECRET+9f8e=7d6c';
    expect(replaceSecretValues('[sk-live/SECRET%2B9f8e%3D7d6c] [sk-live%2fSECRET%2b9f8e%3d7d6c]', [k], '***')).toBe('[***] [***]');
  });
});

describe('a key in a URL query', () => {
  it('the value of each parameter named for a key, whatever its case or separator, is ***', () => {
    for (const name of [
      'api-key',
      'api_key',
      'apikey',
      'apiKey',
      'API-KEY',
      'key',
      'Key',
      'access_token',
      'token',
      'sig',
      'signature',
      'password',
      'secret',
      'auth',
      'x-api-key',
      'client_secret',
      'X-Amz-Signature',
      'api%2Dkey', // a percent-encoded name is the same name
    ]) {
      expect(redactUrl(`http://127.0.0.1:8000/v1?${name}=${KEY}`), name).toBe(`http://127.0.0.1:8000/v1?${name}=***`);
    }
  });

  it('other parameters, and everything else, byte-identical', () => {
    const azure = 'https://res.openai.azure.com/openai/deployments/d?api-version=2024-02-01';
    expect(redactUrl(azure)).toBe(azure);
    expect(redactUrl(`https://h/v1?api-version=2024-02-01&api-key=${KEY}&x=%20a+b`)).toBe(
      'https://h/v1?api-version=2024-02-01&api-key=***&x=%20a+b',
    );
    // names that merely contain a key's name are data
    for (const data of ['keyboard=qwerty', 'monkey=1', 'keys=a', 'tokenizer=gpt2', 'signed=1', 'authors=x', 'my_key=1', 'key2=a']) {
      expect(redactUrl(`http://h/p?${data}`)).toBe(`http://h/p?${data}`);
    }
    // an empty value, a name without "=", a key's name as a value or in the path: nothing to hide
    for (const u of [
      'http://h/p?key=',
      'http://h/p?key',
      'http://h/p?key&x=1',
      'http://h/p?q=key',
      'http://h/key=abc/p',
      'http://h/p?q=a=key=b',
    ]) {
      expect(redactUrl(u)).toBe(u);
    }
    expect(redactUrl('not a url ?key=abc')).toBe('not a url ?key=abc');
  });

  it('several parameters, a fragment, encoded values, userinfo and query key together', () => {
    expect(redactUrl(`http://h/v1?token=${KEY}&v=1&sig=abc%2Fdef%3D%3D&password=p+w`)).toBe(
      'http://h/v1?token=***&v=1&sig=***&password=***',
    );
    expect(redactUrl(`http://h/v1?api-key=${KEY}#section`)).toBe('http://h/v1?api-key=***#section');
    expect(redactUrl(`http://h/cb#access_token=${KEY}&state=s`)).toBe('http://h/cb#access_token=***&state=s'); // OAuth's implicit flow
    expect(redactUrl(`http://h?key=${KEY}`)).toBe('http://h?key=***'); // no path
    expect(redactUrl(`http://user:${KEY}@h:9/v1?api-version=x&api-key=${KEY}`)).toBe('http://***@h:9/v1?api-version=x&api-key=***');
    expect(redactUrl(`http://h/v1?key=${KEY}?more=1&x=2`)).toBe('http://h/v1?key=***&x=2'); // a "?" inside a value is the value's
    expect(redactUrl(`http://h/v1?next=http://i/p?token=${KEY}&x=2`)).toBe('http://h/v1?next=http://i/p?token=***&x=2'); // a URL inside a query
    expect(redactUrl(`http://h/v1?Key=${KEY}&key=2`)).toBe('http://h/v1?Key=***&key=***');
    expect(redactUrl('http://h/v1?key=***')).toBe('http://h/v1?key=***'); // already redacted: unchanged
  });

  it('in free text: every URL, each ending where a URL cannot go on', () => {
    expect(
      redactUrlsIn(
        `GET http://h1/v1?api-key=${KEY}&v=2 failed; see "https://a:b@h2/x?sig=${KEY}" or <http://h3/y?keyboard=1&auth=${KEY}> key=${KEY}`,
      ),
    ).toBe(`GET http://h1/v1?api-key=***&v=2 failed; see "https://***@h2/x?sig=***" or <http://h3/y?keyboard=1&auth=***> key=${KEY}`);
    // a comma-separated pool: one value per URL
    expect(redactUrlsIn(`http://a/v1?key=K1,http://b/v1,http://u:p@c/v1?token=K3&x=1`)).toBe(
      'http://a/v1?key=***,http://b/v1,http://***@c/v1?token=***&x=1',
    );
    expect(redactUrlsIn(`http://h/v1?api-key=${KEY} and ${KEY}`)).toBe(`http://h/v1?api-key=*** and ${KEY}`);
  });

  it('in free text: the punctuation that ends a sentence is not a value; "," ends one only before the next URL; ";" separates', () => {
    expect(redactUrlsIn(`GET http://h/v1?api-key=${KEY}: failed (http://h?key=${KEY}) now.`)).toBe(
      'GET http://h/v1?api-key=***: failed (http://h?key=***) now.',
    );
    expect(redactUrlsIn(`see http://h?token=${KEY}. Then`)).toBe('see http://h?token=***. Then');
    // a URL that ends the text (a setting) keeps its last character redacted: it may be the key's
    expect(redactUrl(`http://h?password=Hunter2!`)).toBe('http://h?password=***');
    expect(redactUrlsIn(`see http://h?token=${KEY}.`)).toBe('see http://h?token=***');
    expect(redactUrl(`http://h/v1?token=abc,def&x=1`)).toBe('http://h/v1?token=***&x=1');
    // ";" starts a parameter's name but does not end a value (a key may hold one): the rest goes too
    expect(redactUrl(`http://h/v1?a=1;key=${KEY};b=2`)).toBe('http://h/v1?a=1;key=***');
    expect(redactUrl('http://h/v1?key=abc;def')).toBe('http://h/v1?key=***');
    expect(redactUrlsIn(`<a href="http://h/v1?a=1&amp;api-key=${KEY}&amp;b=2">`)).toBe(
      '<a href="http://h/v1?a=1&amp;api-key=***&amp;b=2">',
    );
  });

  it('urlCredentials: the known values a run must never write (secret parameters, passwords; not a user name alone)', () => {
    expect(urlCredentials(`http://h/v1?api-version=x&api-key=${KEY}`)).toEqual([KEY]);
    expect(urlCredentials('http://u:pass%40word1234@h/v1,http://b/v1?token=a+b%2Fc-defghijk')).toEqual([
      'pass%40word1234',
      'pass@word1234',
      'a+b%2Fc-defghijk',
      'a b/c-defghijk',
    ]);
    // too short to be matched by value in ordinary text ("secretary"): redacted only where it stands in a URL
    expect(urlCredentials('http://h/v1?api-key=secret&token=1234')).toEqual([]);
    expect(redactUrl('http://h/v1?api-key=secret&token=1234')).toBe('http://h/v1?api-key=***&token=***');
    expect(urlCredentials('http://ubuntu@h/v1')).toEqual([]);
    expect(urlCredentials('not a url, key=x')).toEqual([]);
  });

  it('redactBadUrl: a value meant as a URL, with or without its scheme', () => {
    expect(redactBadUrl(`127.0.0.1:8000/v1?api-version=1&api-key=${KEY}`)).toBe('127.0.0.1:8000/v1?api-version=1&api-key=***');
    expect(redactBadUrl(`http://127.0.0.1:99999999/v1?key=${KEY}`)).toBe('http://127.0.0.1:99999999/v1?key=***');
    expect(redactBadUrl(`user:${KEY}@nowhere`)).toBe('***@nowhere');
    expect(redactBadUrl('user:K/EY@host')).toBe('***@host'); // no authority holds the "@": all up to it goes
    expect(redactBadUrl('127.0.0.1:8000/v1?api-version=1')).toBe('127.0.0.1:8000/v1?api-version=1');
  });

  it('holdsRedactedCredentials: a URL with ***@ or a key parameter equal to ***', () => {
    expect(holdsRedactedCredentials('http://***@h/v1')).toBe(true);
    expect(holdsRedactedCredentials('http://h/v1?api-version=1&api-key=***')).toBe(true);
    expect(holdsRedactedCredentials('http://a/v1,http://b/v1?Token=***')).toBe(true);
    for (const t of [
      'http://h/v1?api-version=2024-02-01',
      'http://h/v1?keyboard=***',
      'http://h/v1?key=abc',
      'key=***',
      'http://h/***@x',
    ]) {
      expect(holdsRedactedCredentials(t), t).toBe(false);
    }
  });

  it('holdsRedactedCredentials knows every text redactUrlsIn writes: a key in any position, any punctuation after it', () => {
    // Each shape with a credential part (a key parameter, a userinfo) and the same without it.
    const shapes: [string, (cred: string) => string][] = [
      ['userinfo', (c) => `http://${c ? `user:${c}@` : ''}h:9/v1`],
      ['user alone', (c) => `http://${c ? `${c}@` : ''}h/v1`],
      ['query, at the end', (c) => `http://h/v1?api-version=1${c ? `&api-key=${c}` : ''}`],
      ['query, before "&"', (c) => `http://h/v1?${c ? `token=${c}&` : ''}v=1`],
      ['query, after ";"', (c) => `http://h/v1?a=1${c ? `;key=${c}` : ''}`],
      ['query, before ";"', (c) => `http://h/v1?${c ? `key=${c};` : ''}b=2`],
      ['query, before "#"', (c) => `http://h/v1?${c ? `sig=${c}` : 'v=1'}#section`],
      ['fragment', (c) => `http://h/cb#${c ? `access_token=${c}&` : ''}state=s`],
      ['a pool, before the next URL', (c) => `http://a/v1${c ? `?key=${c}` : ''},http://b/v1`],
      ['a URL inside a query', (c) => `http://h/v1?next=http://i/p${c ? `?token=${c}` : ''}&x=2`],
      [
        'a userinfo inside a query running past its "&"',
        (c) => (c ? `http://h/v1?key=http://u&x=${c}@i/p` : 'http://h/v1?q=http://u&x=i/p'),
      ],
      ['free text, a sentence ending', (c) => `GET http://h/v1${c ? `?key=${c}` : ''}! then`],
      ['free text, ";" after', (c) => `failed at http://h/v1${c ? `?key=${c}` : ''}; retrying`],
      ['free text, in brackets', (c) => `(see http://h/v1${c ? `?password=${c}` : ''})`],
      ['free text, quoted', (c) => `url "http://${c ? `u:${c}@` : ''}h/v1"`],
    ];
    // keys that may stand in a userinfo as in a query (no "/", "?", "#", "&", "@"), ending in punctuation too
    const keys = [KEY, 'Hunter2!', 'abc;def', 'a,b', 'x=y', 'p%40ss', 'k.', 'k)', 'k!;', '***'];
    for (const [name, shape] of shapes) {
      for (const k of keys) {
        const redacted = redactUrlsIn(shape(k));
        expect(redacted, `${name}: ${shape(k)}`).not.toContain(k === '***' ? '****' : k);
        expect(holdsRedactedCredentials(redacted), `${name}: ${shape(k)} -> ${redacted}`).toBe(true);
      }
      expect(holdsRedactedCredentials(redactUrlsIn(shape(''))), `${name} without a key: ${shape('')}`).toBe(false);
    }
    // as earlier versions recorded settings: the punctuation ending a value kept out of it, ";" and ","
    // ending a value (a resume of such a run asks for the flag again)
    for (const t of ['http://h?password=***!', 'http://h/v1?key=***;def', 'http://h/v1?key=***;', 'http://h/v1?token=***,def&x=1']) {
      expect(holdsRedactedCredentials(t), t).toBe(true);
    }
  });
});

describe('redactServerText', () => {
  it('replaces a known key as written, decoded and percent-encoded (a server echoing the URL it was sent)', () => {
    const key = 'sk-live/SECRET+9f8e=7d6c%5b4a';
    const enc = encodeURIComponent(key);
    expect(enc).not.toBe(key);
    const text = `401: bad key "${key}" (as sent: /v1/keys/${enc}/check)`;
    expect(redactServerText(text, new Secret(key), [])).toBe('401: bad key "[redacted]" (as sent: /v1/keys/[redacted]/check)');
    // a base URL's credential, in each form: as written, decoded, and each of those percent-encoded
    const written = 'ab/cd+ef=gh%25ij-klmn';
    const decoded = 'ab/cd ef=gh%ij-klmn';
    const forms = [written, decoded, encodeURIComponent(written), encodeURIComponent(decoded)];
    const echoed = forms.map((f) => `[${f}]`).join(' ');
    expect(redactServerText(echoed, undefined, [`http://h/v1?api-key=${written}`])).toBe(forms.map(() => '[[redacted]]').join(' '));
  });

  it('a key too short to be matched by value is not matched percent-encoded either', () => {
    const short = 'abcdefg/hi'; // 10 characters; 12 percent-encoded
    const text = `bad key ${encodeURIComponent(short)} or ${short} or abcdefg%2fhi`;
    expect(redactServerText(text, new Secret(short), [])).toBe(text);
  });

  it('replaces a key partly percent-encoded or with lowercase escapes (encoders differ in what they keep)', () => {
    const key = 'sk-live/SECRET+9f8e=7d6c';
    // Python's urllib.parse.quote keeps "/"; others write the hex digits in lower case
    for (const echoed of ['sk-live/SECRET%2B9f8e%3D7d6c', 'sk-live%2fSECRET%2b9f8e%3d7d6c', 'sk-live%2FSECRET+9f8e%3d7d6c']) {
      expect(redactServerText(`401: bad key ${echoed}.`, new Secret(key), []), echoed).toBe('401: bad key [redacted].');
      expect(redactServerText(`401: bad key ${echoed}.`, undefined, [`http://u:${encodeURIComponent(key)}@h/v1`]), echoed).toBe(
        '401: bad key [redacted].',
      );
    }
    // a character beyond ASCII, as its UTF-8 bytes in either case
    const accented = 'clé-secrète-0123';
    expect(redactServerText('key cl%c3%a9-secr%C3%A8te-0123!', new Secret(accented), [])).toBe('key [redacted]!');
  });

  it('matches a key holding regular-expression characters literally', () => {
    const key = 'k.*+?()[]{}|^$\\-end';
    expect(key.length).toBeGreaterThanOrEqual(12);
    const text = `bad ${key} or ${encodeURIComponent(key)}; not kXX+?()[]{}|^$\\-end nor k.*+?()[]{}|^$-end`;
    expect(redactServerText(text, new Secret(key), [])).toBe(
      'bad [redacted] or [redacted]; not kXX+?()[]{}|^$\\-end nor k.*+?()[]{}|^$-end',
    );
    expect(replaceSecretValues(text, [key], '***')).toBe('bad *** or ***; not kXX+?()[]{}|^$\\-end nor k.*+?()[]{}|^$-end');
  });

  it('a key ending in "%", "%2" or "%25" is replaced whole in its encoded form (the escape is read before the character)', () => {
    expect(replaceSecretValues(`x ${encodeURIComponent('abc%')} y`, ['abc%'], '***')).toBe('x *** y');
    expect(redactServerText('bad longpassword%2525', undefined, ['http://u:longpassword%25@h/'])).toBe('bad [redacted]');
    expect(replaceSecretValues('k abcdefghijkl%252 z', ['abcdefghijkl%2'], '***')).toBe('k *** z');
  });

  it('a key too long for a pattern (tens of thousands of characters) is still replaced, as written and encoded, and never quoted in an error', () => {
    const key = 'eyJ' + 'abcDEF0123_-/'.repeat(3200);
    const text = `401: ${key} | ${encodeURIComponent(key)}`;
    expect(redactServerText(text, new Secret(key), [])).toBe('401: [redacted] | [redacted]');
    expect(replaceSecretValues(text, [key], '***')).toBe('401: *** | ***');
  });
});

describe('a key inside --base-url', () => {
  let server: OpenAIServer;
  beforeAll(async () => {
    server = await startOpenAIServer();
  });
  afterAll(async () => server.close());

  const withKey = () => server.baseURL.replace('http://', `http://user:${KEY}@`);

  it('is refused in one line that names the key variable and never shows the key', () => {
    // Node's fetch cannot send credentials in a URL: the key belongs in the environment (README "Reliability").
    let msg = '';
    try {
      resolveModelConfig({ model: 'test-model', baseUrl: [withKey()], cache: 'off' }, {});
    } catch (e) {
      msg = (e as Error).message;
    }
    expect(msg).toMatch(/^--base-url: the URL holds credentials .*OPENAI_API_KEY/);
    expect(msg).not.toContain(KEY);
    expect(msg.split('\n')).toHaveLength(1);
  });

  it('is not in configuration errors', () => {
    const msgs: string[] = [];
    for (const bad of [`http://user:${KEY}@127.0.0.1:99999999/v1`, `user:${KEY}@nowhere`, `ftp://user:${KEY}@host/v1`]) {
      try {
        resolveModelConfig({ model: 'm', baseUrl: [bad] }, {});
      } catch (e) {
        msgs.push((e as Error).message);
      }
    }
    expect(msgs).toHaveLength(3);
    for (const m of msgs) expect(m).not.toContain(KEY);
    expect(msgs[0]).toBe('--base-url: "http://***@127.0.0.1:99999999/v1" is not a URL; expected e.g. http://127.0.0.1:8000/v1');
  });
});

describe('a key inside --wiki-url or an environment server URL', () => {
  it('is not in the Wikipedia backends describe() or their errors', async () => {
    const url = `http://user:${KEY}@127.0.0.1:1`;
    for (const b of [
      new LiveHtmlBackend({ baseUrl: url, clock: new VirtualClock() }),
      new ApiBackend({ baseUrl: url, clock: new VirtualClock() }),
    ]) {
      expect(JSON.stringify(b.describe())).not.toContain(KEY);
      expect(b.describe().baseUrl).toBe('http://***@127.0.0.1:1');
      const err = await b.search('x').catch((e) => e);
      expect(inspect(err, { depth: 10 })).not.toContain(KEY);
    }
  });
  it("is sent as Basic auth by both Wikipedia backends, as requests sends a URL's credentials", async () => {
    const seen: (string | undefined)[] = [];
    const site = http.createServer((req, res) => {
      seen.push(req.headers.authorization);
      if (req.url?.startsWith('/w/api.php')) {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ query: { search: [], searchinfo: { totalhits: 0 } } }));
      } else res.end('<html><body><div id="mw-content-text"><p>x</p></div></body></html>');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    const url = `http://user:${KEY}@127.0.0.1:${(site.address() as AddressInfo).port}`;
    try {
      await new LiveHtmlBackend({ baseUrl: url, clock: new VirtualClock() }).search('x').catch(() => undefined);
      await new ApiBackend({ baseUrl: url, clock: new VirtualClock() }).search('x').catch(() => undefined);
    } finally {
      site.close();
    }
    const basic = 'Basic ' + Buffer.from(`user:${KEY}`).toString('base64');
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const a of seen) expect(a).toBe(basic);
    // a malformed "%" in the password is sent as written (urllib's unquote), not an error
    seen.length = 0;
    site.listen(0, '127.0.0.1');
    await new Promise((r) => site.once('listening', r));
    const odd = `http://user:p%zz${KEY}@127.0.0.1:${(site.address() as AddressInfo).port}`;
    try {
      await new LiveHtmlBackend({ baseUrl: odd, clock: new VirtualClock() }).search('x');
    } finally {
      site.close();
    }
    expect(seen).toEqual(['Basic ' + Buffer.from(`user:p%zz${KEY}`).toString('base64')]);
  });

  it('is not in the HTTP client errors', async () => {
    const err = await httpRequest(`http://user:${KEY}@127.0.0.1:1`, '/reset', {
      service: 'ALFWorld server',
      clock: new VirtualClock(),
    }).catch((e) => e);
    expect(err.message).toBe('ALFWorld server unreachable at http://127.0.0.1:1: failed 3 times (last: connection refused (ECONNREFUSED))');
    expect(inspect(err, { depth: 10 })).not.toContain(KEY);
  });
});
