// WebShop as a benchmark plug-in (paper §4 "WebShop", Table 4; WebShop.ipynb, docs/protocol.md §9): the 500 test
// sessions fixed_0..fixed_499 of the WebShop Flask site, Act and ReAct with the notebook's loop and its
// HTML→text conversion, score = the done page's reward, success = reward 1, and Table 4 in the report.
import fs from 'node:fs';
import path from 'node:path';
import { FatalRunError, InfraError, UserError, errorMessage } from '../../errors.js';
import { PAPER_SAMPLING } from '../../llm/types.js';
import { InteractiveMethod } from '../../methods/interactive.js';
import { parseLimit } from '../../options.js';
import { repoRoot } from '../../paths.js';
import type { RunView } from '../../report/model.js';
import { sha256 } from '../../util/hash.js';
import { redactUrl } from '../../util/redact.js';
import type { EnvHandle, Item, ParsedBenchmark, Split } from '../types.js';
import { fetchPage, WebshopEnv, type EnvHandleDeps, type SiteGoalsCheck, type WebshopSiteOptions } from './env.js';
import { checkGoal, describeTally, expectedGoals, GOALS_FILE, tallyGoals, goalCheckOf, type GoalCheck } from './goals.js';
import { WEBSHOP_CONTEXT_CHARS, WEBSHOP_MAX_TURNS, WEBSHOP_STEP_LIMIT, WEBSHOP_STOP, webshopLoop, webshopObserve } from './loop.js';
import { parseWebshopOptions, resolveWebshopSettings, webshopOptions, type WebshopOptions, type WebshopSettings } from './options.js';
import { pageInstruction } from './page-text.js';
import { initialState } from './session.js';
import { buildWebshopTables } from './table4.js';
import { createWebshopPoolHandle } from './site-pool.js';

export const PROMPT_FILE = 'prompts/webshop_prompts.json';
export const SPLIT = 'test500';
export const N_SESSIONS = 500;
const METHODS = ['act', 'react'] as const;
/** How reports write our methods, and those of the WebShop anchors as their sources name them. */
const METHOD_LABELS: Readonly<Record<string, string>> = {
  act: 'Act',
  react: 'ReAct',
  il: 'IL',
  'il-rl': 'IL+RL',
  'human-expert': 'Human expert',
  lats: 'LATS',
  reflexion: 'Reflexion',
};
/** Start pages fetched at once by the pre-run goals check. */
const CHECK_CONCURRENCY = 8;
const KIND = "WebShop Flask site (web_agent_site/app.py) with the notebook's HTML→text conversion and session state machine";

export function sessionId(index: number): string {
  return `fixed_${index}`;
}

function checkIndex(index: number): number {
  if (!Number.isInteger(index) || index < 0 || index >= N_SESSIONS) {
    throw new UserError(
      `WebShop session index ${index}: expected an integer in 0..${N_SESSIONS - 1} (sessions fixed_0..fixed_${N_SESSIONS - 1})`,
    );
  }
  return index;
}

function makeItem(index: number): Item {
  return { index, id: sessionId(index), input: '', meta: { session: sessionId(index) } };
}

/** The notebook's two prompts: prompt1 (react) and prompt1_actonly (act). */
export function loadPrompts(file = path.join(repoRoot, PROMPT_FILE)): Record<'react' | 'act', string> {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UserError(`${PROMPT_FILE}: cannot read the WebShop prompts (${errorMessage(e)})`);
  }
  const o = raw as Record<string, unknown>;
  if (!o || typeof o.react !== 'string' || typeof o.act !== 'string')
    throw new UserError(`${PROMPT_FILE}: expected {"react": "...", "act": "..."}`);
  return { react: o.react, act: o.act };
}

/** The pre-run goals check of one site and the handle's dependencies (declared in env.ts). */
export type { EnvHandleDeps, SiteGoalsCheck };

const stderrWarn = (m: string) => process.stderr.write(`warning: ${m}\n`);

