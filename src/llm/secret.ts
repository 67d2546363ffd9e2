// API keys are wrapped so that JSON.stringify, util.inspect, template strings and error messages never
// show them (DEVELOPERS.md: keys never reach disk, logs, manifests or reports).
import { inspect } from 'node:util';

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
    if (v && v.length >= 4) out = out.split(v).join('[redacted]');
  }
  return out;
}
