// The notebook's webshopEnv session state machine (WebShop.ipynb `webshopEnv.step`; docs/protocol.md §9,
// "The notebook's own session state machine"), as pure functions: an action either is
// refused (the notebook's AssertionError → "Invalid action!", nothing fetched) or yields the next
// session state, whose page is then fetched and converted. Read from the released code, including
// what the spec's summary leaves out:
// - "reset" is accepted at any time (the model may write it) and goes back to the start page;
// - think[...] re-fetches the current page (the loop then shows "OK."); "think" without "[" is refused
//   by the env (the loop still shows "OK.": every action starting with "think" reads "OK.");
// - search[q] and click[b] take action[7:-1] / action[6:-1]: the last character is dropped whatever it is;
// - click[X] on the start, sub or done page falls through every branch: no refusal, the same page is
//   fetched again (only the search and item pages check X);
// - the page info (asins, option_types, reward) is merged into the session after each fetch and is
//   only replaced when a page has some: an item page without options keeps the option_types of the
//   last item page seen since the last search, so clicking one of those values is accepted.
// - click[X] on a results page that listed no products is refused: the page info then has no 'asins',
//   and the notebook asserts `button in self.sessions[session].get('asins', [])` (an AssertionError,
//   "Invalid action!"; no KeyError, so no crash).
import { pyStrRepr } from '../../util/python-repr.js';
import type { PageInfo, PageType } from './page-text.js';

export const SUB_PAGES = ['Description', 'Features', 'Reviews', 'Attributes'] as const;

/** The notebook's self.sessions[session] dict. */
export interface SessionState {
  session: string;
  page_type: PageType;
  query_string?: string;
  page_num?: number;
  asin?: string;
  subpage?: string;
  /** The chosen options, a Python dict: insertion order kept, an update keeps a key's place. */
  options?: Map<string, string>;
  asins?: string[];
  option_types?: Map<string, string>;
  reward?: number;
}

export function initialState(session: string): SessionState {
  return { session, page_type: 'init' };
}

/** str(dict) of str → str, as f'{options}' writes it: {'size': "men's 10"}. */
export function pyDictRepr(options: ReadonlyMap<string, string> | undefined): string {
  if (!options || options.size === 0) return '{}';
  return '{' + [...options].map(([k, v]) => `${pyStrRepr(k)}: ${pyStrRepr(v)}`).join(', ') + '}';
}

/** The URL string webshop_text formats for a state (WEBSHOP_URL without a trailing slash). */
export function notebookUrl(base: string, s: SessionState): string {
  const options = pyDictRepr(s.options);
  const page = s.page_num ?? 1;
  switch (s.page_type) {
    case 'init':
      return `${base}/${s.session}`;
    case 'search':
      return `${base}/search_results/${s.session}/${s.query_string ?? ''}/${page}`;
    case 'item':
      return `${base}/item_page/${s.session}/${s.asin ?? ''}/${s.query_string ?? ''}/${page}/${options}`;
    case 'item_sub':
      return `${base}/item_sub_page/${s.session}/${s.asin ?? ''}/${s.query_string ?? ''}/${page}/${s.subpage ?? ''}/${options}`;
    case 'end':
      return `${base}/done/${s.session}/${s.asin ?? ''}/${options}`;
  }
}

export type Transition =
  | { kind: 'refused'; reason: string }
  | {
      kind: 'fetch';
      next: SessionState;
      done: boolean;
      /** 'You have clicked X.' replaces the page text after an option click. */
      observationOverride?: string;
      think?: boolean;
    };

/** Python's s[start:-1] on code points (the notebook slices str, not UTF-16). */
function argOf(action: string, prefixLength: number): string {
  const cps = Array.from(action);
  return cps.slice(prefixLength, Math.max(prefixLength, cps.length - 1)).join('');
}

function clone(s: SessionState): SessionState {
  return {
    ...s,
    ...(s.options ? { options: new Map(s.options) } : {}),
    ...(s.option_types ? { option_types: new Map(s.option_types) } : {}),
    ...(s.asins ? { asins: [...s.asins] } : {}),
  };
}

const refused = (reason: string): Transition => ({ kind: 'refused', reason });

/** webshopEnv.step's decision for one action (no I/O). */
export function transition(state: SessionState, action: string): Transition {
  const s = clone(state);
  const fetch = (next: SessionState, extra: Partial<Extract<Transition, { kind: 'fetch' }>> = {}): Transition => ({
    kind: 'fetch',
    next,
    done: false,
    ...extra,
  });
  if (action === 'reset') return fetch(initialState(s.session));
  if (action.startsWith('think[')) return fetch(s, { think: true });
  if (action.startsWith('search[')) {
    if (s.page_type !== 'init') return refused(`search[...] only from the start page (now ${s.page_type})`);
    return fetch({ session: s.session, page_type: 'search', query_string: argOf(action, 7), page_num: 1 });
  }
  if (!action.startsWith('click[')) return refused('not reset, think[...], search[...] or click[...]');
  const button = argOf(action, 6);
  const page = s.page_type;
  if (button === 'Buy Now') {
    if (page !== 'item') return refused(`Buy Now only from an item page (now ${page})`);
    return fetch({ ...s, page_type: 'end' }, { done: true });
  }
  if (button === 'Back to Search') {
    if (page !== 'search' && page !== 'item_sub' && page !== 'item') return refused(`Back to Search not from the ${page} page`);
    return fetch(initialState(s.session));
  }
  if (button === 'Next >') return refused('Next > is disabled in the notebook (ad hoc page limitation)');
  if (button === '< Prev') {
    if (page === 'item_sub') return fetch({ ...s, page_type: 'item' });
    if (page === 'item') return fetch({ ...s, page_type: 'search', options: new Map() });
    return refused(page === 'search' ? '< Prev on a results page is disabled in the notebook' : `< Prev not from the ${page} page`);
  }
  if ((SUB_PAGES as readonly string[]).includes(button)) {
    if (page !== 'item') return refused(`${button} only from an item page (now ${page})`);
    return fetch({ ...s, page_type: 'item_sub', subpage: button });
  }
  if (page === 'search') {
    // .get('asins', []): a page without products refuses every click, as the notebook does.
    if (!s.asins) return refused('this results page has no products');
    if (!s.asins.includes(button)) return refused(`${button} is not a product of this results page`);
    return fetch({ ...s, page_type: 'item', asin: button });
  }
  if (page === 'item') {
    if (!s.option_types) return refused('this item page has no options');
    const type = s.option_types.get(button);
    if (type === undefined) return refused(`${button} is not an option of this item page`);
    const options = new Map(s.options ?? []);
    options.set(type, button);
    return fetch({ ...s, options }, { observationOverride: `You have clicked ${button}.` });
  }
  // init, item_sub, end: the notebook's if/elif has no branch for them, so the page is fetched again.
  return fetch(s);
}

/** self.sessions[session].update(info): keys present in the page info replace the session's. */
export function mergeInfo(s: SessionState, info: PageInfo): SessionState {
  const out = { ...s };
  if (info.option_types) out.option_types = new Map(info.option_types);
  if (info.asins) out.asins = [...info.asins];
  if (info.reward !== undefined) out.reward = info.reward;
  return out;
}
