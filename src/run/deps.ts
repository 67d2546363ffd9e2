// The real modules behind RunDeps: tasks, methods, the LLM layer and the Wikipedia environment.
import type { Options } from 'yargs';
import { getTask } from '../tasks/index.js';
import { createMethod, methodOptionsFromArgv, methodCliOptions, combinationCliOptions } from '../methods/index.js';
import { createCompletionModel, resolveModelConfig, llmCliOptions } from '../llm/index.js';
import { QAEpisodeEnv } from '../tasks/episode-env.js';
import { WikiEnv } from '../envs/wikipedia/wiki-env.js';
import type { WikiBackend } from '../envs/wikipedia/backend.js';
import type { TaskName } from '../tasks/types.js';
import type { MethodName } from '../methods/types.js';
import { UserError } from '../errors.js';
import type { EnvFactory, RunDeps } from './execute.js';
import type { Settings } from './experiment.js';
import { runOptions } from './options.js';

// The Wikipedia module is written concurrently; until src/envs/wikipedia/index.ts exists it is loaded
// dynamically so that the methods without an environment still run.
interface WikiModule {
  wikiCliOptions: Record<string, Options>;
  createWikiBackend(spec: string, opts: Record<string, unknown>): WikiBackend | Promise<WikiBackend>;
}
const WIKI_MODULE = '../envs/wikipedia/index.js';
const wiki: WikiModule | null = await import(/* @vite-ignore */ WIKI_MODULE).then(
  (m) => m as WikiModule,
  () => null,
);

const fallbackWikiOptions: Record<string, Options> = {
  wiki: { type: 'string', default: 'snapshot', describe: 'Wikipedia backend: snapshot | live | api | record:FILE | replay:FILE' },
  'wiki-url': { type: 'string', describe: 'Base URL of the Wikipedia site (live/api backends)' },
};

/** Every option `run` accepts (and an experiment file may set), with their yargs defaults. */
export function allRunOptions(): Record<string, Options> {
  return {
    ...runOptions,
    ...(llmCliOptions as Record<string, Options>),
    ...(wiki?.wikiCliOptions ?? fallbackWikiOptions),
    ...(methodCliOptions as Record<string, Options>),
    ...(combinationCliOptions as Record<string, Options>),
  };
}

export const realDeps: RunDeps = {
  getTask: (name: TaskName) => getTask(name),
  createMethod: (name: MethodName, settings: Settings, task) =>
    createMethod(name, { ...methodOptionsFromArgv(settings), task: task.name }),
  createModel: async (settings: Settings) => createCompletionModel(resolveModelConfig(settings, process.env)),
  createEnvFactory: async (settings: Settings, task): Promise<EnvFactory> => {
    if (!wiki) throw new UserError('--wiki: the Wikipedia environment module is not available in this build');
    const spec = String(settings.wiki ?? 'snapshot');
    const backend = await wiki.createWikiBackend(spec, settings);
    return {
      makeEnv: (ex) => new QAEpisodeEnv(new WikiEnv(backend), task, ex),
      describe: () => backend.describe(),
      close: async () => backend.close?.(),
    };
  },
  secrets: (settings: Settings) => {
    const out: string[] = [];
    const name = typeof settings.apiKeyEnv === 'string' ? settings.apiKeyEnv : 'OPENAI_API_KEY';
    for (const n of new Set([name, 'OPENAI_API_KEY'])) {
      const v = process.env[n]?.trim();
      if (v) out.push(v);
    }
    return out;
  },
};