/** The environment handle for validated settings (exported for tests with a virtual clock). */
export function createWebshopEnvHandle(s: WebshopSettings, deps: EnvHandleDeps = {}): EnvHandle {
  const onRetry = deps.onRetry;
  const site: WebshopSiteOptions = {
    baseUrl: s.baseUrl,
    timeoutMs: s.timeoutMs,
    serverErrors: s.serverErrors,
    retry: deps.retry,
    clock: deps.clock,
    random: deps.random,
    ...(onRetry ? { onRetry } : {}),
  };
  const warn = deps.warn ?? stderrWarn;
  let goals: SiteGoalsCheck | null = null;
  const shownUrl = redactUrl(s.baseUrl);

  const startInstruction = async (session: string, signal?: AbortSignal): Promise<string> => {
    // Retried like any request (a passing fault is no verdict); a site that keeps answering something
    // other than a WebShop start page is not the WebShop site.
    let page: Awaited<ReturnType<typeof fetchPage>>;
    try {
      page = await fetchPage(site, initialState(session), signal);
    } catch (e) {
      if (e instanceof InfraError && /a WebShop start page|not the WebShop app's error page/.test(e.message)) {
        throw new UserError(
          `--env-url ${shownUrl}: the start page of ${session} is not a WebShop page, after retries (${e.message}): is this the WebShop site?`,
        );
      }
      throw e;
    }
    const instruction = page.status === 200 ? pageInstruction(page.html) : null;
    if (instruction === null) {
      throw new UserError(
        `--env-url ${shownUrl}: GET ${page.target} answered HTTP ${page.status}${page.status === 200 ? ' without an "Instruction:" heading' : ''}: is this the WebShop site?`,
      );
    }
    return instruction;
  };

  return {
    makeEnv: (item) =>
      new WebshopEnv({
        ...site,
        session: item.id,
        goals: s.goals,
        expected: item.index < 100 ? expectedGoals()[item.index] : undefined,
        // After the pre-run check has said it once, episodes only record their check.
        warn: goals ? undefined : warn,
      }),
    describe: () => ({
      backend: 'webshop-site',
      kind: KIND,
      siteUrl: shownUrl,
      timeoutMs: s.timeoutMs,
      serverErrors: s.serverErrors,
      goalsMode: s.goals,
      // The goals the site served for fixed_0..fixed_99 before the run (null: not checked).
      goals,
    }),
    // Not the site's URL or timeout, nor its goals: their price clauses are redrawn at every site start.
    identity: () => ({ backend: 'webshop-site', kind: KIND, serverErrors: s.serverErrors, goalsMode: s.goals }),
    check: async (signal) => {
      // Reachable and a WebShop site: an outage is an InfraError, another server a UserError.
      const first = await startInstruction(sessionId(0), signal);
      if (s.goals === 'off') return;
      const paper = expectedGoals();
      const shown: string[] = new Array(paper.length);
      shown[0] = first;
      let next = 1;
      const worker = async () => {
        while (next < paper.length) {
          const i = next++;
          shown[i] = await startInstruction(sessionId(i), signal);
        }
      };
      await Promise.all(Array.from({ length: CHECK_CONCURRENCY }, worker));
      const checks = paper.map((g, i) => ({ session: g.session, check: checkGoal(shown[i], g, s.goals) }));
      goals = { ...tallyGoals(checks), instructionsSha256: sha256(shown.join('\n')) };
      deps.onGoalsChecked?.(goals);
      if (goals.mismatched.length) {
        const msg = `--env-url ${shownUrl}: ${describeTally(goals)}: this site's goals are not the paper's (see envs/webshop/README.md)`;
        if (s.goals === 'strict') throw new FatalRunError(`${msg}; --webshop-goals strict stops here`);
        warn(msg);
      }
    },
  };
}

function goalChecksOf(run: RunView): { session: string; check: GoalCheck | undefined }[] {
  return run.records.filter((r) => !r.error).map((r) => ({ session: r.item, check: goalCheckOf(r) }));
}

