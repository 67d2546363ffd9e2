// HotpotQA on the offline Wikipedia (README "Reliability"). The shipped snapshot holds the gold pages of
// 1906 of the 7405 dev questions (envs/wikipedia/hotpotqa-2017/covered_dev_indices.json, the `offline`
// splits), only 123 of the paper's 500: a run of other questions searches it for pages it does not
// have. hotpotqaEvidenceGap says how many of a run's questions it covers, for the run's start notice
// and Table 1's caveat (one rule, as FEVER's feverEvidenceGap).
import { coveredIndexSet, coveredIndicesFile } from '../qa/datasets.js';
import { evidenceNotice } from '../qa/evidence-notice.js';
import { PAPER_RANGE } from '../qa/splits.js';
import type { EvidenceGap, SearchedRun } from '../qa/evidence-gap.js';
import { usesSnapshot } from '../qa/wiki-env.js';

/**
 * The rule: a HotpotQA run that searched the shipped snapshot (the default Wikipedia; a --wiki-snapshot
 * of the user's own is not checked) on questions whose gold pages are not all in it does not measure
 * the paper's task. null: the run does not search that snapshot, or every question is covered.
 */
export function hotpotqaEvidenceGap(run: SearchedRun, coveredFile: string = coveredIndicesFile): EvidenceGap | null {
  if (!run.searches || !usesSnapshot(run.wiki) || run.wiki['wiki-snapshot'] !== undefined) return null;
  const set = coveredIndexSet(coveredFile, PAPER_RANGE);
  const n = run.indices.filter((i) => set.has(i)).length;
  if (n === run.indices.length) return null;
  return {
    wikipedia: 'the offline 2017 HotpotQA Wikipedia snapshot',
    coverage: `the gold pages of ${n} of its ${run.indices.length} questions are all in it`,
    remedy: `--split offline500 (the first 500 of the ${set.size} questions whose pages are all there, in the paper's shuffle order) or --wiki live`,
  };
}

/** The notice a HotpotQA run prints before it starts when hotpotqaEvidenceGap finds a gap, or null. */
export function hotpotqaSnapshotNotice(run: SearchedRun, coveredFile: string = coveredIndicesFile): string | null {
  const gap = hotpotqaEvidenceGap(run, coveredFile);
  return gap ? evidenceNotice('HotpotQA', run.split, gap) : null;
}
