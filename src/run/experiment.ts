// Experiment files (experiments/<name>.json): the settings of `run` as JSON, camelCase flag names.
//   { "description": "...", "defaults": { "task": "hotpotqa", ... }, "runs": [ { "method": "cot" }, ... ] }
// or one run's settings at the top level. Each run = defaults + its own fields; flags given on the
// command line override both. Unknown fields and wrong types are UserErrors naming the file and field.
import type { OptionTable } from '../options.js';
import { UserError } from '../errors.js';
import { readJsonFile } from './run-log.js';
import { camelCase, layerSettings, optionIndex, SESSION_ONLY } from './options.js';

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
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const field = where ? `${where}.${key}` : key;
    const entry = index.get(key);
    if (!entry || SESSION_ONLY.has(key)) {
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
        if (!['string', 'number', 'boolean'].includes(typeof v)) throw new UserError(`${file}: ${field}: expected a string, number or boolean, got ${typeName(v)}`);
    }
    if (opt.choices && !(opt.choices as unknown[]).includes(v)) {
      throw new UserError(`${file}: ${field}: expected one of ${(opt.choices as unknown[]).join(', ')}, got ${typeName(v)}`);
    }
    out[key] = v;
  }
  return out;
}

export function parseExperiment(file: string, data: unknown, table: OptionTable): Experiment {
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    throw new UserError(`${file}: expected a JSON object ({"defaults": {...}, "runs": [...]} or one run's settings)`);
  }
  const obj = data as Record<string, unknown>;
  const description = obj.description;
  if (description !== undefined && typeof description !== 'string') throw new UserError(`${file}: description: expected a string`);
  if (!('runs' in obj)) {
    const { description: _d, ...rest } = obj;
    if ('defaults' in rest) throw new UserError(`${file}: "defaults" needs a "runs" list beside it`);
    return { file, description, runs: [validateSettings(file, '', rest, table)] };
  }
  for (const k of Object.keys(obj)) {
    if (!['description', 'defaults', 'runs'].includes(k)) throw new UserError(`${file}: unknown field "${k}" (expected description, defaults, runs)`);
  }
  const defaults = obj.defaults === undefined ? {} : validateSettings(file, 'defaults', obj.defaults, table);
  if (!Array.isArray(obj.runs) || obj.runs.length === 0) throw new UserError(`${file}: runs: expected a non-empty list of run settings`);
  const runs = obj.runs.map((r, i) => layerSettings(defaults, validateSettings(file, `runs[${i}]`, r, table)));
  return { file, description, runs };
}

export function loadExperiment(file: string, table: OptionTable): Experiment {
  return parseExperiment(file, readJsonFile(file), table);
}
