// The flags WebShop adds to `run` and `env play`, and their validation (UserError naming the flag).
// The timeout is --webshop-timeout, not --env-timeout: scripts use that name, and a flag two benchmarks
// share is listed once in --help with the first declaration's text (ALFWorld's --env-timeout, "[ALFWorld
// default: 120]"). Defaults do not mix: a run gets only its own benchmark's declared defaults
// (runDefaults, src/run/deps.ts).
import { UserError } from '../../errors.js';
import { splitUrlList } from '../../envs/pool.js';
import { refuseUrlQuery } from '../../envs/http/base-url.js';
import { redactBadUrl } from '../../util/redact.js';
import type { OptionTable, Settings } from '../../options.js';
import { GOALS_MODES, type GoalsMode } from './goals.js';
import { JsonFields } from '../../util/json-fields.js';

export const DEFAULT_ENV_TIMEOUT_S = 60;
export const SERVER_ERROR_MODES = ['observe', 'fail'] as const;
export type ServerErrorMode = (typeof SERVER_ERROR_MODES)[number];

export const webshopOptions = {
  'env-url': {
    operational: true,
    envBaseUrl: true,
    type: 'string',
    describe:
      "The WebShop site (princeton-nlp/WebShop web_agent_site/app.py; the notebook's WEBSHOP_URL), e.g. http://127.0.0.1:3000 (required; see envs/webshop/README.md); several, comma-separated, make a pool (docs/cluster.md)",
  },
  'webshop-goals': {
    type: 'string',
    choices: GOALS_MODES,
    default: 'check',
    describe:
      "Compare each session's instruction with the paper's goals of fixed_0..fixed_99 (envs/webshop/webshop.fixed100.json): check (default: warn and count), strict (stop the run on a differing instruction), off",
  },
  'webshop-server-errors': {
    type: 'string',
    choices: SERVER_ERROR_MODES,
    default: 'observe',
    describe:
      'A page the site answers with HTTP 500 three times (its app raised on that URL, e.g. a query starting with "["): observe (default, the notebook: its text is the observation) or fail (the episode is an environment error)',
  },
  'webshop-timeout': {
    operational: true,
    type: 'number',
    default: DEFAULT_ENV_TIMEOUT_S,
    describe: `Seconds per WebShop site request before it counts as failed and is retried [default: ${DEFAULT_ENV_TIMEOUT_S}]`,
  },
} as const satisfies OptionTable;

/** A run's WebShop options, parsed once from its settings (parseWebshopOptions). */
export interface WebshopOptions {
  /** --env-url as given (one URL or a comma list): a query refused when the run is planned (OptionSpec.envBaseUrl), the rest checked when the environment is built (a dry run needs none). */
  envUrl?: string;
  timeoutS: number;
  goals: GoalsMode;
  serverErrors: ServerErrorMode;
}

export interface WebshopSettings {
  /** The notebook's WEBSHOP_URL (no trailing slash). */
  baseUrl: string;
  /** --env-url A,B,...: a pool of sites (src/envs/pool.ts); absent for one site. */
  baseUrls?: string[];
  timeoutMs: number;
  goals: GoalsMode;
  serverErrors: ServerErrorMode;
}

export function resolveGoalsMode(v: unknown): GoalsMode {
  if (v === undefined || v === null) return 'check';
  const mode = GOALS_MODES.find((m) => m === v);
  if (mode === undefined) throw new UserError(`--webshop-goals ${JSON.stringify(v)}: expected one of ${GOALS_MODES.join(', ')}`);
  return mode;
}

/** The WebShop options of a run's settings, each flag checked once (UserError naming it). */
export function parseWebshopOptions(settings: Settings): WebshopOptions {
  const f = JsonFields.orEmpty(settings);
  const envUrl = f.get('envUrl');
  if (envUrl !== undefined && envUrl !== null && typeof envUrl !== 'string')
    throw new UserError(`--env-url: expected a URL, got ${JSON.stringify(envUrl)}`);
  const timeout = f.get('webshopTimeout') ?? DEFAULT_ENV_TIMEOUT_S;
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0) {
    throw new UserError(`--webshop-timeout: expected a positive number of seconds, got ${JSON.stringify(timeout)}`);
  }
  const se = f.get('webshopServerErrors') ?? 'observe';
  const serverErrors = SERVER_ERROR_MODES.find((m) => m === se);
  if (serverErrors === undefined) throw new UserError(`--webshop-server-errors ${JSON.stringify(se)}: expected observe or fail`);
  return {
    ...(typeof envUrl === 'string' && envUrl !== '' ? { envUrl } : {}),
    timeoutS: timeout,
    goals: resolveGoalsMode(f.get('webshopGoals')),
    serverErrors,
  };
}

/** The site (or pool of sites) of a run: --env-url is required here. */
export function resolveWebshopSettings(options: WebshopOptions): WebshopSettings {
  // --env-url A,B,...: a pool of sites (src/envs/pool.ts), each URL validated as a single one.
  if (options.envUrl !== undefined && options.envUrl.includes(',')) {
    const each = splitUrlList(options.envUrl, '--env-url').map((u) => resolveWebshopSettings({ ...options, envUrl: u }));
    return { ...each[0], baseUrls: each.map((e) => e.baseUrl) };
  }
  const raw = options.envUrl;
  if (raw === undefined || raw === '') {
    throw new UserError('--env-url: the WebShop site is required (e.g. --env-url http://127.0.0.1:3000; see envs/webshop/README.md)');
  }
  refuseUrlQuery(raw, '--env-url');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UserError(`--env-url ${redactBadUrl(raw)}: not a URL (expected e.g. http://127.0.0.1:3000)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UserError(`--env-url: expected an http:// or https:// URL, got ${url.protocol}`);
  return {
    // The notebook formats f'{WEBSHOP_URL}/{session}': a trailing slash would double it.
    baseUrl: raw.replace(/\/+$/, ''),
    timeoutMs: Math.round(options.timeoutS * 1000),
    goals: options.goals,
    serverErrors: options.serverErrors,
  };
}
