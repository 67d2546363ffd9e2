// The notebook's webshopEnv over the WebShop Flask site (docs/protocol.md §9): one session per
// episode. reset() fetches the start page; step() runs the session state machine (session.ts), builds
// the URL as the notebook formats it, sends it as python-requests would (src/util/python-requests-url.ts),
// converts the page (page-text.ts) and merges the page info into the session, as webshopEnv.step does.
// A refused action observes "Invalid action!" with reward 0 and done false (webshop_run's
// `except AssertionError`); outages are InfraError('env') (src/envs/http/request.ts: backoff,
// Retry-After, abort), never observations.
import { FatalRunError, InfraError } from '../../errors.js';
import { httpRequest, type RetryEvent } from '../../envs/http/request.js';
import type { Env, EnvCallOptions, ResetResult, StepResult } from '../../envs/types.js';
import type { Clock } from '../../util/clock.js';
import type { RetryPolicy } from '../../util/backoff.js';
import { prepareRequestsUrl } from '../../util/python-requests-url.js';
import { pageInstruction, pageText, WebshopRewardError } from './page-text.js';
import { initialState, mergeInfo, notebookUrl, pyDictRepr, transition, type SessionState } from './session.js';
import { checkGoal, type ExpectedGoal, type GoalsMode, type GoalTally } from './goals.js';
import type { EnvHooks } from '../types.js';
import { errorPageProblem, webshopPageProblem } from './page-check.js';

export const INVALID_ACTION = 'Invalid action!';
export const SERVICE = 'WebShop site';
/** Attempts for an HTTP 500 before it is taken as the site's answer to this request. */
export const SERVER_ERROR_ATTEMPTS = 3;

export interface WebshopSiteOptions {
  /** The notebook's WEBSHOP_URL: scheme, host, port and an optional path prefix, no trailing slash. */
  baseUrl: string;
  timeoutMs: number;
  serverErrors: 'observe' | 'fail';
  retry?: Partial<RetryPolicy>;
  clock?: Clock;
  random?: () => number;
  /** Each retry of a request (the run's progress line counts them). */
  onRetry?: (e: RetryEvent) => void;
}

export interface WebshopEnvOptions extends WebshopSiteOptions {
  session: string;
  goals: GoalsMode;
  /** The vendored goal of this session (fixed_0..fixed_99), when there is one. */
  expected?: ExpectedGoal;
  /** Told about a reset whose instruction differs from the vendored goal (mode 'check'); none: silent. */
  warn?: (message: string) => void;
}

/** A fetched and converted page. */
export interface FetchedPage {
  url: string;
  target: string;
  status: number;
  html: string;
  observation: string;
  info: ReturnType<typeof pageText>['info'];
  cleanStrError?: string;
}

/**
 * GET the notebook's URL for `state` as `requests.get(url).text` does, and convert the page. requests
 * does not raise on a status, and the notebook converts whatever page comes back: a model-written query
 * with "/", "#" or "?" no longer matches a route and the Flask site answers 404, whose text is the
 * observation (docs/protocol.md §9). Outages are retried (refused connections, timeouts, 429,
 * 408, 5xx); a 500 that persists for SERVER_ERROR_ATTEMPTS attempts is the app raising on this URL
 * (e.g. a query starting with "[" that literal_eval rejects): its page is observed, or with
 * --webshop-server-errors fail the episode is an environment error. A 200 that is not the WebShop page
 * the action leads to (empty, not HTML, another server's page: page-check.ts) is retried like a 5xx, and
 * an accepted error status must carry the Flask app's own error page: a broken page is never observed.
 */
export async function fetchPage(opts: WebshopSiteOptions, state: SessionState, signal?: AbortSignal): Promise<FetchedPage> {
  const url = notebookUrl(opts.baseUrl, state);
  const { pathUrl } = prepareRequestsUrl(url);
  const page = await httpRequest(opts.baseUrl, pathUrl, {
    service: SERVICE,
    method: 'GET',
    timeoutMs: opts.timeoutMs,
    acceptStatus: (status) => status < 500,
    persistentStatus: { match: (status) => status === 500, attempts: SERVER_ERROR_ATTEMPTS, answer: opts.serverErrors === 'observe' },
    validate: (r) => webshopPageProblem(state.page_type, r.body),
    ...(opts.retry ? { retry: opts.retry } : {}),
    ...(signal ? { signal } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.random ? { random: opts.random } : {}),
    ...(opts.onRetry ? { onRetry: opts.onRetry } : {}),
  });
  const notTheApp = page.status !== 200 ? errorPageProblem(page.status, page.body) : undefined;
  if (notTheApp) throw new InfraError(`${SERVICE}: ${notTheApp} (GET ${pathUrl})`, 'env', { status: page.status });
  let converted: ReturnType<typeof pageText>;
  try {
    converted = pageText(page.body, state.page_type, url);
  } catch (e) {
    // float() of the done page's score text failed: the notebook would crash; a site that sends a
    // non-number there is broken, not a wrong purchase.
    if (e instanceof WebshopRewardError) throw new InfraError(`WebShop site: ${e.message} (GET ${pathUrl})`, 'env', { cause: e });
    throw e;
  }
  return { url, target: pathUrl, status: page.status, html: page.body, ...converted };
}

