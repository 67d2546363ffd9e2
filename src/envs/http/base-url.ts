// An environment server's URL (--wiki-url, --env-url) is a base URL: the clients append their own path
// and query to it (docs/protocol.md §6, §8, §9), and none of these servers takes a query of its own. A
// query or fragment on it would be dropped, so a key put there would never be sent and the server's
// 401/403 would be retried as an outage: it is refused at once (README "Reliability"), by a run when it
// is planned, a dry run too (OptionSpec.envBaseUrl, src/run/episode-plan.ts), and by the clients when
// built (env play, the library API). The model's --base-url is not one of these: it keeps its query
// (src/llm/endpoints.ts).
import { UserError } from '../../errors.js';
import { REDACTED, holdsRedactedCredentials, redactBadUrl } from '../../util/redact.js';

const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//;

/** The URLs of a flag's value: one URL, or a comma-separated pool of them, each trimmed (src/envs/pool.ts splitUrlList). */
export const poolUrls = (value: string): string[] => (value.includes(',') ? value.split(',').map((u) => u.trim()) : [value]);

/**
 * Throws a UserError naming `flag` when `url` holds a "?" or "#". The message shows the URL up to that
 * character (credentials redacted), never the query or fragment: their values may be keys.
 */
export function refuseUrlQuery(url: string, flag: string): void {
  const at = url.search(/[?#]/);
  if (at < 0) return;
  // A "?" or "#" before an "@" with no "/" between the scheme and it may be inside a password: then
  // neither the userinfo nor anything after the host is shown.
  const scheme = SCHEME.exec(url)?.[0] ?? '';
  const userinfoEnd = url.lastIndexOf('@');
  const inPassword = userinfoEnd > at && !url.slice(scheme.length, userinfoEnd).includes('/');
  const shown = inPassword
    ? `${scheme}${REDACTED}@${url.slice(userinfoEnd + 1).split(/[/?#\\&=;]/)[0]}...`
    : `${redactBadUrl(url.slice(0, at))}${url[at]}...`;
  throw new UserError(
    `${flag} ${shown}: the URL may not carry a query or fragment: give the site's base URL; this server takes no query (a key in it would never be sent)`,
  );
}

/** refuseUrlQuery for each URL of a flag's value (poolUrls). */
export function refuseUrlQueries(value: string, flag: string): void {
  for (const url of poolUrls(value)) refuseUrlQuery(url, flag);
}

/**
 * A recorded environment server's URL (one, or a pool) as a resume can give it again (the resume
 * command `run` prints): each URL without its query and fragment, refused now and never sent, and a
 * credential that was in one, as versions before such URLs were refused recorded it ("?key=***"),
 * shown where this server takes it, the userinfo ("***@", sent as Basic auth). `credentialsInQuery`:
 * some URL's credential was in its query, not its userinfo (a resume without the flag is told to give
 * it again without its query: src/run/resolve-runs.ts).
 */
export function resumableBaseUrl(recorded: string): { url: string; credentialsInQuery: boolean } {
  if (recorded.search(/[?#]/) < 0) return { url: recorded, credentialsInQuery: false };
  let credentialsInQuery = false;
  const urls = poolUrls(recorded).map((url) => {
    const at = url.search(/[?#]/);
    if (at < 0) return url;
    const base = url.slice(0, at);
    if (!holdsRedactedCredentials(url) || holdsRedactedCredentials(base)) return base;
    credentialsInQuery = true;
    const scheme = SCHEME.exec(base)?.[0] ?? '';
    return `${scheme}${REDACTED}@${base.slice(scheme.length)}`;
  });
  return { url: urls.join(','), credentialsInQuery };
}

/**
 * The scheme, credentials and host of an environment server's URL: where its clients send their
 * requests (their own paths appended), credentials included, sent as Basic auth as requests sends
 * them (src/envs/http/request.ts).
 */
export function authorityOf(baseUrl: string): string {
  const u = new URL(baseUrl);
  return `${u.protocol}//${u.username || u.password ? `${u.username}:${u.password}@` : ''}${u.host}`;
}
