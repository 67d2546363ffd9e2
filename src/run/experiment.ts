// Experiment files (experiments/<name>.json): the settings of `run` as JSON, camelCase flag names.
//   { "description": "...", "defaults": { "task": "hotpotqa", ... }, "runs": [ { "method": "cot" }, ... ] }
// or one run's settings at the top level. Each run = defaults + its own fields; flags given on the
// command line override both. Unknown fields and wrong types are UserErrors naming the file and field.
import type { OptionTable } from '../options.js';
import { UserError } from '../errors.js';
import { readJsonFile } from '../runlog/store.js';
import { isJsonObject, JsonFields } from '../util/json-fields.js';
import { camelCase, layerSettings, optionIndex } from './options.js';

export type { Settings } from '../options.js';
import type { Settings } from '../options.js';

export interface Experiment {
  file: string;
  description?: string;
  runs: Settings[];
}

/** Fields whose JSON form may also be a list (the flag takes a comma list). */
const LIST_FIELDS = new Set(['indices', 'fromRuns']);

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return `"${v}"`;
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${String(v)}`;
}

export function validateSettings(file: string, where: string, value: unknown, table: OptionTable): Settings {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new UserError(`${file}: ${where || 'top level'} must be an object of run settings`);
  }
  const index = optionIndex(table);
  const out: Settings = {};
  const fields = JsonFields.orEmpty(value);
  for (const key of fields.keys()) {
    const v = fields.get(key);
    const field = where ? `${where}.${key}` : key;
    const entry = index.get(key);
    if (!entry || entry.opt.session) {
      const hint = index.has(camelCase(key)) ? ` (fields are camelCase: ${camelCase(key)})` : '';
      throw new UserError(`${file}: unknown field "${field}"${hint}`);
    }
    const { opt } = entry;
    if (LIST_FIELDS.has(key) && Array.isArray(v)) {
      const elem = key === 'indices' ? 'number' : 'string';
      if (!v.every((x) => typeof x === elem)) throw new UserError(`${file}: ${field}: expected a list of ${elem}s`);
      out[key] = v;
      continue;
    }
    switch (opt.type) {
      case 'number':
        if (typeof v !== 'number' || !Number.isFinite(v)) throw new UserError(`${file}: ${field}: expected a number, got ${typeName(v)}`);
        break;
      case 'boolean':
        if (typeof v !== 'boolean') throw new UserError(`${file}: ${field}: expected true or false, got ${typeName(v)}`);
        break;
      case 'string':
        if (typeof v !== 'string') throw new UserError(`${file}: ${field}: expected a string, got ${typeName(v)}`);
        break;
      default:
        if (!['string', 'number', 'boolean'].includes(typeof v))
          throw new UserError(`${file}: ${field}: expected a string, number or boolean, got ${typeName(v)}`);
    }
    if (opt.choices && !opt.choices.some((c) => c === v)) {
      throw new UserError(`${file}: ${field}: expected one of ${opt.choices.join(', ')}, got ${typeName(v)}`);
    }
    out[key] = v;
  }
  return out;
}

export function parseExperiment(file: string, data: unknown, table: OptionTable): Experiment {
  if (!isJsonObject(data)) {
    throw new UserError(`${file}: expected a JSON object ({"defaults": {...}, "runs": [...]} or one run's settings)`);
  }
  const obj = JsonFields.orEmpty(data);
  const description = obj.get('description');
  if (description !== undefined && typeof description !== 'string') throw new UserError(`${file}: description: expected a string`);
  if (!obj.has('runs')) {
    if (obj.has('defaults')) throw new UserError(`${file}: "defaults" needs a "runs" list beside it`);
    const rest = Object.fromEntries(Object.entries(data).filter(([k]) => k !== 'description'));
    return { file, description, runs: [validateSettings(file, '', rest, table)] };
  }
  for (const k of obj.keys()) {
    if (!['description', 'defaults', 'runs'].includes(k))
      throw new UserError(`${file}: unknown field "${k}" (expected description, defaults, runs)`);
  }
  const defaults = obj.get('defaults') === undefined ? {} : validateSettings(file, 'defaults', obj.get('defaults'), table);
  const runList = obj.arr('runs');
  if (!runList || runList.length === 0) throw new UserError(`${file}: runs: expected a non-empty list of run settings`);
  const runs = runList.map((r, i) => layerSettings(defaults, validateSettings(file, `runs[${i}]`, r, table)));
  return { file, description, runs };
}

export function loadExperiment(file: string, table: OptionTable): Experiment {
  return parseExperiment(file, readJsonFile(file), table);
}
