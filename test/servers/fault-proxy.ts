// A fault-injecting HTTP proxy for reliability tests, on 127.0.0.1 only: it forwards each
// request to an upstream test server (e.g. test/servers/wiki-server.ts) unchanged, except that, at a
// configurable rate drawn from a seeded RNG, it answers itself with one of the faults a real site or
// CDN produces: a 5xx, a 429 with Retry-After, a garbage 200 (an error page with <p> text, or random
// bytes), an empty 200, a connection dropped before any answer, or a 200 cut mid-body.
// Bounded: at most `maxConsecutive` faults in a row (so a client with enough attempts always gets
// through, whatever the seed), and upstream bodies are capped at 16 MiB.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PythonRandom } from '../../src/util/python-random.js';

export type FaultKind = '5xx' | '429' | 'garbage' | 'empty' | 'drop' | 'cut' | 'other-site' | 'bytes';
/** The default draw (the opt-in kinds below are left out so that seeded draws stay as they were). */
export const FAULT_KINDS: readonly FaultKind[] = ['5xx', '429', 'garbage', 'empty', 'drop', 'cut'];
/**
 * Opt-in kinds: 'other-site' answers 200 with another server's page (an error page of some other site),
 * 'bytes' answers 200 with 64 random bytes that are not HTML.
 */
export const EXTRA_FAULT_KINDS: readonly FaultKind[] = ['other-site', 'bytes'];

export interface FaultProxyOptions {
  /** Base URL of the upstream server (http://127.0.0.1:port). */
  upstream: string;
  /** Probability that a request gets a fault (0..1). */
  rate: number;
  seed?: number;
  /** Which faults to draw from (uniformly); default all. */
  kinds?: readonly FaultKind[];
  /** Upper bound on faults in a row (default unbounded). */
  maxConsecutive?: number;
  /** The Retry-After value sent with 429 (default '1'). */
  retryAfter?: string;
}

export interface FaultProxy {
  url: string;
  /** Faults injected so far, per kind. */
  injected: Record<FaultKind, number>;
  /** Requests forwarded to the upstream. */
  forwarded: number;
  setRate(rate: number): void;
  close(): Promise<void>;
}

const MAX_BODY = 16 * 1024 * 1024;

/** Looks like a real outage page: markup and paragraphs, but no MediaWiki content. */
const ERROR_PAGE =
  '<!DOCTYPE html><html><head><title>Wikimedia Error</title></head><body><h1>Error</h1>' +
  '<p>Our servers are currently under maintenance or experiencing a technical problem. Please try again in a few minutes.</p>' +
  '<ul><li>Request from 127.0.0.1 via cp1001 cp1001, Varnish XID 123</li><li>Error: 503, Backend fetch failed</li></ul></body></html>';

export async function startFaultProxy(opts: FaultProxyOptions): Promise<FaultProxy> {
  const rng = new PythonRandom(opts.seed ?? 0);
  const kinds = opts.kinds ?? FAULT_KINDS;
  const up = new URL(opts.upstream);
  const injected = Object.fromEntries([...FAULT_KINDS, ...EXTRA_FAULT_KINDS].map((k) => [k, 0])) as Record<FaultKind, number>;
  let rate = opts.rate;
  let inARow = 0;
  let forwarded = 0;

  const pickFault = (): FaultKind | undefined => {
    const r = rng.random();
    const k = kinds[rng.randbelow(kinds.length)];
    if (r >= rate || inARow >= (opts.maxConsecutive ?? Infinity)) {
      inARow = 0;
      return undefined;
    }
    inARow++;
    return k;
  };

  const server = http.createServer((req, res) => {
    const fault = pickFault();
    if (fault && fault !== 'cut') injected[fault]++;
    const send = (status: number, body: string | Buffer, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)), ...headers });
      res.end(body);
    };
    switch (fault) {
      case '5xx':
        return send([500, 502, 503, 504][rng.randbelow(4)], ERROR_PAGE);
      case '429':
        return send(429, '<html><body><p>Too many requests.</p></body></html>', { 'Retry-After': opts.retryAfter ?? '1' });
      case 'garbage':
        return rng.random() < 0.5 ? send(200, ERROR_PAGE) : send(200, Buffer.from(Array.from({ length: 64 }, () => rng.randbelow(256))));
      case 'empty':
        return send(200, '');
      case 'other-site':
        return send(200, ERROR_PAGE);
      case 'bytes':
        return send(200, Buffer.from(Array.from({ length: 64 }, () => rng.randbelow(256))));
      case 'drop':
        req.socket.destroy();
        return;
      default:
        break; // forward (and maybe cut)
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      forwarded++;
      const upReq = http.request(
        { hostname: up.hostname, port: up.port, method: req.method, path: req.url, headers: { ...req.headers, host: up.host } },
        (upRes) => {
          const body: Buffer[] = [];
          let size = 0;
          upRes.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_BODY) upRes.destroy();
            else body.push(c);
          });
          upRes.on('end', () => {
            const all = Buffer.concat(body);
            const headers: http.OutgoingHttpHeaders = { ...upRes.headers, 'content-length': String(all.length) };
            delete headers['transfer-encoding'];
            delete headers.connection;
            delete headers['keep-alive'];
            res.writeHead(upRes.statusCode ?? 502, headers);
            if (fault === 'cut' && all.length > 1) {
              injected.cut++;
              // the status line and half the body, then the connection goes away
              res.write(all.subarray(0, all.length >> 1), () => res.socket?.destroy());
            } else res.end(all);
          });
          upRes.on('error', () => res.socket?.destroy());
        },
      );
      upReq.on('error', () => send(502, 'upstream unreachable'));
      upReq.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    injected,
    get forwarded() {
      return forwarded;
    },
    setRate(r: number) {
      rate = r;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
