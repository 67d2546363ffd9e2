// §6 _get_page_obs / construct_lookup_list: the page is split into paragraphs on "\n", each paragraph
// into "sentences" on ". ", and each kept sentence gets its "." back.
import { pyLower, pyStrip } from '../../util/python-str.js';

export function pageSentences(page: string): string[] {
  const sentences: string[] = [];
  for (const line of page.split('\n')) {
    const p = pyStrip(line);
    if (!p) continue;
    for (const s of p.split('. ')) {
      const t = pyStrip(s);
      if (t) sentences.push(t + '.');
    }
  }
  return sentences;
}

/** The observation after a successful search: the first five sentences joined by a space. */
export function pageObservation(page: string): string {
  return sentencesObservation(pageSentences(page));
}

/** pageObservation of a page's sentences already split. */
export function sentencesObservation(sentences: readonly string[]): string {
  return sentences.slice(0, 5).join(' ');
}

/** The sentences containing the keyword, case-insensitively (Python str.lower); [] when no page yet. */
export function lookupList(page: string | null, keyword: string): string[] {
  if (page === null) return [];
  return sentencesWith(pageSentences(page), keyword);
}

/** lookupList over a page's sentences already split (pageSentences), so a page is split once per search. */
export function sentencesWith(sentences: readonly string[], keyword: string): string[] {
  const k = pyLower(keyword);
  return sentences.filter((s) => pyLower(s).includes(k));
}

/**
 * The page text built from the blocks of an article: blocks with more than two space-separated
 * tokens, each passed through clean_str and ended with "\n" (blocks are stripped, so the released
 * code's "unless it already ends with \n" never applies).
 */
export function buildPage(blocks: readonly string[], clean: (s: string) => string): string {
  let page = '';
  for (const b of blocks) {
    if (b.split(' ').length > 2) {
      page += clean(b);
      if (!b.endsWith('\n')) page += '\n';
    }
  }
  return page;
}
