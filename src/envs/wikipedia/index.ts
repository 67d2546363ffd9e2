// The Wikipedia environment (§6) and its backends: snapshot (default, offline), live (the paper's
// index.php scraping), api (MediaWiki Action API), record:FILE and replay:FILE.
import type { OptionTable, SettingValue } from '../../options.js';
import type { WikiBackend } from './backend.js';
import type { WikiEnvOptions } from './wiki-env.js';
import { UserError } from '../../errors.js';
import { redactBadUrl } from '../../util/redact.js';
import { ApiBackend } from './api-backend.js';
import { LiveHtmlBackend, DEFAULT_WIKI_URL } from './live-backend.js';
import { RecordingBackend, ReplayBackend } from './record-replay.js';
import { SnapshotBackend, ensureShippedSnapshot } from './snapshot.js';
import type { RetryEvent } from '../http/request.js';
import { splitUrlList } from '../pool.js';
import { refuseUrlQuery } from '../http/base-url.js';
import { PooledWikiBackend } from './pooled-backend.js';

export { WikiEnv, WIKI_RESET_OBSERVATION, WikiCleanStrError, WikiDisambiguationLoopError, type WikiEnvOptions } from './wiki-env.js';
export type { WikiBackend, SearchOutcome } from './backend.js';
// Not buildSnapshot: the plug-ins import this module, and a run must not load the builder (snapshot-build.ts).
export { SnapshotBackend, ensureShippedSnapshot, SHIPPED_PAGES } from './snapshot.js';
export { LiveHtmlBackend, DEFAULT_WIKI_URL } from './live-backend.js';
export { ApiBackend } from './api-backend.js';
export { RecordingBackend, ReplayBackend } from './record-replay.js';
export { cleanStr } from '../../util/python-clean-str.js';
export { pyListRepr, pyStrRepr } from '../../util/python-repr.js';

export interface WikiBackendOptions {
  /** Base URL for live/api/record (default https://en.wikipedia.org). */
  wikiUrl?: string;
  /** The flag wikiUrl was given as, for messages (default --wiki-url; a QA run's --env-url stands for it). */
  wikiUrlFlag?: string;
  /** A snapshot database for `snapshot` (default: the shipped 2017 pages, built on first use). */
  snapshotPath?: string;
  /** Seconds per request attempt (live/api/record). */
  timeoutSeconds?: number;
  /** Attempts on timeouts (default 10, as the notebook). */
  attempts?: number;
  /** Snapshot only: 'notebook-url' (default) searches what the notebook's URL made the site see; 'verbatim' the entity as written. */
  query?: 'notebook-url' | 'verbatim';
  /** Progress of a first-use snapshot build. */
  onBuildProgress?: (pages: number, done: boolean) => void;
  /** live/api/record: called before each backoff sleep (a run counts retries). */
  onRetry?: (e: RetryEvent) => void;
}

const SPECS = 'snapshot, live, api, record:FILE or replay:FILE';

export async function createWikiBackend(spec: string, opts: WikiBackendOptions = {}): Promise<WikiBackend> {
  const http = {
    baseUrl: opts.wikiUrl ?? DEFAULT_WIKI_URL,
    timeoutMs: opts.timeoutSeconds !== undefined ? Math.round(opts.timeoutSeconds * 1000) : undefined,
    attempts: opts.attempts,
    onRetry: opts.onRetry,
  };
  const flag = opts.wikiUrlFlag ?? '--wiki-url';
  // --wiki-url A,B,...: a pool of mirrors for live and api (pooled-backend.ts, docs/cluster.md).
  const urls = opts.wikiUrl !== undefined && opts.wikiUrl.includes(',') ? splitUrlList(opts.wikiUrl, flag) : opts.wikiUrl !== undefined ? [opts.wikiUrl] : [];
  for (const url of urls) {
    refuseUrlQuery(url, flag);
    try {
      const u = new URL(url);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
    } catch {
      throw new UserError(`${flag} ${redactBadUrl(url)}: expected an http(s) base URL such as ${DEFAULT_WIKI_URL}`);
    }
  }
  if (urls.length > 1) {
    if (spec !== 'live' && spec !== 'api') throw new UserError(`${flag}: several mirrors (a pool) serve --wiki live or api only, not --wiki ${spec}`);
    return new PooledWikiBackend(urls, (baseUrl) => (spec === 'live' ? new LiveHtmlBackend({ ...http, baseUrl }) : new ApiBackend({ ...http, baseUrl })), { timeoutMs: http.timeoutMs });
  }
  if (opts.query === 'verbatim' && spec !== 'snapshot') {
    throw new UserError(`--wiki-query verbatim: only --wiki snapshot can search verbatim (${spec} sends what the notebook's URL sends)`);
  }
  if (spec === 'snapshot') {
    return new SnapshotBackend(opts.snapshotPath ?? (await ensureShippedSnapshot(opts.onBuildProgress)), { query: opts.query });
  }
  if (spec === 'live') return new LiveHtmlBackend(http);
  if (spec === 'api') return new ApiBackend(http);
  const m = /^(record|replay):(.+)$/.exec(spec);
  if (m) return m[1] === 'record' ? new RecordingBackend(m[2], http) : new ReplayBackend(m[2]);
  throw new UserError(`--wiki ${spec}: expected ${SPECS}`);
}

