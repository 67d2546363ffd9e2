// The one bridge from our option tables (src/options.ts) to yargs: only src/cli knows the parser.
import type { Options } from 'yargs';
import type { OptionTable } from '../options.js';

export function yargsOptions(table: OptionTable): Record<string, Options> {
  const out: Record<string, Options> = {};
  for (const [flag, spec] of Object.entries(table)) {
    const o: Options = { type: spec.type, describe: spec.describe };
    if (spec.choices) o.choices = [...spec.choices];
    if (spec.default !== undefined) o.default = spec.default;
    if (spec.hidden) o.hidden = true;
    if (spec.group) o.group = spec.group;
    out[flag] = o;
  }
  return out;
}
