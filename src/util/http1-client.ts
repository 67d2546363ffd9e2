// A lean HTTP/1.1 client for plain-http servers: the model server (src/llm/model-http.ts: the usual
// local vLLM, llama.cpp server, Ollama) and the environments (src/envs/http/request.ts: the Wikipedia
// stand-in, ALFWorld, WebShop). One request at a time per kept-alive connection, the answer framed by
// Content-Length, chunked transfer coding or the connection's end. node:http's request and response
// objects, their streams and its agent's bookkeeping cost more client CPU per call than the rest of a
// ReAct step (bench/results-loop.md); this does only what the two callers read: the status, the
// headers, the body. It fails as node:http fails, so the callers word every failure as before: a
// connection error, or a connection closed before the answer began ("socket hang up", ECONNRESET),
// comes before the head; a connection cut after it ends the body early; a malformed answer is a parse
// error with llhttp's code and message (HPE_*), a head at its first wrong line. It reads two things
// node:http refuses: lines ended by a bare LF, and bytes after a whole answer (the connection is then
// dropped). Idle connections are closed after `idleMs` and never hold the process open, as the agent's
// are. https stays with node:https (the callers choose).
import net from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import { nodeHttp } from './lazy-builtins.js';

/** What a request is told, in node:http's order: written, then head, body chunks and end, or an error. */
export interface Http1Handlers {
  /** The whole request was handed to the kernel (the server may act on it). */
  written(): void;
  /** The answer's head; false: its body is read and dropped (a redirect's), and no data/end follow. */
  head(status: number, headers: IncomingHttpHeaders, rawHeaders: string[]): boolean;
  data(chunk: Buffer): void;
  end(): void;
  /** `answered`: after head (a cut body); before it, `e` is the connection's error. */
  error(e: Error, answered: boolean): void;
  /** The connection was silent for the request's `timeoutMs` (the caller then ends it). */
  timeout?(): void;
}

/** node:http's maximum header size (--max-http-header-size default). */
const MAX_HEAD = 16 * 1024;

// Headers of which node:http keeps the first value only (IncomingMessage's matchKnownFields); set-cookie
// is a list; others are joined with ", ".
const FIRST_ONLY = new Set([
  'content-type',
  'content-length',
  'user-agent',
  'referer',
  'host',
  'authorization',
  'proxy-authorization',
  'if-modified-since',
  'if-unmodified-since',
  'from',
  'location',
  'max-forwards',
  'retry-after',
  'etag',
  'last-modified',
  'server',
  'age',
  'expires',
]);

function parseError(code: string, message: string): Error {
  return Object.assign(new Error(`Parse Error: ${message}`), { code });
}

/** A header name's characters (RFC 9110 token), as llhttp checks them. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The status line's error, as llhttp words it (its code differs with what is wrong, and callers retry by code). */
function statusLineError(line: string): Error {
  if (!line.startsWith('HTTP/')) return notHttp();
  if (!/^HTTP\/1\.[01] /.test(line)) return parseError('HPE_INVALID_VERSION', 'Invalid HTTP version');
  return parseError('HPE_INVALID_STATUS', /^HTTP\/1\.[01] \d/.test(line) ? 'Invalid response status' : 'Invalid status code');
}

function notHttp(): Error {
  return parseError('HPE_INVALID_CONSTANT', 'Expected HTTP/, RTSP/ or ICE/');
}

/** The answer's head (its text up to the empty line), or the parse error node:http would give. */
function parseHead(text: string): { status: number; keepAlive: boolean; headers: IncomingHttpHeaders; rawHeaders: string[] } | Error {
  const lines = text.split(/\r?\n/);
  const m = /^HTTP\/1\.([01]) (\d{3})(?:[ \t].*)?$/.exec(lines[0]);
  if (!m) return statusLineError(lines[0]);
  const headers: IncomingHttpHeaders = {};
  const rawHeaders: string[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    if (line === '') continue;
    if (line[0] === ' ' || line[0] === '\t') return parseError('HPE_INVALID_HEADER_TOKEN', 'Unexpected whitespace after header value');
    const colon = line.indexOf(':');
    const name = line.slice(0, colon);
    if (colon <= 0 || !TOKEN.test(name)) return parseError('HPE_INVALID_HEADER_TOKEN', 'Invalid header token');
    // optional whitespace is spaces and tabs only (String.trim would also take a Latin-1 no-break space)
    let from = colon + 1;
    let to = line.length;
    while (from < to && (line[from] === ' ' || line[from] === '\t')) from++;
    while (to > from && (line[to - 1] === ' ' || line[to - 1] === '\t' || line[to - 1] === '\r')) to--;
    const value = line.slice(from, to);
    rawHeaders.push(name, value);
    const key = name.toLowerCase();
    // own keys only: a header named "constructor" must not read Object's
    const had = Object.hasOwn(headers, key) ? headers[key] : undefined;
    if (had === undefined) headers[key] = key === 'set-cookie' ? [value] : value;
    else if (key === 'set-cookie') (had as string[]).push(value);
    else if (key === 'content-length') return parseError('HPE_UNEXPECTED_CONTENT_LENGTH', 'Duplicate Content-Length');
    else if (!FIRST_ONLY.has(key)) headers[key] = `${had as string}${key === 'cookie' ? '; ' : ', '}${value}`;
  }
  const http10 = m[1] === '0';
  const connection = String(headers.connection ?? '').toLowerCase();
  const keepAlive = http10 ? /\bkeep-alive\b/.test(connection) : !/\bclose\b/.test(connection);
  return { status: Number(m[2]), keepAlive, headers, rawHeaders };
}

