// A flag as a plain description, so that modules other than src/cli can declare the options they
// take without knowing the argument parser (src/cli turns these into yargs options).
import { UserError } from './errors.js';

export interface OptionSpec {
  type: 'string' | 'number' | 'boolean';
  describe: string;
  choices?: readonly string[];
  default?: string | number | boolean;
  /** Hidden from --help (internal or deprecated). */
  hidden?: boolean;
  /** Heading the flag is listed under in --help ("Model:", "ALFWorld:"). */
  group?: string;
  /**
   * Steers one invocation only (--resume, --retry-errors): not a setting of the run, so never in an
   * experiment file, a manifest's settings or a bundle.
   */
  session?: true;
  /**
   * Says where or how the run reached its servers and guarded against them (an address, a key,
   * retries, timeouts, rates, limits on an answer, the completion cache, prices, the folder it wrote
   * to), not what it computed: a report does not tell runs apart by it (src/report/grouping.ts).
   */
  operational?: true;
  /**
   * Names a file or folder on the machine that made the run (a cache, a snapshot, a game list): a
   * re-run from a bundle never takes it from the bundle (src/run/bundle-settings.ts).
   */
  path?: true;
  /**
   * For a flag only some of whose values name a file (--wiki record:FILE): the value a re-run from a
   * bundle keeps instead of the stored one, or undefined to drop it. Absent: the value is kept as stored.
   */
  inBundle?: (value: SettingValue) => SettingValue | undefined;
  /**
   * Names an environment server's base URL, or a comma-separated pool of them (--wiki-url, --env-url):
   * its clients append their own path and query, so it may carry none. A run refuses one with a query
   * or fragment when it is planned, before anything is opened or written, a dry run too
   * (src/envs/http/base-url.ts refuseUrlQueries).
   */
  envBaseUrl?: true;
}

/** A stored setting's value as the option tables check it: a flag's type, or a list for a repeated string flag. */
export type SettingValue = string | number | boolean | readonly string[];

export type OptionTable = Record<string, OptionSpec>;

/** Raw option values keyed by camelCase flag name, as given (CLI or experiment file) plus defaults. */
export type Settings = Record<string, unknown>;

/**
 * A --limit value: a positive integer (number or decimal string), or undefined for no limit. The one
 * rule for --limit: `run`, `data sample` and every benchmark's split() validate through it.
 */
export function parseLimit(raw: unknown): number | undefined {
  if (raw === undefined || raw === null) return undefined;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\+?\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0) {
    const shown =
      typeof raw === 'string'
        ? JSON.stringify(raw)
        : typeof raw === 'number' && Number.isNaN(raw)
          ? 'something that is not a number'
          : String(raw);
    throw new UserError(`--limit: expected a positive integer, got ${shown}`);
  }
  return n;
}
