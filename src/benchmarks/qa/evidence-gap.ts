// The types an evidence rule speaks in (a run as it sees it, and the gap it finds), apart from the task
// specs that name each task's rule, so the rules (fever/offline.ts, hotpotqa/offline.ts) and the
// notice they print need not import the specs that import them.
import type { WikiArgv } from '../../envs/wikipedia/index.js';

/** A run as an evidence rule sees it: whether it searched Wikipedia, with which flags, on which items. */
export interface SearchedRun {
  /** Whether its episodes searched Wikipedia (ReAct and Act do; a stored run: its manifest records an environment). */
  searches: boolean;
  /** Its Wikipedia flags (wiki-env.ts wikiArgv of its settings). */
  wiki: WikiArgv;
  split: string;
  indices: readonly number[];
}

/** Why a run's scores do not measure the paper's task: the Wikipedia it searched lacks its items' evidence. */
export interface EvidenceGap {
  /** The Wikipedia it searched ("the offline 2017 HotpotQA Wikipedia snapshot"). */
  wikipedia: string;
  /** How much of the evidence is there, a clause ("the evidence pages of 18 of its 321 … claims are all in it"). */
  coverage: string;
  /** What to run instead ("--split offline … or --wiki live"). */
  remedy: string;
}
