// The HotpotQA/FEVER Wikipedia environment: the released wikienv.py's observable behaviour
// (docs/protocol.md §6, used by the §4 loop), on top of any WikiBackend.
import type { Env, EnvCallOptions, ResetResult, StepResult } from '../types.js';
import type { SearchOutcome, WikiBackend } from './backend.js';
import { cleanStr } from '../../util/python-clean-str.js';
import { EnvironmentFailure } from '../../errors.js';
import { buildPage, pageSentences, sentencesObservation, sentencesWith } from './page-text.js';
import { pyListRepr } from '../../util/python-repr.js';
import { pyStrip } from '../../util/python-str.js';

export const WIKI_RESET_OBSERVATION = 'Interact with Wikipedia using search[], lookup[], and finish[].\n';

export interface WikiEnvOptions {
  /**
   * What to do where the released clean_str raises (and crashes the run): 'keep' (default) keeps the
   * text as it was and counts it in info.clean_str_errors; 'throw' raises a WikiCleanStrError.
   */
  cleanStrErrors?: 'keep' | 'throw';
  /** Guard against endless "may refer to:" retries ([X], [[X]], ...); the released code has none. */
  maxDisambiguationRetries?: number;
}

/** clean_str failed where the released code would have crashed (only with cleanStrErrors: 'throw'). */
export class WikiCleanStrError extends EnvironmentFailure {}

/** Every bracketed retry still said "may refer to:" (the released code would recurse until Python's limit). */
export class WikiDisambiguationLoopError extends EnvironmentFailure {}

/** The env's deviations from the released wikienv.py, secret-free, for the run manifest (brief: every deviation recorded). */
export function describeWikiEnv(opts: WikiEnvOptions = {}): Record<string, unknown> {
  const cleanStrErrors = opts.cleanStrErrors ?? 'keep';
  return {
    cleanStrErrors,
    cleanStrErrorsMeaning:
      cleanStrErrors === 'keep'
        ? 'where the released clean_str raises (and crashes the run), keep the text unchanged and count it in info.clean_str_errors'
        : 'where the released clean_str raises, the episode fails with an environment error',
    maxDisambiguationRetries: opts.maxDisambiguationRetries ?? 20,
    maxDisambiguationRetriesMeaning: 'bracketed "may refer to:" re-searches before the episode fails (the released code recurses without limit)',
  };
}

export class WikiEnv implements Env {
  private obs = WIKI_RESET_OBSERVATION;
  private page: string | null = null;
  /** The page's sentences (pageSentences), split once per search for the observation and every lookup. */
  private sentences: string[] = [];
  private lookupKeyword: string | null = null;
  private lookupResults: string[] = [];
  private cnt = 0;
  private steps = 0;
  private answer: string | null = null;
  /** clean_str failures seen in the current step (reported in info, then reset). */
  private cleanErrors = 0;
  /** The searches of the current episode (entity as sent, outcome kind), for logs and manifests. */
  readonly searches: { entity: string; outcome: SearchOutcome['kind'] }[] = [];
  private readonly opts: Required<WikiEnvOptions>;

  constructor(
    readonly backend: WikiBackend,
    opts: WikiEnvOptions = {},
  ) {
    this.opts = { cleanStrErrors: opts.cleanStrErrors ?? 'keep', maxDisambiguationRetries: opts.maxDisambiguationRetries ?? 20 };
  }

  async reset(_opts?: EnvCallOptions): Promise<ResetResult> {
    this.obs = WIKI_RESET_OBSERVATION;
    this.page = null;
    this.sentences = [];
    this.lookupKeyword = null;
    this.lookupResults = [];
    this.cnt = 0;
    this.steps = 0;
    this.answer = null;
    this.searches.length = 0;
    return { observation: this.obs, info: this.info() };
  }

  private info(): Record<string, unknown> {
    const info: Record<string, unknown> = { steps: this.steps, answer: this.answer };
    if (this.cleanErrors > 0) info.clean_str_errors = this.cleanErrors;
    return info;
  }

  private clean = (s: string): string => {
    const r = cleanStr(s);
    if (r.ok) return r.value;
    if (this.opts.cleanStrErrors === 'throw') throw new WikiCleanStrError(`clean_str raises ${r.error} (${r.reason}) on ${JSON.stringify(s.slice(0, 80))}`);
    this.cleanErrors++;
    return s;
  };

  async step(rawAction: string, opts: EnvCallOptions = {}): Promise<StepResult> {
    const action = pyStrip(rawAction);
    this.cleanErrors = 0;
    // Already finished: the last observation again, no step counted.
    if (this.answer !== null) return { observation: this.obs, reward: 0, done: true, info: this.info() };
    let done = false;
    const arg = (prefix: string) => (action.startsWith(prefix) && action.endsWith(']') ? action.slice(prefix.length, -1) : null);
    let a: string | null;
    if ((a = arg('search[')) !== null) {
      await this.searchStep(a, 0, opts.signal);
    } else if ((a = arg('lookup[')) !== null) {
      if (this.lookupKeyword !== a) {
        this.lookupKeyword = a;
        this.lookupResults = this.page === null ? [] : sentencesWith(this.sentences, a);
        this.cnt = 0;
      }
      if (this.cnt >= this.lookupResults.length) this.obs = 'No more results.\n';
      else {
        this.obs = `(Result ${this.cnt + 1} / ${this.lookupResults.length}) ` + this.lookupResults[this.cnt];
        this.cnt++;
      }
    } else if ((a = arg('finish[')) !== null) {
      this.answer = a;
      done = true;
      this.obs = 'Episode finished, reward = 0\n'; // the task wrapper recomputes the reward (§7)
    } else if (arg('think[') !== null) {
      this.obs = 'Nice thought.';
    } else {
      this.obs = `Invalid action: ${action}`;
    }
    this.steps++;
    return { observation: this.obs, reward: 0, done, info: this.info() };
  }

  private async searchStep(entity: string, depth: number, signal?: AbortSignal): Promise<void> {
    // The signal reaches the HTTP request: Ctrl-C cancels a hanging live-Wikipedia search at once.
    const outcome = await this.backend.search(entity, signal ? { signal } : undefined);
    this.searches.push({ entity, outcome: outcome.kind });
    // A results page with no heading is not "similar" for the released code (`if result_divs:`).
    if (outcome.kind === 'similar' && outcome.titles.length > 0) {
      const titles = outcome.titles.map((t) => this.clean(pyStrip(t)));
      this.obs = `Could not find ${entity}. Similar: ${pyListRepr(titles.slice(0, 5))}.`;
      return; // page and lookup state untouched
    }
    const blocks = outcome.kind === 'page' ? outcome.blocks : [];
    if (blocks.some((b) => b.includes('may refer to:'))) {
      if (depth >= this.opts.maxDisambiguationRetries) {
        throw new WikiDisambiguationLoopError(`search[${entity}]: "may refer to:" after ${depth} bracketed retries`);
      }
      await this.searchStep('[' + entity + ']', depth + 1, signal);
      return;
    }
    this.page = buildPage(blocks, this.clean);
    this.sentences = pageSentences(this.page);
    this.obs = sentencesObservation(this.sentences);
    this.lookupKeyword = null;
    this.lookupResults = [];
    this.cnt = 0;
  }
}
