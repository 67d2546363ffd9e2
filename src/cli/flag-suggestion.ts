// A flag given misspelt (`--methd`) is refused by yargs' strict mode as "Unknown argument: methd"; the
// one line then also names the flag meant, when one of the command's flags is a slip of the keyboard
// away (README "Hostile input": one line that says what to fix).
import { distance } from 'fastest-levenshtein';

/** The edits a name of this length may be away from a flag to be taken for it: one, two from five letters on. */
const allowedEdits = (name: string) => (name.length >= 5 ? 2 : 1);

/**
 * "; did you mean --method?" for yargs' unknown-argument message when each unknown name is near exactly
 * one of `known` (the command's flags, without dashes), else "".
 */
export function flagSuggestion(message: string, known: readonly string[]): string {
  const m = /^Unknown arguments?: (.+)$/.exec(message.trim());
  if (!m) return '';
  const meant: string[] = [];
  const names = m[1].split(', ').map((n) => n.replace(/^-+/, ''));
  // yargs names a kebab-case flag twice, also camelCased (results-dri, resultsDri)
  // (camelCased here, not with src/run/options.ts: every command's parse loads this module, --help too)
  const kebab = new Set(names.filter((n) => n.includes('-')).map((n) => n.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())));
  for (const bare of names.filter((n) => !kebab.has(n))) {
    // a flag cut short (--lim) is the one it begins, when only one does
    const begun = known.filter((k) => k.startsWith(bare));
    if (bare.length >= 3 && begun.length === 1) {
      meant.push(`--${begun[0]}`);
      continue;
    }
    const scored = known.map((k) => ({ k, d: distance(bare, k) })).filter((x) => x.d > 0 && x.d <= allowedEdits(bare));
    const best = Math.min(...scored.map((x) => x.d));
    const at = scored.filter((x) => x.d === best);
    // no guess where two flags are as near (--limt: --limit or --lim?)
    if (at.length !== 1) return '';
    meant.push(`--${at[0].k}`);
  }
  return `; did you mean ${meant.join(', ')}?`;
}
