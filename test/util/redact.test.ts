// Secrets in URLs (src/util/redact.ts, README "Reliability"): the userinfo of a URL is replaced by "***" and the
// rest kept byte for byte; a key given inside --base-url (http://user:KEY@127.0.0.1:port/v1) or
// --wiki-url never shows in describe() output (what the manifest records) or in error messages.
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactSecrets, redactUrl, redactUrlsIn } from '../../src/util/redact.js';
import { resolveModelConfig, VirtualClock } from '../../src/llm/index.js';
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

  it('redactSecrets: known values, raw and percent-encoded, and URL userinfo', () => {
    const k = 'p@ss/w0rd';
    expect(redactSecrets(`key=${k} enc=${encodeURIComponent(k)} url=http://x:y@h/`, [k, undefined, ''])).toBe(
      'key=*** enc=*** url=http://***@h/',
    );
    expect(redactSecrets('abcabc', ['abc', 'abcabc'])).toBe('***');
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
  it('is not in the HTTP client errors', async () => {
    const err = await httpRequest(`http://user:${KEY}@127.0.0.1:1`, '/reset', {
      service: 'ALFWorld server',
      clock: new VirtualClock(),
    }).catch((e) => e);
    expect(err.message).toBe('ALFWorld server unreachable at http://127.0.0.1:1: failed 3 times (last: connection refused (ECONNREFUSED))');
    expect(inspect(err, { depth: 10 })).not.toContain(KEY);
  });
});
