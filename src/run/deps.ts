// The real modules behind RunDeps: tasks, methods, the LLM layer and the Wikipedia environment.
import type { Options } from 'yargs';
import { getTask } from '../tasks/index.js';
import { createMethod, methodOptionsFromArgv, methodCliOptions, combinationCliOptions } from '../methods/index.js';
import { createCompletionModel, resolveModelConfig, llmCliOptions } from '../llm/index.js';
import { QAEpisodeEnv } from '../tasks/episode-env.js';
import { WikiEnv, describeWikiEnv, type WikiEnvOptions } from '../envs/wikipedia/wiki-env.js';
import { wikiCliOptions, wikiBackendFromArgv, wikiEnvOptionsFromArgv, type WikiArgv } from '../envs/wikipedia/index.js';
import type { TaskName } from '../tasks/types.js';
import type { MethodName } from '../methods/types.js';
import type { EnvFactory, RunDeps } from './execute.js';
import type { Settings } from './experiment.js';
import { runOptions } from './options.js';

/** Every option `run` accepts (and an experiment file may set), with their yargs defaults. */
export function allRunOptions(): Record<string, Options> {
  return {
    ...runOptions,
    ...(llmCliOptions as Record<string, Options>),
    ...(wikiCliOptions as Record<string, Options>),
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
    const argv: WikiArgv = {
      wiki: settings.wiki as string | undefined,
      'wiki-url': settings.wikiUrl as string | undefined,
      'wiki-snapshot': settings.wikiSnapshot as string | undefined,
      'wiki-timeout': settings.wikiTimeout as number | undefined,
      'wiki-query': settings.wikiQuery as string | undefined,
      'clean-str-errors': settings.cleanStrErrors as string | undefined,
    };
    // validated before the backend exists: a bad value must not first build a snapshot or open a file
    const envOptions: WikiEnvOptions = wikiEnvOptionsFromArgv(argv);
    const backend = await wikiBackendFromArgv(argv);
    return {
      makeEnv: (ex) => new QAEpisodeEnv(new WikiEnv(backend, envOptions), task, ex),
      // The backend (kind, snapshot sha256, base URL) and WikiEnv's own deviations (§6).
      describe: () => ({ ...backend.describe(), env: describeWikiEnv(envOptions) }),
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
