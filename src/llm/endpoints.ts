// Several base URLs serving one model (e.g. a vLLM fleet) behind one CompletionModel, with a balancing
// policy. An endpoint that just failed with a transient error is passed over for a short while when
// another one is available.

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

export interface Endpoint<C> {
  /** Base URL without credentials, query or trailing slash (safe for logs and manifests). */
  readonly label: string;
  readonly client: C;
  inFlight: number;
  /** Requests sent to this endpoint. */
  sent: number;
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
    this.endpoints = items.map((i) => ({ label: i.label, client: i.client, inFlight: 0, sent: 0, coolUntil: 0 }));
  }

  /** Picks the endpoint for the next request (does not count it as in flight: see `begin`). */
  pick(now: number): Endpoint<C> {
    const eps = this.endpoints;
    const healthy = eps.filter((e) => e.coolUntil <= now);
    const candidates = healthy.length ? healthy : eps;
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