/**
 * The parse error in a head not yet whole, if its lines so far have one: llhttp fails at the first
 * wrong byte, so a server that sends something else than HTTP and keeps the connection open fails now.
 */
function partialHeadError(text: string): Error | undefined {
  const nl = text.lastIndexOf('\n');
  if (nl < 0) return 'HTTP/'.startsWith(text.slice(0, 5)) ? undefined : notHttp();
  const head = parseHead(text.slice(0, text[nl - 1] === '\r' ? nl - 1 : nl));
  return head instanceof Error ? head : undefined;
}

const enum Body {
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkEnd,
  Trailers,
  UntilClose,
}

/** One kept-alive connection and the request it serves. */
/** A "Keep-Alive: timeout=N" header's N in ms, as node:http's agent reads it. */
function keepAliveHintMs(value: string | string[] | undefined): number | undefined {
  const m = typeof value === 'string' ? /\btimeout=(\d+)/.exec(value) : null;
  return m ? Number(m[1]) * 1000 : undefined;
}

class Conn {
  h: Http1Handlers | undefined;
  private buf: Buffer | undefined;
  private state = Body.Head;
  private remaining = 0;
  private keep = false;
  /** The head was delivered (a failure now cuts the body). */
  private answered = false;
  /** The request was handed to the kernel whole (until then the connection may not be reused). */
  private sent = false;
  /** The body is delivered (false: read and dropped). */
  private deliver = true;
  private closed = false;
  /** The server's Keep-Alive timeout for this connection, ms (undefined: none given). */
  private idleHint: number | undefined;

  constructor(
    readonly socket: net.Socket,
    readonly key: string,
    private readonly pool: Http1Pool,
  ) {
    socket.on('error', (e) => this.fail(e));
    socket.on('close', () => this.onClose());
    // the server ended it: never hand it out again ('close' comes later)
    socket.on('end', () => this.pool.drop(this));
    socket.on('timeout', () => (this.h?.timeout ? this.h.timeout() : this.discard()));
  }

  /** Sends the request (its whole text in one buffer: one write, no stream buffering of pieces). */
  start(h: Http1Handlers, request: Buffer): void {
    this.h = h;
    this.state = Body.Head;
    this.answered = false;
    this.deliver = true;
    this.sent = false;
    this.socket.write(request, (err?: Error | null) => {
      if (err) return;
      if (this.h === h) {
        this.sent = true;
        h.written();
      }
    });
  }

  /** Ends the request in progress and closes the connection (the caller's abort, a timeout, a size cap). */
  destroy(): void {
    this.h = undefined;
    this.discard();
  }

  /** Closes the connection, out of the pool first (its 'close' event comes later). */
  private discard(): void {
    this.pool.drop(this);
    this.socket.destroy();
  }

  private fail(e: Error): void {
    const h = this.h;
    this.h = undefined;
    this.closed = true;
    this.pool.drop(this);
    this.socket.destroy();
    h?.error(e, this.answered);
  }

  private onClose(): void {
    this.closed = true;
    this.pool.drop(this);
    const h = this.h;
    if (!h) return;
    if (this.state === Body.UntilClose) {
      this.h = undefined;
      if (this.deliver) h.end();
      return;
    }
    this.fail(Object.assign(new Error(this.answered ? 'aborted' : 'socket hang up'), { code: 'ECONNRESET' }));
  }