/** A step's info: the page type, the request made, and what the page said beyond its text (§9). */
interface WebshopStepInfo {
  page_type: string;
  request?: string;
  http_status?: number;
  clean_str_error?: string;
  reward?: unknown;
  options?: string;
  [field: string]: unknown;
}

function stepInfo(state: SessionState, page: FetchedPage | null, extra: Record<string, unknown> = {}): WebshopStepInfo {
  const info: WebshopStepInfo = { page_type: state.page_type, ...extra };
  if (page) {
    info.request = page.target;
    if (page.status !== 200) info.http_status = page.status;
    if (page.cleanStrError) info.clean_str_error = page.cleanStrError;
    if (page.info.reward !== undefined) info.reward = page.info.reward;
  }
  if (state.options?.size) info.options = pyDictRepr(state.options);
  return info;
}

export class WebshopEnv implements Env {
  /** The notebook's self.sessions[session] dict. */
  private state: SessionState;

  constructor(private readonly opts: WebshopEnvOptions) {
    this.state = initialState(opts.session);
  }

  async reset(o: EnvCallOptions = {}): Promise<ResetResult> {
    const state = initialState(this.opts.session);
    const page = await fetchPage(this.opts, state, o.signal);
    if (page.status !== 200) {
      throw new InfraError(
        `WebShop site answered HTTP ${page.status} for the start page of ${this.opts.session} (GET ${page.target})`,
        'env',
      );
    }
    const instruction = pageInstruction(page.html);
    if (instruction === null) {
      throw new InfraError(
        `WebShop site: the start page of ${this.opts.session} has no "Instruction:" heading (is --env-url the WebShop site?)`,
        'env',
      );
    }
    this.state = mergeInfo(state, page.info);
    const goalCheck = checkGoal(instruction, this.opts.expected, this.opts.goals);
    if (goalCheck.status === 'mismatch') {
      const msg = `WebShop ${this.opts.session}: the site's instruction differs from the paper's goal: site ${JSON.stringify(goalCheck.site)}, expected ${JSON.stringify(goalCheck.expected)}`;
      if (this.opts.goals === 'strict') throw new FatalRunError(`${msg} (--webshop-goals strict; see envs/webshop/README.md)`);
      this.opts.warn?.(msg);
    }
    return {
      observation: page.observation,
      info: { session: this.opts.session, instruction, goal_check: goalCheck, ...stepInfo(this.state, page) },
    };
  }

  async step(action: string, o: EnvCallOptions = {}): Promise<StepResult> {
    const t = transition(this.state, action);
    if (t.kind === 'refused') {
      return { observation: INVALID_ACTION, reward: 0, done: false, info: { ...stepInfo(this.state, null), invalid_action: t.reason } };
    }
    const page = await fetchPage(this.opts, t.next, o.signal);
    this.state = mergeInfo(t.next, page.info);
    const observation = t.observationOverride ?? page.observation;
    const reward = page.info.reward ?? 0;
    return { observation, reward, done: t.done, info: stepInfo(this.state, page, t.think ? { think: true } : {}) };
  }
}

/** The pre-run goals check of one site (declared here, below index.ts and site-pool.ts, which both use it). */
export interface SiteGoalsCheck extends GoalTally {
  /** sha256 of the 100 instructions the site shows for fixed_0..fixed_99, joined by "\n". */
  instructionsSha256: string;
}

export interface EnvHandleDeps {
  /** Where goal warnings go (default: stderr). */
  warn?: (message: string) => void;
  clock?: Clock;
  random?: () => number;
  retry?: Partial<RetryPolicy>;
  /** Receives the pre-run goals check (the benchmark keeps it for fidelity()). */
  onGoalsChecked?: (c: SiteGoalsCheck) => void;
  /** Each retry of a request (the run's progress line counts them). */
  onRetry?: EnvHooks['onRetry'];
}
