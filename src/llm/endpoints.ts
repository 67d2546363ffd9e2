// Several base URLs serving one model (e.g. a vLLM fleet) behind one CompletionModel, with a balancing
// policy. An endpoint that just failed with a transient error is passed over for a short while when
// another one is available. Each endpoint counts what its attempts got (answered, or failed by kind):
// a fleet member that refuses every call is otherwise invisible, its calls retried on the others.

/**
 * Whether a base URL is OpenAI's own API (its list prices apply, it needs a key, it states no window).
 * The one rule: the host name is api.openai.com; an unparsable URL is not.
 */
export function isOfficialOpenAI(url: string): boolean {
  try {
    return new URL(url.trim()).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

/**
 * The URL of `path` ("/completions", "/models") under a base URL, joined as the openai client joins
 * them (a base ending in "/" loses one), except that a query on the base URL (Azure's
 * `?api-version=`, a key) stays a query, after the path, instead of swallowing it.
 */
export function endpointUrl(baseURL: string, path: string): URL {
  const base = new URL(baseURL);
  const { search } = base;
  base.search = '';
  base.hash = '';
  const url = new URL(base.href + (base.href.endsWith('/') && path.startsWith('/') ? path.slice(1) : path));
  url.search = search;
  return url;
}

export type BalancePolicy = 'round-robin' | 'least-busy';

/**
 * Why an attempt failed at its endpoint (src/llm/retry.ts attemptFailure): nothing listened (refused),
 * the host name did not resolve, no whole answer in time, the connection dropped, an error status the
 * endpoint itself is to blame for (429, 408, 409, 5xx), a 200 body that is no completion, an answer
 * past --llm-max-bytes, or anything else.
 */
export type EndpointFailure = 'refused' | 'unknown host' | 'timeout' | 'dropped' | `HTTP ${number}` | 'malformed' | 'too large' | 'other';

/**
 * What one endpoint's attempts got, as a run reports it: attempts = answered + the failures. An answer
 * is a completion or an error about the request any endpoint would give (400 context window, 401...);
 * an attempt we aborted (Ctrl-C, a stop) is not counted.
 */
export interface EndpointTally {
  /** The endpoint's label: scheme, host, port and path, never credentials or query (safeEndpointLabel). */
  endpoint: string;
  attempts: number;
  answered: number;
  failures: Partial<Record<EndpointFailure, number>>;
}

export interface Endpoint<C> {
  /** Base URL without credentials, query or trailing slash (safe for logs and manifests). */
  readonly label: string;
  readonly client: C;
  inFlight: number;
  /** Requests sent to this endpoint. */
  sent: number;
  /** Attempts answered (see EndpointTally). */
  answered: number;
  /** Attempts failed, by kind. */
  failures: Partial<Record<EndpointFailure, number>>;
  /** Time (ms since epoch) until which the endpoint is avoided after a transient failure. */
  coolUntil: number;
}

export class EndpointPool<C> {
  private next = 0;
  readonly endpoints: Endpoint<C>[];

  constructor(
    items: Array<{ label: string; client: C }>,
    readonly policy: BalancePolicy,
  ) {
    if (items.length === 0) throw new RangeError('at least one endpoint is required');
    this.endpoints = items.map((i) => ({
      label: i.label,
      client: i.client,
      inFlight: 0,
      sent: 0,
      answered: 0,
      failures: {},
      coolUntil: 0,
    }));
  }

  /** Counts what an attempt at `ep` got: answered, a failure of that kind, or nothing (we aborted it). */
  record(ep: Endpoint<C>, outcome: 'answered' | EndpointFailure | undefined): void {
    if (outcome === 'answered') ep.answered++;
    else if (outcome !== undefined) ep.failures[outcome] = (ep.failures[outcome] ?? 0) + 1;
  }

  /** Each endpoint's tally so far, in the order given. */
  tallies(): EndpointTally[] {
    return this.endpoints.map((e) => {
      const failures = { ...e.failures };
      const failed = Object.values(failures).reduce((a: number, n) => a + (n ?? 0), 0);
      // its label: a query is never shown, as a key may sit under any name there
      return { endpoint: e.label, attempts: e.answered + failed, answered: e.answered, failures };
    });
  }

  /**
   * Picks the endpoint for the next request (the caller counts it in flight and sent). `unreachable`:
   * the endpoints this call already found unreachable, never picked again while another one is left
   * (a cooling-off period ends, and least-busy favours an endpoint that refuses at once).
   */
  pick(now: number, unreachable: ReadonlySet<Endpoint<C>> = new Set()): Endpoint<C> {
    const eps = this.endpoints;
    const reachable = eps.filter((e) => !unreachable.has(e));
    const left = reachable.length ? reachable : eps;
    const healthy = left.filter((e) => e.coolUntil <= now);
    const candidates = healthy.length ? healthy : left;
    if (this.policy === 'round-robin') {
      // Walk the ring from the cursor to the first candidate.
      for (let k = 0; k < eps.length; k++) {
        const e = eps[(this.next + k) % eps.length];
        if (candidates.includes(e)) {
          this.next = (eps.indexOf(e) + 1) % eps.length;
          return e;
        }
      }
    }
    // least-busy: fewest in flight; ties broken in ring order from the cursor so load spreads evenly.
    let best: Endpoint<C> | undefined;
    for (let k = 0; k < eps.length; k++) {
      const e = eps[(this.next + k) % eps.length];
      if (!candidates.includes(e)) continue;
      if (!best || e.inFlight < best.inFlight) best = e;
    }
    this.next = (eps.indexOf(best!) + 1) % eps.length;
    return best!;
  }
}

/** A base URL reduced to what may be shown: scheme, host, port, path (no user:password, query, fragment). */
export function safeEndpointLabel(baseURL: string): string {
  try {
    const u = new URL(baseURL);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return '<invalid URL>';
  }
}
