// A small HTTP GET for the live and API backends: exact request line (node:http, no URL
// re-normalisation), redirects followed like requests does, a per-attempt timeout and the notebook's
// retry on timeouts (§6: up to 10 attempts). Every failure is InfraError('env'): an outage must never
// become an observation.
import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { InfraError } from '../../errors.js';
import { repoRoot } from '../../paths.js';

let version = '0.0.0';
try {
  version = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version ?? version;
} catch {
  /* keep the placeholder */
}
export const WIKI_USER_AGENT = `react-repro/${version} (research reproduction of ReAct)`;

export interface HttpOptions {
  /** Per-attempt timeout in ms (default 30 s). The notebook set none; a hang would stall it forever. */
  timeoutMs?: number;
  /** Attempts when a request times out or the connection drops (default 10, as the notebook's step loop). */
  attempts?: number;
  userAgent?: string;
  signal?: AbortSignal;
}

export interface HttpResponse {
  url: string;
  status: number;
  body: string;
}

class Retryable extends Error {}

function once(url: URL, pathAndQuery: string, opts: HttpOptions): Promise<{ status: number; location?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const lib = url.protocol === 'https:' ? https : http;
    const req = lib.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || undefined,
        path: pathAndQuery,
        method: 'GET',
        headers: { 'User-Agent': opts.userAgent ?? WIKI_USER_AGENT, Accept: '*/*', 'Accept-Encoding': 'identity' },
        signal: opts.signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, location: res.headers.location, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', (e) => reject(new Retryable(`connection dropped: ${e.message}`)));
        res.on('aborted', () => reject(new Retryable('connection dropped mid-response')));
      },
    );
    req.setTimeout(opts.timeoutMs ?? 30_000, () => req.destroy(new Retryable(`timed out after ${opts.timeoutMs ?? 30_000} ms`)));
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e instanceof Retryable) reject(e);
      else if (e.code === 'ECONNRESET' || e.code === 'EPIPE') reject(new Retryable(`connection dropped (${e.code})`));
      else reject(e);
    });
    req.end();
  });
}

/**
 * GET `pathAndQuery` on `origin`, following up to 30 redirects. Non-2xx answers, refused connections
 * and exhausted retries throw InfraError('env').
 */
export async function httpGet(origin: string, pathAndQuery: string, opts: HttpOptions = {}): Promise<HttpResponse> {
  const attempts = opts.attempts ?? 10;
  let lastError = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    let url = new URL(pathAndQuery, origin);
    let target = pathAndQuery;
    try {
      for (let hop = 0; ; hop++) {
        const r = await once(url, target, opts);
        if (r.status >= 300 && r.status < 400 && r.location) {
          if (hop >= 30) throw new InfraError(`Wikipedia: too many redirects from ${origin}${pathAndQuery}`, 'env');
          url = new URL(r.location, url);
          target = url.pathname + url.search;
          continue;
        }
        if (r.status < 200 || r.status >= 300) {
          throw new InfraError(`Wikipedia answered HTTP ${r.status} for ${url.origin}${target}`, 'env');
        }
        return { url: url.origin + target, status: r.status, body: r.body };
      }
    } catch (e) {
      if (e instanceof InfraError) throw e;
      if (opts.signal?.aborted) throw new InfraError(`Wikipedia request aborted: ${origin}${pathAndQuery}`, 'env', { cause: e });
      if (!(e instanceof Retryable)) {
        throw new InfraError(`Wikipedia unreachable at ${origin}: ${(e as Error).message}`, 'env', { cause: e });
      }
      lastError = e.message;
    }
  }
  throw new InfraError(`Wikipedia: ${origin}${pathAndQuery} failed ${attempts} times (${lastError})`, 'env');
}