/**
 * --wiki as a re-run from a bundle keeps it: record:FILE and replay:FILE name a file on the machine that
 * made the run; recording is live Wikipedia plus a recording, so it stays live, and a replay is dropped.
 */
function wikiInBundle(v: SettingValue): SettingValue | undefined {
  if (typeof v !== 'string') return v;
  if (v.startsWith('record:')) return 'live';
  if (v.startsWith('replay:')) return undefined;
  return v;
}

/** The yargs options of the Wikipedia backend, spread into `run` and `wiki`. */
export const wikiCliOptions = {
  wiki: {
    type: 'string',
    default: 'snapshot',
    describe: `Wikipedia backend: ${SPECS} (snapshot = offline 2017 pages; live = the paper's index.php scraping)`,
    inBundle: wikiInBundle,
  },
  'wiki-url': { operational: true, envBaseUrl: true, type: 'string', describe: `Wikipedia base URL for live, api and record (default ${DEFAULT_WIKI_URL}); several, comma-separated, make a pool of mirrors for live and api (docs/cluster.md)` },
  'wiki-snapshot': { type: 'string', path: true, describe: 'Snapshot database for --wiki snapshot (default: the shipped 2017 pages, built on first use)' },
  'wiki-timeout': { operational: true, type: 'number', default: 30, describe: 'Seconds per Wikipedia request before it is retried (up to 10 attempts)' },
  'wiki-query': {
    type: 'string',
    choices: ['notebook-url', 'verbatim'],
    describe: "Snapshot search term: notebook-url (default, faithful: what the notebook's URL made the site see, AT&T → AT) or verbatim",
  },
  'clean-str-errors': {
    type: 'string',
    choices: ['keep', 'throw'],
    describe: 'Where the released clean_str raises (crashing the paper\'s run): keep the text and count it (default), or throw (the episode is an error)',
  },
} as const satisfies OptionTable;

export type WikiArgv = {
  wiki?: string;
  'wiki-url'?: string;
  'wiki-snapshot'?: string;
  'wiki-timeout'?: number;
  'wiki-query'?: string;
  'clean-str-errors'?: string;
};

/** WikiEnv's options from parsed wikiCliOptions. */
export function wikiEnvOptionsFromArgv(argv: WikiArgv): WikiEnvOptions {
  const c = argv['clean-str-errors'];
  if (c !== undefined && c !== 'keep' && c !== 'throw') throw new UserError(`--clean-str-errors ${c}: expected keep or throw`);
  return c ? { cleanStrErrors: c } : {};
}

/** createWikiBackend from parsed wikiCliOptions. */
export async function wikiBackendFromArgv(
  argv: WikiArgv,
  extra: Pick<WikiBackendOptions, 'onBuildProgress' | 'onRetry' | 'wikiUrlFlag'> = {},
): Promise<WikiBackend> {
  const t = argv['wiki-timeout'];
  if (t !== undefined && !(t > 0)) throw new UserError(`--wiki-timeout ${t}: expected a positive number of seconds`);
  const q = argv['wiki-query'];
  if (q !== undefined && q !== 'notebook-url' && q !== 'verbatim') throw new UserError(`--wiki-query ${q}: expected notebook-url or verbatim`);
  return createWikiBackend(argv.wiki ?? 'snapshot', { wikiUrl: argv['wiki-url'], snapshotPath: argv['wiki-snapshot'], timeoutSeconds: t, query: q, ...extra });
}