  /** Bytes read, in the pool's shared read buffer (valid until this returns: kept bytes are copied). */
  onData(chunk: Buffer): void {
    if (!this.h) {
      // bytes nobody asked for (an idle connection): it cannot be reused
      this.discard();
      return;
    }
    const d = this.buf ? Buffer.concat([this.buf, chunk]) : chunk;
    this.buf = undefined;
    let i = 0;
    while (this.h && i <= d.length) {
      if (this.state === Body.Head) {
        let end = d.indexOf('\r\n\r\n', i, 'latin1');
        let skip = 4;
        const lf = d.indexOf('\n\n', i, 'latin1');
        if (lf >= 0 && (end < 0 || lf < end)) {
          end = lf;
          skip = 2;
        }
        if (end < 0) {
          if (d.length - i > MAX_HEAD) return this.fail(parseError('HPE_HEADER_OVERFLOW', 'Header overflow'));
          const e = partialHeadError(d.toString('latin1', i));
          if (e) return this.fail(e);
          this.buf = Buffer.from(d.subarray(i));
          return;
        }
        const head = parseHead(d.toString('latin1', i, end));
        i = end + skip;
        if (head instanceof Error) return this.fail(head);
        // 1xx answers (100 Continue...) precede the real one
        if (head.status >= 100 && head.status < 200) continue;
        const te = head.headers['transfer-encoding'];
        const cl = head.headers['content-length'];
        this.keep = head.keepAlive;
        this.idleHint = keepAliveHintMs(head.headers['keep-alive']);
        this.remaining = 0;
        if (te !== undefined && cl !== undefined) {
          return this.fail(parseError('HPE_INVALID_TRANSFER_ENCODING', "Transfer-Encoding can't be present with Content-Length"));
        }
        if (head.status === 204 || head.status === 304) this.state = Body.Length;
        else if (typeof te === 'string' && /(?:^|,)\s*chunked\s*$/i.test(te)) this.state = Body.ChunkSize;
        else if (te !== undefined) this.state = Body.UntilClose;
        else if (cl !== undefined) {
          if (!/^\d+$/.test(cl)) return this.fail(parseError('HPE_INVALID_CONTENT_LENGTH', 'Invalid character in Content-Length'));
          this.state = Body.Length;
          this.remaining = Number(cl);
        } else this.state = Body.UntilClose;
        if (this.state === Body.UntilClose) this.keep = false;
        this.answered = true;
        const h: Http1Handlers = this.h;
        this.deliver = h.head(head.status, head.headers, head.rawHeaders);
        if (this.h !== h) return; // the caller ended it
        continue;
      }
      if (this.state === Body.Length) {
        const n = Math.min(this.remaining, d.length - i);
        if (n > 0 && this.deliver) this.h.data(Buffer.from(d.subarray(i, i + n)));
        if (!this.h) return; // the caller ended it (a size cap)
        i += n;
        this.remaining -= n;
        if (this.remaining > 0) return;
        return this.complete(d.length - i);
      }
      if (this.state === Body.UntilClose) {
        if (i < d.length && this.deliver) this.h.data(Buffer.from(d.subarray(i)));
        return;
      }
      if (this.state === Body.ChunkData) {
        const n = Math.min(this.remaining, d.length - i);
        if (n > 0 && this.deliver) this.h.data(Buffer.from(d.subarray(i, i + n)));
        if (!this.h) return;
        i += n;
        this.remaining -= n;
        if (this.remaining > 0) return;
        this.state = Body.ChunkEnd;
        continue;
      }
      // a line: a chunk's size, the CRLF after its data, or a trailer
      const nl = d.indexOf(10, i);
      if (nl < 0) {
        if (d.length - i > MAX_HEAD) return this.fail(parseError('HPE_HEADER_OVERFLOW', 'Header overflow'));
        if (i < d.length) this.buf = Buffer.from(d.subarray(i));
        return;
      }
      const line = d.toString('latin1', i, nl > i && d[nl - 1] === 13 ? nl - 1 : nl);
      i = nl + 1;
      if (this.state === Body.ChunkEnd) {
        if (line !== '') return this.fail(parseError('HPE_STRICT', 'Expected LF after chunk data'));
        this.state = Body.ChunkSize;
      } else if (this.state === Body.ChunkSize) {
        const size = /^([0-9a-fA-F]{1,15})(?:;.*)?$/.exec(line);
        if (!size) return this.fail(parseError('HPE_INVALID_CHUNK_SIZE', 'Invalid character in chunk size'));
        this.remaining = parseInt(size[1], 16);
        this.state = this.remaining === 0 ? Body.Trailers : Body.ChunkData;
      } else if (line === '') {
        return this.complete(d.length - i);
      }
      // (a trailer line: dropped, as model-http reads none)
    }
  }

