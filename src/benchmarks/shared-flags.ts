// A flag several benchmarks declare (--env-url for ALFWorld and WebShop, the Wikipedia flags for
// HotpotQA and FEVER) is one flag of `run`: one parser type for all of them, so the rule is that they
// agree in type (and choices), checked when a benchmark is created; the help text names every
// benchmark that uses the flag and keeps each one's description when they differ.
import { UserError } from '../errors.js';
import type { OptionSpec, OptionTable } from '../options.js';

/** What a benchmark declares, as far as its flags go. */
export interface FlagDeclarer {
  name: string;
  title: string;
  options: OptionTable;
}

const choicesOf = (s: OptionSpec): string => (s.choices ? [...s.choices].sort().join('|') : '');
const typeOf = (s: OptionSpec): string => (s.choices ? `${s.type} (${s.choices.join('|')})` : s.type);

/** UserError (one line naming both benchmarks) when the two declare a flag of one name with different types. */
export function checkSharedFlags(a: FlagDeclarer, b: FlagDeclarer): void {
  for (const [flag, sa] of Object.entries(a.options)) {
    const sb = b.options[flag];
    if (!sb || (sa.type === sb.type && choicesOf(sa) === choicesOf(sb))) continue;
    throw new UserError(
      `--${flag}: benchmarks "${a.name}" and "${b.name}" both declare it, as ${typeOf(sa)} and ${typeOf(sb)}: a flag shared by benchmarks must have one type (rename one of them)`,
    );
  }
}

/**
 * The benchmarks' flags as one table (checked pairwise first). A shared flag is listed once under a
 * heading naming its benchmarks; differing descriptions are all kept, each after its benchmark's title;
 * differing defaults are left to each benchmark (the run applies its own benchmark's defaults).
 */
export function mergeBenchmarkFlags(benches: readonly FlagDeclarer[]): OptionTable {
  for (let i = 0; i < benches.length; i++) for (let j = i + 1; j < benches.length; j++) checkSharedFlags(benches[i], benches[j]);
  const out: OptionTable = {};
  const flags = [...new Set(benches.flatMap((b) => Object.keys(b.options)))];
  for (const flag of flags) {
    const users = benches.filter((b) => flag in b.options);
    const specs = users.map((b) => b.options[flag]);
    const first = specs[0];
    const { default: _d, ...shape } = first;
    const describes = new Set(specs.map((s) => s.describe));
    const defaults = new Set(specs.map((s) => JSON.stringify(s.default)));
    out[flag] = {
      group: `${users.map((b) => b.title).join(' / ')} options:`,
      ...shape,
      describe: describes.size === 1 ? first.describe : users.map((b, i) => `${b.title}: ${specs[i].describe}`).join('; '),
      ...(defaults.size === 1 && first.default !== undefined ? { default: first.default } : {}),
    };
  }
  return out;
}
