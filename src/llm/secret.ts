// API keys are wrapped so that JSON.stringify, util.inspect, template strings and error messages never
// show them (DEVELOPERS.md: keys never reach disk, logs, manifests or reports).
import { inspect } from 'node:util';
import { matchableSecret, redactUrlsIn, urlCredentials } from '../util/redact.js';

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

/** Replaces every occurrence of each secret in `text` (defence in depth for server-supplied messages). */
export function redact(text: string, secrets: Array<Secret | string | undefined>): string {
  let out = text;
  for (const s of secrets) {
    const v = s instanceof Secret ? s.reveal() : s;
    if (matchableSecret(v)) out = out.split(v).join('[redacted]');
  }
  return out;
}

/**
 * Text a server sent (an error message), safe to show: every URL's credentials as "***"
 * (src/util/redact.ts), then the API key and the credentials of the base URLs wherever they appear
 * by value (a gateway may quote a key from the query it was sent), each also percent-encoded (one that
 * echoes the URL it was sent shows a "/", "+", "=" or "%" of a key as %2F, %2B, %3D, %25).
 */
export function redactServerText(text: string, key: Secret | undefined, baseURLs: readonly string[]): string {
  const values = [key?.reveal(), ...baseURLs.flatMap(urlCredentials)].filter(matchableSecret);
  return redact(
    redactUrlsIn(text),
    values.flatMap((v) => (encodeURIComponent(v) === v ? [v] : [v, encodeURIComponent(v)])),
  );
}
