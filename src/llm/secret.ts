// API keys are wrapped so that JSON.stringify, util.inspect, template strings and error messages never
// show them (DEVELOPERS.md: keys never reach disk, logs, manifests or reports).
import { inspect } from 'node:util';
import { matchableSecret, redactUrlsIn, replaceSecretValues, urlCredentials } from '../util/redact.js';

export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  /** The key itself: only for the Authorization header. */
  reveal(): string {
    return this.#value;
  }
  toString(): string {
    return '[redacted]';
  }
  toJSON(): string {
    return '[redacted]';
  }
  [inspect.custom](): string {
    return 'Secret([redacted])';
  }
}

/**
 * Text a server sent (an error message), safe to show: every URL's credentials as "***"
 * (src/util/redact.ts), then the API key and the credentials of the base URLs wherever they appear
 * by value (a gateway may quote a key from the query it was sent), as written or percent-encoded in
 * any way (one that echoes the URL it was sent may show a "/", "+", "=" or "%" of a key as %2F, %2b,
 * %3D, %25, or keep some as they are): replaceSecretValues, for keys long enough (matchableSecret).
 */
export function redactServerText(text: string, key: Secret | undefined, baseURLs: readonly string[]): string {
  const values = [key?.reveal(), ...baseURLs.flatMap(urlCredentials)].filter(matchableSecret);
  return replaceSecretValues(redactUrlsIn(text), values, '[redacted]');
}
