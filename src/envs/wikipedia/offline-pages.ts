// What the non-scraping backends answer where the live site shows a page without results
// (§6: `if result_divs:` is false, so the released code reads that page's p/ul text).
// MediaWiki's message for a search without hits is "There were no results matching the query."
// (the skin's lists, which the live page would add, are left out).
export const NO_RESULTS_BLOCKS: readonly string[] = ['There were no results matching the query.'];
