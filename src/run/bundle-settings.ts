// The settings stored in a bundle are input we do not control (bundles are published and downloaded):
// before a re-run uses them they go through the validation an experiment file gets (validateSettings
// over the same OptionSpec tables as the flags: known keys only, declared types and choices; the
// modules that read each setting then check its range as for a flag), and no path is taken from them:
// a re-run, and any later --resume of it, writes only under --results-dir.
import { UserError } from '../errors.js';
import type { OptionTable, SettingValue, Settings } from '../options.js';
import { validateSettings } from './experiment.js';
import { isSessionOnly, optionIndex } from './options.js';

/**
 * The stored settings of a bundled run checked against `table` (every option `run` accepts): a key
 * that is not an option, a value of the wrong type or outside its choices is a UserError naming
 * `where` and the key. Settings that name a file on the machine that made the bundle (OptionSpec.path)
 * are dropped, and a flag with OptionSpec.inBundle keeps what that says. Returns a new object.
 */
export function bundleSettings(raw: unknown, table: OptionTable, where: string): Settings {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new UserError(`${where}: settings: expected an object of run settings`);
  const index = optionIndex(table);
  const plain: Settings = {};
  const lists: Settings = {};
  for (const [key, v] of Object.entries(raw as Record<string, unknown>)) {
    if (v === undefined || v === null || isSessionOnly(key)) continue;
    // a repeatable string flag (--base-url A --base-url B) is stored as a list of strings
    if (Array.isArray(v) && index.get(key)?.opt.type === 'string' && v.every((x) => typeof x === 'string') && key !== 'indices')
      lists[key] = v;
    else plain[key] = v;
  }
  const checked = { ...validateSettings(where, 'settings', plain, table), ...lists };
  const out: Settings = {};
  for (const [key, v] of Object.entries(checked)) {
    const opt = index.get(key)?.opt;
    if (opt?.path) continue;
    // validateSettings let through only a value of the flag's type, or a list of strings
    const value = opt?.inBundle ? opt.inBundle(v as SettingValue) : v;
    if (value !== undefined) out[key] = value;
  }
  return out;
}
