// The model's traffic counters (calls, HTTP requests, retries, cache hits, requests in flight), for
// library users and tests (LlmModel.totals()). Tokens and money are not counted here: every such figure
// comes from the run's meter (src/run/meter.ts).

export interface LlmTotals {
  /** complete() calls that returned. */
  calls: number;
  /** complete() calls that failed (after retries). */
  failedCalls: number;
  /** HTTP requests sent (attempts, including retried ones). */
  httpRequests: number;
  /** Attempts that were retried (429, 5xx, timeouts, dropped connections, malformed bodies). */
  retries: number;
  /** Calls answered entirely from the cache. */
  cacheHits: number;
  cachedChoices: number;
  freshChoices: number;
  /** Requests in flight right now. */
  inFlight: number;
}

export class LlmAccumulator {
  private t: LlmTotals = {
    calls: 0,
    failedCalls: 0,
    httpRequests: 0,
    retries: 0,
    cacheHits: 0,
    cachedChoices: 0,
    freshChoices: 0,
    inFlight: 0,
  };

  /** A copy of the totals. */
  snapshot(): LlmTotals {
    return { ...this.t };
  }

  add(delta: Partial<LlmTotals>): void {
    for (const [k, v] of Object.entries(delta) as Array<[keyof LlmTotals, number]>) this.t[k] += v;
  }
}
