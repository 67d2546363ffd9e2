// Table 2 (paper §3.3; docs/protocol.md §1) for HotpotQA and FEVER: which runs are sampled (ReAct and
// CoT, as the paper), what counts as correct (EM, "judged by EM" in the paper; the benchmarks'
// isCorrect, which the trajectory browser and export use too), the paper's six categories a person
// labels with, and the tags a trajectory shows by itself. The report core (src/report/table2.ts) does
// the sampling, the label sheet and the table through this hook.
import type { AnalysedEpisode, AnalysisLabel, ErrorAnalysis } from '../../types.js';
import { NO_RESULTS_BLOCKS } from '../../../envs/wikipedia/offline-pages.js';
import { searchesWikipedia } from '../methods/index.js';

/** The paper's Table 2 rows; success_* label correct trajectories, failure_* incorrect ones. */
export const QA_CATEGORIES: readonly AnalysisLabel[] = [
  { key: 'success_true_positive', label: 'Success: true positive' },
  { key: 'success_false_positive', label: 'Success: false positive (hallucinated reasoning or facts)' },
  { key: 'failure_reasoning_error', label: 'Failure: reasoning error (incl. repetitive steps)' },
  { key: 'failure_search_result_error', label: 'Failure: search result error' },
  { key: 'failure_hallucination', label: 'Failure: hallucination' },
  { key: 'failure_label_ambiguity', label: 'Failure: label ambiguity' },
];

export const QA_TAGS: readonly AnalysisLabel[] = [
  { key: 'search-not-found', label: 'search found nothing useful' },
  { key: 'repeated-action', label: 'repeated identical actions' },
  { key: 'step-limit', label: 'no answer within the step limit' },
  { key: 'label-ambiguity', label: 'label ambiguity (F1 > 0, EM 0)' },
];

const normAction = (a: string) => a.trim().replace(/\s+/g, ' ').toLowerCase();

/** The same action twice in a row, or three times in all: the "repetitive steps" the paper counts as reasoning errors. */
function hasRepeatedAction(actions: readonly string[]): boolean {
  const xs = actions.map(normAction).filter((a) => a !== '');
  const counts = new Map<string, number>();
  return xs.some((a, i) => {
    counts.set(a, (counts.get(a) ?? 0) + 1);
    return (i > 0 && xs[i - 1] === a) || counts.get(a)! >= 3;
  });
}

/**
 * Whether a search's observation says the search found no page (docs/protocol.md §6), whichever
 * backend answered:
 * - `Could not find <entity>. Similar: [...]`: no page has that title (every backend; wikienv's reply
 *   when the site lists search results instead of a page);
 * - MediaWiki's "There were no results matching the query." anywhere in it: no page and no hit. The
 *   snapshot and api backends answer that page (NO_RESULTS_BLOCKS), observed as
 *   `There were no results matching the query..`; the live site's page adds its skin text around it;
 * - an empty observation: an empty search term (or a page with no text) gave nothing to read.
 */
export function isNoHitObservation(observation: string): boolean {
  const o = observation.trim();
  return o === '' || o.startsWith('Could not find') || NO_RESULTS_BLOCKS.some((b) => o.includes(b));
}

/**
 * The tags of QA_TAGS an episode shows:
 * - search-not-found: it searched, and every search found no page (isNoHitObservation);
 * - repeated-action: see hasRepeatedAction;
 * - step-limit: the loop forced finish[] (forced_finish, docs/protocol.md §4 step 5);
 * - label-ambiguity: partly right, F1 > 0 with EM 0.
 */
export function qaAutoTags(e: AnalysedEpisode): string[] {
  const tags: string[] = [];
  const steps = e.steps ?? [];
  const searches = steps.filter((s) => /^search\[/i.test(s.action.trim()));
  if (searches.length > 0 && searches.every((s) => isNoHitObservation(s.observation))) tags.push('search-not-found');
  if (hasRepeatedAction(steps.map((s) => s.action))) tags.push('repeated-action');
  if (e.forced_finish === true) tags.push('step-limit');
  const { em, f1 } = e.metrics ?? {};
  if (em === 0 && typeof f1 === 'number' && f1 > 0) tags.push('label-ambiguity');
  return tags;
}

/**
 * The categories that apply to a method's trajectories, as the paper's Table 2 has them: a search
 * result error only where the method searches (ReAct, and Act); CoT never searches, so its column
 * has none ("—" in the paper) and its sheet never offers it.
 */
export function qaCategoriesOf(method: string): readonly AnalysisLabel[] {
  return searchesWikipedia(method) ? QA_CATEGORIES : QA_CATEGORIES.filter((c) => c.key !== 'failure_search_result_error');
}

/**
 * A correct HotpotQA or FEVER episode (Benchmark.isCorrect): EM = 1, as the paper's Table 2 splits its
 * sample; a partial F1 is never correct. FEVER's EM is label accuracy.
 */
export const qaIsCorrect = (e: AnalysedEpisode): boolean => e.metrics?.em === 1;

/** HotpotQA and FEVER (FEVER's F1 equals EM, so it never shows label-ambiguity). */
export const qaErrorAnalysis: ErrorAnalysis = {
  methods: ['react', 'cot'],
  categories: QA_CATEGORIES,
  categoriesOf: qaCategoriesOf,
  tags: QA_TAGS,
  autoTags: qaAutoTags,
};
