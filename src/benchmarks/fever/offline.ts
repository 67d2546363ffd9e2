// FEVER on the offline Wikipedia (README "Reliability"). The shipped snapshot holds the 2017 HotpotQA pages, and
// most FEVER evidence pages are not among them, so FEVER's paper splits run offline against missing
// pages without a word. This module finds the claims the snapshot can serve: the `offline` split, and
// the coverage a run's notice reports (feverEvidenceGap, which also puts Table 1's caveat on the column).
// - FEVER evidence is a list of alternative evidence sets, each a list of [annotation, evidence id,
//   page id, sentence]; page ids use "_" for spaces and PTB escapes (-LRB- for "(", -COLON- for ":"),
//   decoded by feverTitle. A claim is covered when EVERY page named in any of its evidence sets is in
//   the snapshot (the strict reading: whichever set the agent follows, its pages are there).
// - NOT ENOUGH INFO claims name no pages (their rows hold nulls): whether the snapshot covers what
//   they are about cannot be checked, so they are left out of the split, which therefore holds
//   SUPPORTS and REFUTES claims only (a 2-way label mix, unlike the paper's 3-way FEVER).
// - Snapshot titles are matched as the snapshot's exact lookup matches them (normalizeTitle), after
//   decoding the HTML entities some HotpotQA titles carry ("&amp;"), as the snapshot build does, and
//   in Unicode NFC on both sides (FEVER's page ids are decomposed: "Simón" as o + combining accent).
// Computed lazily from the two vendored files (≈0.3 s) and memoised per process; nothing is written.
import fs from 'node:fs';
import { UserError, errorMessage, errorCode } from '../../errors.js';
import { SHIPPED_PAGES, normalizeTitle } from '../../envs/wikipedia/snapshot.js';
import { feverTitle, unescapeTitle } from '../../envs/wikipedia/snapshot-sources.js';
import type { EvidenceGap, SearchedRun } from '../qa/evidence-gap.js';
import { usesSnapshot } from '../qa/wiki-env.js';
import { feverDevFile } from '../qa/datasets.js';
import { evidenceNotice } from '../qa/evidence-notice.js';

export const NOT_ENOUGH_INFO = 'NOT ENOUGH INFO';

export interface ClaimEvidence {
  label: string;
  /** Distinct page ids named by the claim's evidence sets (empty for NOT ENOUGH INFO). */
  pages: string[];
}

/** Pure: the evidence pages of one paper_dev.jsonl object. */
export function evidencePages(obj: { evidence?: unknown }): string[] {
  const pages = new Set<string>();
  const sets = Array.isArray(obj.evidence) ? obj.evidence : [];
  for (const set of sets) {
    if (!Array.isArray(set)) continue;
    for (const row of set) if (Array.isArray(row) && typeof row[2] === 'string' && row[2] !== '') pages.add(row[2]);
  }
  return [...pages];
}

const evidenceCache = new Map<string, ClaimEvidence[]>();
/** Label and evidence pages of every claim of a FEVER file, in file order (memoised). */
export function loadClaimEvidence(file: string): ClaimEvidence[] {
  let out = evidenceCache.get(file);
  if (out) return out;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UserError(`${file}: cannot read the FEVER data (${errorCode(e) ?? errorMessage(e)})`);
  }
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  out = lines.map((line, i) => {
    let obj: { label?: unknown; evidence?: unknown };
    try {
      obj = JSON.parse(line);
    } catch {
      throw new UserError(`${file}:${i + 1}: invalid JSON (expected one claim object a line)`);
    }
    return { label: String(obj.label ?? ''), pages: evidencePages(obj) };
  });
  evidenceCache.set(file, out);
  return out;
}

const titleCache = new Map<string, Set<string>>();
/** The normalised titles of a {"title", "sentences"} JSONL page file (memoised). */
export function snapshotTitles(file: string = SHIPPED_PAGES): Set<string> {
  let titles = titleCache.get(file);
  if (titles) return titles;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UserError(`${file}: cannot read the offline Wikipedia pages (${errorCode(e) ?? errorMessage(e)})`);
  }
  titles = new Set();
  // Only the title is needed: read it from the head of each line instead of parsing the sentences.
  const head = /^\{\s*"title"\s*:\s*("(?:[^"\\]|\\.)*")/;
  for (const line of text.split('\n')) {
    if (!line) continue;
    const m = head.exec(line);
    const raw = m ? (JSON.parse(m[1]) as string) : (JSON.parse(line) as { title?: unknown }).title;
    if (typeof raw === 'string') titles.add(titleKey(unescapeTitle(raw)));
  }
  titleCache.set(file, titles);
  return titles;
}

