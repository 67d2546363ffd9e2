// The environment side of a HotpotQA/FEVER run: one Wikipedia backend per run (snapshot, live, api,
// record, replay) and, per item, the task wrapper over a fresh WikiEnv (§4, §6).
import { WikiEnv, describeWikiEnv, type WikiEnvOptions } from '../../envs/wikipedia/wiki-env.js';
import { wikiBackendFromArgv, wikiEnvOptionsFromArgv, type WikiArgv } from '../../envs/wikipedia/index.js';
import type { Settings } from '../../options.js';
import type { EnvHandle, EnvHooks } from '../types.js';
import { QAEpisodeEnv } from './episode-env.js';
import type { Task } from './types.js';

/** The shipped 2017 pages the offline snapshot is built from (hashed into manifests of snapshot runs). */
export const WIKI_SNAPSHOT_FILE = 'envs/wikipedia/hotpotqa-2017/pages.jsonl';

/**
 * The Wikipedia flags of a run as the backend factory takes them. `--env-url URL` (the flag every
 * benchmark shares) names a Wikipedia site: it stands for --wiki-url URL, and turns the default
 * offline snapshot into --wiki live.
 */
export function wikiArgv(settings: Settings): WikiArgv {
  const envUrl = settings.envUrl as string | undefined;
  let wiki = settings.wiki as string | undefined;
  if (envUrl !== undefined && (wiki === undefined || wiki === 'snapshot')) wiki = 'live';
  return {
    wiki,
    'wiki-url': (settings.wikiUrl as string | undefined) ?? envUrl,
    'wiki-snapshot': settings.wikiSnapshot as string | undefined,
    'wiki-timeout': settings.wikiTimeout as number | undefined,
    'wiki-query': settings.wikiQuery as string | undefined,
    'clean-str-errors': settings.cleanStrErrors as string | undefined,
  };
}

export function usesSnapshot(settings: Settings): boolean {
  return (wikiArgv(settings).wiki ?? 'snapshot') === 'snapshot';
}

export async function createWikiEnvHandle(
  settings: Settings,
  task: Pick<Task, 'observationLabel' | 'score'>,
  hooks: EnvHooks = {},
): Promise<EnvHandle> {
  const argv = wikiArgv(settings);
  // validated before the backend exists: a bad value must not first build a snapshot or open a file
  const envOptions: WikiEnvOptions = wikiEnvOptionsFromArgv(argv);
  // hooks.onRetry: the run's progress line counts Wikipedia retries (README "Reliability")
  const backend = await wikiBackendFromArgv(argv, hooks.onRetry ? { onRetry: (e) => hooks.onRetry!(e) } : {});
  return {
    makeEnv: (item) => new QAEpisodeEnv(new WikiEnv(backend, envOptions), task, item),
    // The backend (kind, snapshot sha256, base URL) and WikiEnv's own deviations (§6).
    describe: () => ({ ...backend.describe(), env: describeWikiEnv(envOptions) }),
    identity: () => ({ ...(backend.identity?.() ?? backend.describe()), env: describeWikiEnv(envOptions) }),
    close: async () => backend.close?.(),
  };
}
