// The environment side of a HotpotQA/FEVER run: one Wikipedia backend per run (snapshot, live, api,
// record, replay) and, per item, the task wrapper over a fresh WikiEnv (§4, §6).
import { WikiEnv, describeWikiEnv, type WikiEnvOptions } from '../../envs/wikipedia/wiki-env.js';
import { wikiBackendFromArgv, wikiEnvOptionsFromArgv, type WikiArgv } from '../../envs/wikipedia/index.js';
import type { Settings } from '../../options.js';
import { UserError } from '../../errors.js';
import { JsonFields } from '../../util/json-fields.js';
import type { EnvHandle, EnvHooks } from '../types.js';
import { QAEpisodeEnv } from './episode-env.js';
import type { Task } from './types.js';

/** The shipped 2017 pages the offline snapshot is built from (hashed into manifests of snapshot runs). */
export const WIKI_SNAPSHOT_FILE = 'envs/wikipedia/hotpotqa-2017/pages.jsonl';

/**
 * The Wikipedia flags of a run as the backend factory takes them, and the flag that named the site
 * when it was not --wiki-url (for messages). `--env-url URL` (the flag every benchmark shares) names a
 * Wikipedia site: it stands for --wiki-url URL, and turns the default offline snapshot into --wiki live.
 */
export function wikiArgv(settings: Settings): { argv: WikiArgv; urlFlag?: '--env-url' } {
  const f = JsonFields.orEmpty(settings);
  const str = (key: string, flag: string): string | undefined => {
    const v = f.get(key);
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw new UserError(`--${flag}: expected a string, got ${JSON.stringify(v)}`);
    return v;
  };
  const envUrl = str('envUrl', 'env-url');
  let wiki = str('wiki', 'wiki');
  if (envUrl !== undefined && (wiki === undefined || wiki === 'snapshot')) wiki = 'live';
  const timeout = f.get('wikiTimeout');
  if (timeout !== undefined && timeout !== null && typeof timeout !== 'number')
    throw new UserError(`--wiki-timeout: expected a number of seconds, got ${JSON.stringify(timeout)}`);
  const wikiUrl = str('wikiUrl', 'wiki-url');
  const argv: WikiArgv = {
    wiki,
    'wiki-url': wikiUrl ?? envUrl,
    'wiki-snapshot': str('wikiSnapshot', 'wiki-snapshot'),
    'wiki-timeout': timeout ?? undefined,
    'wiki-query': str('wikiQuery', 'wiki-query'),
    'clean-str-errors': str('cleanStrErrors', 'clean-str-errors'),
  };
  return wikiUrl === undefined && envUrl !== undefined ? { argv, urlFlag: '--env-url' } : { argv };
}

/**
 * Flags given together that contradict each other (Benchmark.checkGivenFlags). `--env-url` stands for a
 * Wikipedia site (live, wikiArgv); with an explicit `--wiki snapshot` the run would silently be live.
 */
export function checkWikiFlagsGiven(given: Settings): void {
  const f = JsonFields.orEmpty(given);
  if (f.get('envUrl') !== undefined && f.get('wiki') === 'snapshot') {
    throw new UserError(
      '--env-url and --wiki snapshot contradict each other: --env-url names a live site, --wiki snapshot the offline pages (give one)',
    );
  }
}

/** Whether these Wikipedia flags read the offline snapshot (the default). */
export function usesSnapshot(argv: WikiArgv): boolean {
  return (argv.wiki ?? 'snapshot') === 'snapshot';
}

export async function createWikiEnvHandle(
  argv: WikiArgv,
  task: Pick<Task, 'observationLabel' | 'score'>,
  hooks: EnvHooks = {},
  urlFlag?: string,
): Promise<EnvHandle> {
  // validated before the backend exists: a bad value must not first build a snapshot or open a file
  const envOptions: WikiEnvOptions = wikiEnvOptionsFromArgv(argv);
  // hooks.onRetry: the run's progress line counts Wikipedia retries (README "Reliability")
  const backend = await wikiBackendFromArgv(argv, {
    ...(hooks.onRetry ? { onRetry: (e) => hooks.onRetry!(e) } : {}),
    ...(urlFlag ? { wikiUrlFlag: urlFlag } : {}),
  });
  return {
    makeEnv: (item) => new QAEpisodeEnv(new WikiEnv(backend, envOptions), task, item),
    // The backend (kind, snapshot sha256, base URL) and WikiEnv's own deviations (§6).
    describe: () => ({ ...backend.describe(), env: describeWikiEnv(envOptions) }),
    identity: () => ({ ...(backend.identity?.() ?? backend.describe()), env: describeWikiEnv(envOptions) }),
    close: async () => backend.close?.(),
  };
}
