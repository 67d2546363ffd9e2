// The flags ALFWorld adds to `run` and `env play`, and their validation (UserError naming the flag).
import { UserError } from '../../errors.js';
import { splitUrlList } from '../../envs/pool.js';
import { refuseUrlQuery } from '../../envs/http/base-url.js';
import { redactBadUrl } from '../../util/redact.js';
import type { OptionTable, Settings } from '../../options.js';
import { GAMES_FILE, gamesSha256, loadGameListFile, paperGameList } from './games.js';
import { parsePromptSet, type PromptSet } from './prompt.js';
import type { ObsMode } from './env.js';
import { JsonFields } from '../../util/json-fields.js';

export const DEFAULT_ENV_TIMEOUT_S = 120;

// Defaults are applied in code (the resolve* functions below), not declared. A run gets only its own
// benchmark's declared defaults (runDefaults, src/run/deps.ts), so declaring them would be harmless,
// but resolving in code also covers settings that never went through runDefaults (createEnv called
// directly by the library API or tests).
export const alfworldOptions = {
  'env-url': {
    operational: true,
    envBaseUrl: true,
    type: 'string',
    describe:
      "ALFWorld server speaking the agentenv-alfworld protocol (envs/alfworld/server.py, or AgentGym's agentenv-alfworld), e.g. http://127.0.0.1:36001 (required); several, comma-separated, make a pool (docs/cluster.md)",
  },
  games: {
    type: 'string',
    path: true,
    describe: `JSON list of "<task dir>/<trial>" game names in the server's game-id order (default: the paper's 134 valid_unseen games, ${GAMES_FILE})`,
  },
  'alfworld-obs': {
    type: 'string',
    choices: ['clean', 'raw'],
    describe:
      'clean (default): the server already drops the opening banner and "You arrive at loc N. " (agentenv-alfworld, envs/alfworld/server.py); raw: the server sends TextWorld\'s text and the adapter cleans it as the notebook does',
  },
  'prompt-set': {
    type: 'string',
    describe: "Exemplars i,j of the 3 per task type, shown in that order (default 1,0, the notebook's; Table 3 runs all 6 ordered pairs)",
  },
  // A generic name other benchmarks may declare too (the CLI lists the first declaration once, and
  // each run gets its own benchmark's default): ALFWorld's applies in code when the flag is absent.
  'env-timeout': {
    operational: true,
    type: 'number',
    describe: `Seconds per environment-server request before it counts as failed (ALFWorld: a reset loads a game, allow time) [ALFWorld default: ${DEFAULT_ENV_TIMEOUT_S}]`,
  },
} as const satisfies OptionTable;

export interface GameList {
  games: string[];
  /** The --games file as given, or the vendored file's repo path. */
  source: string;
  /** How messages name it: "--games FILE" or the vendored file. */
  listName: string;
  vendored: boolean;
  sha256: string;
  /** name → server game id (its position). */
  ids: Map<string, number>;
}

export interface AlfworldEnvSettings {
  envUrl: string;
  /** --env-url A,B,...: a pool of servers (src/envs/pool.ts); [envUrl] for one server. */
  envUrls?: string[];
  obs: ObsMode;
  timeoutMs: number;
  gameList: GameList;
}

export function resolveGameList(games: unknown): GameList {
  if (games !== undefined && games !== null && typeof games !== 'string')
    throw new UserError(`--games: expected a file name, got ${JSON.stringify(games)}`);
  const file = games ?? '';
  const vendored = file === '';
  const list = vendored ? paperGameList() : loadGameListFile(file);
  const source = vendored ? GAMES_FILE : file;
  return {
    games: list,
    source,
    listName: vendored ? `the game list ${GAMES_FILE}` : `--games ${file}`,
    vendored,
    sha256: gamesSha256(list),
    ids: new Map(list.map((g, i) => [g, i])),
  };
}

export function resolveObsMode(v: unknown): ObsMode {
  if (v === undefined || v === null) return 'clean';
  if (v !== 'clean' && v !== 'raw') throw new UserError(`--alfworld-obs ${JSON.stringify(v)}: expected clean or raw`);
  return v;
}

export function resolveEnvUrl(v: unknown): string {
  if (v === undefined || v === null || v === '') {
    throw new UserError(
      '--env-url: ALFWorld needs a server speaking the agentenv-alfworld protocol, e.g. --env-url http://127.0.0.1:36001 (envs/alfworld/README.md says how to start one)',
    );
  }
  if (typeof v !== 'string') throw new UserError(`--env-url: expected a URL, got ${JSON.stringify(v)}`);
  refuseUrlQuery(v, '--env-url');
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new UserError(`--env-url ${redactBadUrl(v)}: not a URL (expected e.g. http://127.0.0.1:36001)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new UserError(`--env-url ${redactBadUrl(v)}: expected an http:// or https:// URL`);
  return v;
}

export function resolveTimeoutMs(v: unknown): number {
  if (v === undefined || v === null) return DEFAULT_ENV_TIMEOUT_S * 1000;
  if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v))
    throw new UserError(`--env-timeout ${JSON.stringify(v)}: expected a positive number of seconds`);
  return Math.round(v * 1000);
}

/** A run's ALFWorld options, parsed once from its settings (parseAlfworldOptions). */
export interface AlfworldOptions {
  /** --env-url as given (one URL or a comma list): a query refused when the run is planned (OptionSpec.envBaseUrl), the rest checked when the environment is built (a dry run needs none). */
  envUrl?: string;
  obs: ObsMode;
  timeoutMs: number;
  /** --games FILE as given; absent: the paper's 134 games. */
  games?: string;
  /** The games of --games FILE, or the paper's list (read once). */
  gameList: GameList;
  promptSet: PromptSet;
}

/** Every ALFWorld flag of a run's settings, each checked once (UserError naming it). */
export function parseAlfworldOptions(settings: Settings): AlfworldOptions {
  const f = JsonFields.orEmpty(settings);
  const obs = resolveObsMode(f.get('alfworldObs'));
  const timeoutMs = resolveTimeoutMs(f.get('envTimeout'));
  const games = f.get('games');
  const gameList = resolveGameList(games);
  const envUrl = f.get('envUrl');
  if (envUrl !== undefined && envUrl !== null && typeof envUrl !== 'string')
    throw new UserError(`--env-url: expected a URL, got ${JSON.stringify(envUrl)}`);
  return {
    ...(typeof envUrl === 'string' && envUrl !== '' ? { envUrl } : {}),
    obs,
    timeoutMs,
    ...(typeof games === 'string' && games !== '' ? { games } : {}),
    gameList,
    promptSet: parsePromptSet(f.get('promptSet')),
  };
}

/** The environment's settings from a run's options: --env-url is required here. */
export function envSettingsOf(o: AlfworldOptions): AlfworldEnvSettings {
  const { obs, timeoutMs, gameList } = o;
  if (o.envUrl !== undefined && o.envUrl.includes(',')) {
    const envUrls = splitUrlList(o.envUrl, '--env-url').map(resolveEnvUrl);
    return { envUrl: envUrls[0], envUrls, obs, timeoutMs, gameList };
  }
  return { envUrl: resolveEnvUrl(o.envUrl), obs, timeoutMs, gameList };
}

/** All of the environment's flags from settings, validated (tests and scripts that build a handle directly). */
export function resolveEnvSettings(settings: Settings): AlfworldEnvSettings {
  return envSettingsOf(parseAlfworldOptions(settings));
}