  /** The answer is whole: the connection goes back to the pool (if it may), then the caller is told. */
  private complete(leftover: number): void {
    const h = this.h!;
    this.h = undefined;
    this.buf = undefined;
    this.state = Body.Head;
    const idleMs = this.pool.idleFor(this.idleHint);
    // An answer that came before the request was all written (a server refusing a body it did not
    // read): the rest of the body is still queued on the socket, in front of any next request, so the
    // connection is not reused (node:http keeps it out of the pool too until the request has finished).
    if (this.keep && this.sent && leftover === 0 && !this.closed && idleMs > 0) this.pool.release(this, idleMs);
    else this.discard();
    if (this.deliver) h.end();
  }
}

/** Where every connection's bytes are read into: the parser copies what it keeps before the next read. */
const readBuffer = Buffer.allocUnsafe(64 * 1024);

/** node:http's header checks (its _http_common.js tokenRegExp and headerCharRegex). */
const HTTP_TOKEN = /^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/;
const INVALID_HEADER_CHAR = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * Checks a header as node:http checks it. A header that passes is checked here, without loading
 * node:http (bench/results-start.md); one that fails goes to node:http's own check for its error.
 */
function checkHeader(name: string, value: string): void {
  if (typeof name === 'string' && HTTP_TOKEN.test(name) && typeof value === 'string' && !INVALID_HEADER_CHAR.test(value)) return;
  nodeHttp().validateHeaderName(name);
  nodeHttp().validateHeaderValue(name, value);
}

/**
 * A request's line and headers as node:http writes them, without the empty line that ends them: the
 * headers in the order given (name/value pairs), each checked as node:http checks it (throwing its
 * error), then "Connection: keep-alive" unless one of them is a Connection header.
 */
export function requestHead(method: string, path: string, pairs: readonly string[]): string {
  let text = `${method} ${path} HTTP/1.1\r\n`;
  let connection = false;
  for (let i = 0; i < pairs.length; i += 2) {
    checkHeader(pairs[i], pairs[i + 1]);
    text += `${pairs[i]}: ${pairs[i + 1]}\r\n`;
    connection ||= pairs[i].toLowerCase() === 'connection';
  }
  return connection ? text : text + 'Connection: keep-alive\r\n';
}

/** Kept-alive connections by host and port. */
export class Http1Pool {
  private readonly idle = new Map<string, Conn[]>();

  constructor(private readonly idleMs: number) {}

  /**
   * Sends `head` (the request line and headers, ending in the empty line) and `body` to host:port on an
   * idle connection or a new one; returns what ends the request early. `timeoutMs`: how long the
   * connection may be silent before `h.timeout` (0: no limit).
   */
  request(host: string, port: number, request: Buffer, h: Http1Handlers, timeoutMs = 0): { destroy(): void } {
    const key = `${host}:${port}`;
    const list = this.idle.get(key);
    let conn = list?.pop();
    // one the server ended or reset while idle, not yet closed: skip it
    while (conn && (conn.socket.destroyed || !conn.socket.writable)) conn = list?.pop();
    if (conn) {
      conn.socket.ref();
      conn.socket.setTimeout(timeoutMs);
    } else {
      // Reads go straight to the parser through one shared buffer (net's onread), not through the
      // socket's Readable stream and its 'data' events.
      let c: Conn | undefined = undefined;
      const socket = net.connect({
        host,
        port,
        noDelay: true,
        onread: { buffer: readBuffer, callback: (n) => (c?.onData(readBuffer.subarray(0, n)), true) },
      });
      conn = c = new Conn(socket, key, this);
      if (timeoutMs) socket.setTimeout(timeoutMs);
    }
    conn.start(h, request);
    const c = conn;
    // This request's handle: once it is over, the connection may carry another request, which a late
    // destroy() (a decoder failing after the answer was whole) must not touch.
    return { destroy: () => (c.h === h ? c.destroy() : undefined) };
  }

  /**
   * How long a connection may idle in the pool: idleMs, shortened as node:http's agent shortens it
   * to a server's "Keep-Alive: timeout=N" less a second (0 or less: not kept), so it is closed by us
   * before the server closes it.
   */
  idleFor(hintMs: number | undefined): number {
    return hintMs === undefined ? this.idleMs : Math.min(this.idleMs, hintMs - 1000);
  }

  release(c: Conn, idleMs: number): void {
    let list = this.idle.get(c.key);
    if (!list) this.idle.set(c.key, (list = []));
    c.socket.unref();
    c.socket.setTimeout(idleMs);
    list.push(c);
  }

  drop(c: Conn): void {
    const list = this.idle.get(c.key);
    const at = list?.indexOf(c) ?? -1;
    if (at >= 0) list!.splice(at, 1);
  }
}
