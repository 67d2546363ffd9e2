// ALFWorld as a benchmark plug-in (paper §4 "ALFWorld", Table 3; alfworld.ipynb, §8): the paper's 134
// valid_unseen games, ReAct and Act over an agentenv-alfworld HTTP server, success = the game's won
// flag, and Table 3 in the report.
import { UserError } from '../../errors.js';
import { parseLimit } from '../../options.js';
import { redactUrl } from '../../util/redact.js';
import type { EnvHandle, EnvHooks, Item, ParsedBenchmark, Split } from '../types.js';
import { AlfworldClient } from './client.js';
import { AlfworldEnv, gameRef } from './env.js';
import { EnvIdPool } from './env-pool.js';
import { GAMES_FILE, OPENINGS_FILE, paperGameList, paperGoals, taskTypeOf } from './games.js';
import { createAlfworldMethod, MAX_ACTIONS, observeAlfworld } from './loop.js';
import { alfworldOptions, envSettingsOf, parseAlfworldOptions, type AlfworldEnvSettings, type AlfworldOptions } from './options.js';
import { formatPromptSet, loadPrompts, NOTEBOOK_PROMPT_SET, PROMPT_FILE } from './prompt.js';
import { buildAlfworldTables } from './table3.js';
import { alfworldForSettings } from './game-set.js';
import { alfworldIdentity, checkAlfworldServer, createAlfworldPoolHandle, observationsOf } from './server-pool.js';

export const SPLIT = 'valid_unseen';
const METHODS = ['act', 'react'] as const;

/** How reports write our methods, and those of the ALFWorld anchors as their sources name them. */
const METHOD_LABELS: Readonly<Record<string, string>> = {
  act: 'Act',
  react: 'ReAct',
  'react-im': 'ReAct-IM',
  butler: 'BUTLER',
  reflexion: 'Reflexion',
};

function makeItem(index: number): Item {
  const games = paperGameList();
  const id = games[index];
  const type = taskTypeOf(id)!;
  return { index, id, input: paperGoals().get(id) ?? '', meta: { task_type: type } };
}

function checkIndex(index: number): number {
  const n = paperGameList().length;
  if (!Number.isInteger(index) || index < 0 || index >= n)
    throw new UserError(`ALFWorld game index ${index}: expected an integer in 0..${n - 1}`);
  return index;
}

/** Builds the environment handle from validated settings (exported for tests with a test clock). */
export function createAlfworldEnvHandle(
  s: AlfworldEnvSettings & { onRetry?: EnvHooks['onRetry'] },
  client = new AlfworldClient({ baseUrl: s.envUrl, timeoutMs: s.timeoutMs, ...(s.onRetry ? { onRetry: s.onRetry } : {}) }),
): EnvHandle {
  // Env ids are reused across episodes (env-pool.ts): agentenv-alfworld never frees an env.
  const pool = new EnvIdPool(client);
  let serverInfo: Record<string, unknown> | null | undefined;
  return {
    makeEnv: (item) => new AlfworldEnv(client, gameRef(item, s.gameList.ids, s.gameList.listName), { obs: s.obs, pool }),
    describe: () => ({
      kind: 'agentenv-alfworld HTTP',
      url: redactUrl(s.envUrl),
      // What the game ids mean (in the run's identity); where the list was read from is not.
      games: { vendored: s.gameList.vendored, n: s.gameList.games.length, sha256: s.gameList.sha256 },
      gamesPath: s.gameList.source,
      observations: observationsOf(s.obs),
      // GET /info of envs/alfworld/server.py (alfworld version, game-list sha256); null: none (agentenv-alfworld).
      server: serverInfo ?? null,
      timeoutMs: s.timeoutMs,
    }),
    identity: () => alfworldIdentity(s, serverInfo ?? null),
    // The server answers; where it describes itself (our server.py), its games and text mode match ours.
    check: async (signal) => {
      serverInfo = await checkAlfworldServer(client, s, signal);
    },
    // The run is over: the pooled ids are closed where the server has /close (our server.py).
    close: () => pool.close(),
  };
}