export function createWebshopBenchmark(): ParsedBenchmark<WebshopOptions> {
  let prompts: Record<'react' | 'act', string> | undefined;
  const loaded = () => (prompts ??= loadPrompts());
  // Pre-run goals checks by site URL, for fidelity() (the runner calls check() before it).
  const siteChecks = new Map<string, SiteGoalsCheck>();
  return {
    name: 'webshop',
    title: 'WebShop',
    describe: 'WebShop online shopping: the 500 test sessions fixed_0..fixed_499 over the WebShop Flask site (Table 4)',
    metrics: [
      { key: 'score', label: 'Score' },
      { key: 'success', label: 'SR' },
    ],
    options: webshopOptions,

    size: () => N_SESSIONS,
    item: (index) => makeItem(checkIndex(index)),
    splitNames: () => [SPLIT],
    defaultSplit: SPLIT,
    split: (name, opts = {}): Split => {
      if (name !== SPLIT) throw new UserError(`--split ${name}: WebShop has one split, ${SPLIT} (the paper's 500 test sessions)`);
      const limit = parseLimit(opts.limit);
      const all = Array.from({ length: N_SESSIONS }, (_, i) => i);
      return {
        benchmark: 'webshop',
        name: SPLIT,
        description:
          "the paper's 500 WebShop test sessions fixed_0..fixed_499 (goals of the site's human-goal list shuffled with random.seed(233))",
        indices: limit === undefined ? all : all.slice(0, limit),
      };
    },
    itemRefKey: 'session',
    itemByRef: (ref) => {
      const m = typeof ref === 'string' ? /^fixed_(\d+)$/.exec(ref) : null;
      if (!m) throw new UserError(`"session": expected a session id fixed_0..fixed_${N_SESSIONS - 1}, got ${JSON.stringify(ref)}`);
      return makeItem(checkIndex(Number(m[1])));
    },

    methods: METHODS,
    defaultMethod: 'react',
    methodLabels: METHOD_LABELS,
    // ReAct's trajectories, as FireAct's fine-tuning data were (README "Publishable runs and exports").
    finetuneMethods: ['react'],
    createMethod: (name) => {
      if (name !== 'react' && name !== 'act') throw new UserError(`--method ${name}: WebShop runs ${METHODS.join(' or ')}`);
      const head = loaded()[name];
      const description = {
        method: name,
        loop: 'webshop_run (WebShop.ipynb)',
        prompt: { file: PROMPT_FILE, key: name, notebookName: name === 'react' ? 'prompt1' : 'prompt1_actonly', sha256: sha256(head) },
        stepLimit: WEBSHOP_STEP_LIMIT,
        maxTurns: WEBSHOP_MAX_TURNS,
        contextChars: WEBSHOP_CONTEXT_CHARS,
        stop: WEBSHOP_STOP,
        completion: "lstrip(' ')",
        sampling: { ...PAPER_SAMPLING },
      };
      const loop = webshopLoop({ name, head });
      return new InteractiveMethod(() => loop, name, description);
    },
    // Act and ReAct read no flag: each one of WebShop is the site's (play.flags).
    methodFlags: (method) => (METHODS.some((m) => m === method) ? [] : undefined),

    parseOptions: parseWebshopOptions,
    createEnv: async (options, hooks) => {
      const s = resolveWebshopSettings(options);
      const deps = {
        onGoalsChecked: (c: SiteGoalsCheck) => siteChecks.set(s.baseUrl, c),
        ...(hooks?.onRetry ? { onRetry: hooks.onRetry } : {}),
      };
      return s.baseUrls
        ? createWebshopPoolHandle(s, deps, (c) => siteChecks.set(String(options.envUrl).replace(/\/+$/, ''), c), createWebshopEnvHandle)
        : createWebshopEnvHandle(s, deps);
    },
    observe: webshopObserve,
    play: {
      flags: ['env-url', 'webshop-goals', 'webshop-server-errors', 'webshop-timeout'],
      actions:
        'search[query] (from the start page) and click[button text], as the loop sends them; an action starting with "think" observes "OK." (docs/protocol.md §9)',
    },
    // webshop_run returns the done step's reward, 0 when 15 steps pass without a purchase.
    score: (_item, result) => {
      const reward = result.done === true ? (result.reward ?? 0) : 0;
      return { score: reward, success: reward === 1 ? 1 : 0 };
    },
    inputFiles: () => [PROMPT_FILE, GOALS_FILE],
    fidelity: (options) => {
      const goalsMode = options.goals;
      const url = options.envUrl?.replace(/\/+$/, '');
      const pre = url ? siteChecks.get(url) : undefined;
      return {
        site: "the WebShop Flask site's HTML through the notebook's webshop_text (not AgentGym's [SEP] text)",
        stepLimit: `${WEBSHOP_STEP_LIMIT} environment steps counting the reset (${WEBSHOP_MAX_TURNS} model turns)`,
        context: `init prompt + the last (${WEBSHOP_CONTEXT_CHARS} - len(init prompt)) characters of the history`,
        discardedCall: 'the notebook asks for a 15th completion after the last step and discards it; not requested here',
        invalidAction: '"Invalid action!" (reward 0, not done); any action starting with "think" observes "OK."',
        serverErrors:
          options.serverErrors === 'fail'
            ? 'fail: a persistent HTTP 500 is an environment error'
            : 'observe: a persistent HTTP 500 page is converted like any page (the notebook)',
        notFound: 'a 4xx page (a query with "/", "#" or "?" no longer matches a route) is converted like any page, as the notebook does',
        cleanStr: 'where clean_str raises (the notebook would crash), the text is kept and the step info carries clean_str_error',
        goals: {
          mode: goalsMode,
          reference: `${GOALS_FILE} (fixed_0..fixed_99)`,
          check: pre
            ? {
                checked: pre.checked,
                instructionMatched: pre.instructionMatched,
                priceMatched: pre.priceMatched,
                mismatched: pre.mismatched,
                instructionsSha256: pre.instructionsSha256,
              }
            : null,
          priceClause: 'drawn unseeded at each server start (WebShop issue 45): compared separately, never fatal',
        },
      };
    },
    summaryNotes: (run) => (run.manifest.task === 'webshop' ? [describeTally(tallyGoals(goalChecksOf(run)))] : []),
    reportTables: buildWebshopTables,
    // The paper's claim on WebShop: ReAct beats Act.
    comparisons: [['react', 'act']],
  };
}
