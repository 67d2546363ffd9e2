// From an index.php (or action=parse) HTML page to the SearchOutcome the released code would act on (§6).
import type { SearchOutcome } from './backend.js';
import { findAll, getText, parseSoup } from '../../util/bs4-html-parser.js';
import { pyStrip } from '../../util/python-str.js';

/** Search-results page → the heading texts; otherwise every <p>'s text, then every <ul>'s (stripped). */
export function outcomeFromHtml(html: string): SearchOutcome {
  const soup = parseSoup(html);
  const headings = findAll(soup, 'div', 'mw-search-result-heading');
  if (headings.length > 0) return { kind: 'similar', titles: headings.map((h) => pyStrip(getText(h))) };
  // All p's first, then all ul's (not document order), as soup.find_all("p") + soup.find_all("ul").
  const blocks = [...findAll(soup, 'p'), ...findAll(soup, 'ul')].map((e) => pyStrip(getText(e)));
  return { kind: 'page', blocks };
}