export function createAlfworldBenchmark(): ParsedBenchmark<AlfworldOptions> {
  let prompts: Record<string, string> | undefined;
  const loaded = () => (prompts ??= loadPrompts());
  return {
    name: 'alfworld',
    title: 'ALFWorld',
    describe: "ALFWorld text households: the paper's 134 valid_unseen games over an agentenv-alfworld server (Table 3)",
    metrics: [{ key: 'success', label: 'Success' }],
    options: alfworldOptions,

    size: () => paperGameList().length,
    item: (index) => makeItem(checkIndex(index)),
    splitNames: () => [SPLIT],
    defaultSplit: SPLIT,
    split: (name, opts = {}): Split => {
      if (name !== SPLIT) throw new UserError(`--split ${name}: ALFWorld has one split, ${SPLIT} (the paper's 134 games)`);
      const all = paperGameList().map((_, i) => i);
      const limit = parseLimit(opts.limit);
      return {
        benchmark: 'alfworld',
        name: SPLIT,
        description: `the paper's 134 valid_unseen (eval_out_of_distribution) games in loader order (${GAMES_FILE})`,
        indices: limit === undefined ? all : all.slice(0, limit),
      };
    },
    parseOptions: parseAlfworldOptions,
    // --games FILE with other games than the paper's 134: its games are the run's items (game-set.ts).
    forSettings(options) {
      return alfworldForSettings(this, options);
    },
    itemRefKey: 'game',
    itemByRef: (ref) => {
      if (typeof ref === 'number') return makeItem(checkIndex(ref));
      if (typeof ref === 'string') {
        const i = paperGameList().indexOf(ref);
        if (i < 0) throw new UserError(`"game": "${ref}" is not one of the paper's 134 games (${GAMES_FILE})`);
        return makeItem(i);
      }
      throw new UserError(`"game": expected a game name ("<task dir>/<trial>") or an index 0..133, got ${JSON.stringify(ref)}`);
    },

    methods: METHODS,
    defaultMethod: 'react',
    methodLabels: METHOD_LABELS,
    // ReAct's trajectories, as FireAct's fine-tuning data were (README "Publishable runs and exports").
    finetuneMethods: ['react'],
    createMethod: (name, options) => {
      if (name !== 'react' && name !== 'act') throw new UserError(`--method ${name}: ALFWorld runs ${METHODS.join(' or ')}`);
      return createAlfworldMethod(name, loaded(), options.promptSet);
    },
    // ReAct and Act build their heads from --prompt-set (and name it in their run ids); the other flags
    // are the environment's (play.flags).
    methodFlags: (method) => (METHODS.some((m) => m === method) ? ['prompt-set'] : undefined),

    createEnv: async (options, hooks) => {
      const s = { ...envSettingsOf(options), ...(hooks?.onRetry ? { onRetry: hooks.onRetry } : {}) };
      return s.envUrls ? createAlfworldPoolHandle(s) : createAlfworldEnvHandle(s);
    },
    observe: observeAlfworld,
    // Table 3's six prompt-set runs are told apart by their ids ("alfworld-react-ps0.2-..."); the
    // notebook's set 1,0 adds nothing, so default runs keep the ids they always had.
    runIdTag: (_method, options) => {
      const set = formatPromptSet(options.promptSet);
      return set === formatPromptSet(NOTEBOOK_PROMPT_SET) ? undefined : `ps${set.replace(',', '.')}`;
    },
    play: {
      flags: ['env-url', 'games', 'alfworld-obs', 'env-timeout'],
      actions:
        'the game\'s own commands, as the loop sends them (e.g. "go to cabinet 1", "take apple 1 from countertop 1"); an action starting with "think:" observes "OK." (docs/protocol.md §8)',
    },
    // alfworld_run returns info['won'] of the step that said done; 0 when 49 actions never ended it.
    score: (_item, result) => ({ success: result.done === true && result.finalInfo?.won === true ? 1 : 0 }),
    inputFiles: (_method, options) => {
      const files = [PROMPT_FILE, OPENINGS_FILE];
      if (options.games === undefined) files.push(GAMES_FILE);
      return files;
    },
    fidelity: (options) => ({
      promptSet: formatPromptSet(options.promptSet),
      promptSetDefault: '1,0 (the notebook: react_<type>_1 then react_<type>_0)',
      observations:
        options.obs === 'raw' ? 'raw: cleaned by the adapter (first paragraph dropped, process_ob)' : 'clean: as the server sends them',
      maxActions: MAX_ACTIONS,
      success: 'won flag (not done)',
      alfworldVersion: '0.3.3 expected on the server (0.4.0 changed the action grammar the prompts use)',
    }),
    reportTables: buildAlfworldTables,
    // The paper's claim on ALFWorld: ReAct beats Act.
    comparisons: [['react', 'act']],
  };
}