/** How a title is compared: the snapshot's exact-match normalisation, in NFC. */
export function titleKey(title: string): string {
  return normalizeTitle(title.normalize('NFC'));
}

/** Pure: whether every evidence page of a claim is among `titles` (false for a claim with none). */
export function isCovered(claim: ClaimEvidence, titles: ReadonlySet<string>): boolean {
  return claim.pages.length > 0 && claim.pages.every((p) => titles.has(titleKey(feverTitle(p))));
}

/** Pure: dataset indices of the covered claims (SUPPORTS/REFUTES with all pages present), ascending. */
export function coveredClaimIndices(claims: readonly ClaimEvidence[], titles: ReadonlySet<string>): number[] {
  const out: number[] = [];
  claims.forEach((c, i) => {
    if (c.label !== NOT_ENOUGH_INFO && isCovered(c, titles)) out.push(i);
  });
  return out;
}

/** The `offline` split of a FEVER file against the shipped snapshot. */
export function feverOfflineIndices(dataFile: string, pagesFile: string = SHIPPED_PAGES): number[] {
  return coveredClaimIndices(loadClaimEvidence(dataFile), snapshotTitles(pagesFile));
}

export interface Coverage {
  /** Claims among the indices that name evidence pages (SUPPORTS/REFUTES). */
  checkable: number;
  /** Of those, the claims whose pages are all in the snapshot. */
  covered: number;
  /** NOT ENOUGH INFO claims among the indices. */
  nei: number;
}

/** Pure: how much of a selection of claims the snapshot covers. */
export function coverageOf(indices: readonly number[], claims: readonly ClaimEvidence[], titles: ReadonlySet<string>): Coverage {
  let checkable = 0;
  let covered = 0;
  let nei = 0;
  for (const i of indices) {
    const c = claims[i];
    if (!c) continue;
    if (c.label === NOT_ENOUGH_INFO || c.pages.length === 0) {
      nei++;
      continue;
    }
    checkable++;
    if (isCovered(c, titles)) covered++;
  }
  return { checkable, covered, nei };
}

/**
 * The rule (README "Reliability"): a FEVER run that searched the shipped 2017 HotpotQA snapshot (the
 * default Wikipedia; a --wiki-snapshot of the user's own is not checked) on claims whose evidence pages
 * are not all in it does not measure the paper's task. null: the run does not search that snapshot, or
 * every claim's pages are there. The run's start notice (snapshotNotice) and Table 1's caveat both
 * come from here.
 */
export function feverEvidenceGap(run: SearchedRun, dataFile: string = feverDevFile, pagesFile: string = SHIPPED_PAGES): EvidenceGap | null {
  if (!run.searches || !usesSnapshot(run.wiki) || run.wiki['wiki-snapshot'] !== undefined) return null;
  const cov = coverageOf(run.indices, loadClaimEvidence(dataFile), snapshotTitles(pagesFile));
  if (cov.checkable === cov.covered && cov.nei === 0) return null;
  const all = feverOfflineIndices(dataFile, pagesFile).length;
  return {
    wikipedia: 'the offline 2017 HotpotQA Wikipedia snapshot',
    coverage:
      `the evidence pages of ${cov.covered} of its ${cov.checkable} SUPPORTS/REFUTES claims are all in it` +
      (cov.nei ? ` (its ${cov.nei} NOT ENOUGH INFO claims name none)` : ''),
    remedy: `--split offline (the ${all} claims whose pages are all there) or --wiki live`,
  };
}

/** The one-line notice a FEVER run prints before it starts when feverEvidenceGap finds a gap, or null. */
export function snapshotNotice(run: SearchedRun, dataFile: string = feverDevFile, pagesFile: string = SHIPPED_PAGES): string | null {
  const gap = feverEvidenceGap(run, dataFile, pagesFile);
  return gap ? evidenceNotice('FEVER', run.split, gap) : null;
}
