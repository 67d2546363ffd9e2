// The closing lines' word on a fleet of model endpoints (`--base-url A,B`, docs/cluster.md): a call
// that failed on one endpoint is retried on another, so the run's figures are right and it ends
// "[complete]", while one of the servers paid for may have refused every call. Each endpoint that
// failed an attempt gets one line; a fleet whose every endpoint answered every attempt gets none.
import type { EndpointFailure, EndpointTally } from '../llm/endpoints.js';

/** Each kind of failure as a count reads: [one, many]. */
const FAILURE_WORDS: Record<Exclude<EndpointFailure, `HTTP ${number}`>, [string, string]> = {
  refused: ['refused connection', 'refused connections'],
  'unknown host': ['host name not found', 'host names not found'],
  timeout: ['timeout', 'timeouts'],
  dropped: ['dropped connection', 'dropped connections'],
  malformed: ['malformed answer', 'malformed answers'],
  'too large': ['answer over --llm-max-bytes', 'answers over --llm-max-bytes'],
  other: ['other failure', 'other failures'],
};

function failureText(kind: EndpointFailure, n: number): string {
  if (kind.startsWith('HTTP ')) return `${n} ${kind} ${n === 1 ? 'response' : 'responses'}`;
  const [one, many] = FAILURE_WORDS[kind as keyof typeof FAILURE_WORDS];
  return `${n} ${n === 1 ? one : many}`;
}

/** The tallies of several runs (an experiment's, a combination's base runs') summed per endpoint, in first-seen order. */
export function sumTallies(lists: readonly (readonly EndpointTally[] | undefined)[]): EndpointTally[] {
  const by = new Map<string, EndpointTally>();
  for (const t of lists.flatMap((l) => l ?? [])) {
    const sum = by.get(t.endpoint) ?? { endpoint: t.endpoint, attempts: 0, answered: 0, failures: {} };
    sum.attempts += t.attempts;
    sum.answered += t.answered;
    for (const [k, n] of Object.entries(t.failures) as [EndpointFailure, number][]) sum.failures[k] = (sum.failures[k] ?? 0) + n;
    by.set(t.endpoint, sum);
  }
  return [...by.values()];
}

/**
 * One line per endpoint that failed at least once: "model endpoint URL: answered 0 of its 14 attempts
 * (14 refused connections)", the kinds most frequent first. Tallies of a single endpoint are not
 * passed here (a run keeps them only for a fleet: src/run/session-end.ts).
 */
export function endpointLines(tallies: readonly EndpointTally[]): string[] {
  return tallies.flatMap((t) => {
    const kinds = (Object.entries(t.failures) as [EndpointFailure, number][])
      .filter(([, n]) => n > 0)
      .sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
    if (!kinds.length) return [];
    const why = kinds.map(([k, n]) => failureText(k, n)).join(', ');
    return [`model endpoint ${t.endpoint}: answered ${t.answered} of its ${t.attempts} attempt${t.attempts === 1 ? '' : 's'} (${why})`];
  });
}
