// The page dumps an offline snapshot is built from (docs/protocol.md §6 "Offline snapshots"): the
// shipped 2017 HotpotQA pages (JSONL {"title","sentences"}), HotpotQA's full 2017-10-01 abstracts dump
// (trees of .bz2 JSON lines {"title","text": [[sentence...]...]} with <a href> markup) and FEVER's
// wiki-pages (JSONL {"id","text","lines"}): their page type and the pure title and text conversions.
// The file readers are in snapshot-source-readers.ts (build side only: they load node:readline and
// unbzip2-stream, which a run does not need; bench/results-start.md).
import { getText, parseSoup } from '../../util/bs4-html-parser.js';

export interface SourcePage {
  title: string;
  paragraphs: string[];
}

export type SourceFormat = 'hotpotqa-pages' | 'hotpotqa-abstracts' | 'fever';

/** Title text with HTML entities decoded ("&quot;Q&quot; Is for Quarry" → "\"Q\" Is for Quarry"). */
export function unescapeTitle(s: string): string {
  return s.includes('&') ? getText(parseSoup(s)) : s;
}

/** Removes link markup (<a href="...">text</a> → text) from HotpotQA abstract sentences. */
export function stripLinks(s: string): string {
  return s.replace(/<a\s[^>]*>|<\/a>/gi, '');
}

const FEVER_ESCAPES: Record<string, string> = {
  '-LRB-': '(', '-RRB-': ')', '-LSB-': '[', '-RSB-': ']', '-LCB-': '{', '-RCB-': '}', '-COLON-': ':',
};
/** FEVER ids: underscores for spaces and PTB escapes for brackets and colons. */
export function feverTitle(id: string): string {
  return id.replace(/-(LRB|RRB|LSB|RSB|LCB|RCB|COLON)-/g, (m) => FEVER_ESCAPES[m]).replaceAll('_', ' ');
}
/** FEVER text is tokenised with the same escapes. */
export function feverText(text: string): string {
  return text.replace(/-(LRB|RRB|LSB|RSB|LCB|RCB|COLON)-/g, (m) => FEVER_ESCAPES[m]);
}
