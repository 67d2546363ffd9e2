// Prompt assembly for HotpotQA and FEVER (§4). Loading is the only I/O (readFileSync of prompts/*);
// everything else is pure and works on already-loaded texts.
import fs from 'node:fs';
import path from 'node:path';
import { UserError, errorMessage } from '../../../errors.js';
import { promptsDir } from '../../../paths.js';
import { JsonFields } from '../../../util/json-fields.js';
import { sha256 } from '../../../util/hash.js';
import type { TaskName } from '../types.js';
import { PROMPT_FILES, qaTask, qaTaskNames } from '../task-specs.js';
import type { MethodName } from '../types.js';
import { pyStrip } from '../../../util/python-str.js';

/** The paper's prompt files (vendored, read-only) and ours. */
export { PROMPT_FILES };

export interface PromptLibrary {
  dir: string;
  /** file name -> parsed JSON object of string values (only the keys we read are validated). */
  files: Record<string, Record<string, unknown>>;
  framings: FramingsFile;
  /** Ablation (--exemplars K): prompts keep only the first K exemplars; absent = all (the paper). */
  exemplars?: number;
}

export interface QaFraming {
  prefix: string;
  separator: string;
  cue: string;
  stop: string[];
}
export interface ActFraming {
  prefix: string;
}
export interface TaskFramings {
  act: ActFraming;
  standard: QaFraming;
  cot: QaFraming;
  'cot-sc'?: QaFraming;
}
export interface Framing {
  description: string;
  /** Per registered QA task (docs/protocol.md §4): its section of framings.json. */
  tasks: Record<TaskName, TaskFramings>;
}
export interface FramingsFile {
  default: string;
  framings: Record<string, Framing>;
}

function readJsonObject(dir: string, file: string): Record<string, unknown> {
  const p = path.join(dir, file);
  let text: string;
  try {
    text = fs.readFileSync(p, 'utf8');
  } catch {
    throw new UserError(`${p}: prompt file missing or unreadable (expected the vendored JSON prompt file)`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new UserError(`${p}: malformed JSON (${errorMessage(e)})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new UserError(`${p}: expected a JSON object of prompt texts`);
  }
  return parsed as Record<string, unknown>;
}

function str(obj: JsonFields, key: string, where: string): string {
  const v = obj.str(key);
  if (v === undefined) throw new UserError(`${where}: key "${key}" missing or not a string`);
  return v;
}

/** The fields of any object (an array has none of them, and fails on the first one read). */
const fieldsOf = (v: object): JsonFields => JsonFields.orEmpty(v);

function validateQa(v: unknown, where: string): QaFraming {
  if (!v || typeof v !== 'object') throw new UserError(`${where}: expected an object {prefix, separator, cue, stop}`);
  const o = fieldsOf(v);
  const stop = o.arr('stop');
  const stopTexts = stop?.filter((s): s is string => typeof s === 'string' && s !== '');
  if (!stop || !stopTexts || stop.length === 0 || stopTexts.length !== stop.length) {
    throw new UserError(`${where}.stop: expected a non-empty array of non-empty strings`);
  }
  return {
    prefix: str(o, 'prefix', where),
    separator: str(o, 'separator', where),
    cue: str(o, 'cue', where),
    stop: stopTexts,
  };
}

function validateTaskFramings(v: unknown, where: string): TaskFramings {
  if (!v || typeof v !== 'object') throw new UserError(`${where}: expected an object with act, standard, cot`);
  const o = fieldsOf(v);
  const act = o.get('act');
  if (!act || typeof act !== 'object') throw new UserError(`${where}.act: expected an object {prefix}`);
  const out: TaskFramings = {
    act: { prefix: str(fieldsOf(act), 'prefix', `${where}.act`) },
    standard: validateQa(o.get('standard'), `${where}.standard`),
    cot: validateQa(o.get('cot'), `${where}.cot`),
  };
  if (o.get('cot-sc') !== undefined) out['cot-sc'] = validateQa(o.get('cot-sc'), `${where}.cot-sc`);
  return out;
}

/** Validates prompts/framings.json (ours) into typed framings; UserError names the file and field. */
export function parseFramings(obj: Record<string, unknown>, where: string): FramingsFile {
  const file = fieldsOf(obj);
  const def = str(file, 'default', where);
  const fr = file.obj('framings');
  if (!fr) {
    throw new UserError(`${where}: key "framings" missing or not an object of named framings`);
  }
  const framings: Record<string, Framing> = {};
  for (const name of fr.keys()) {
    const v = fr.get(name);
    const w = `${where}: framings.${name}`;
    if (!v || typeof v !== 'object') throw new UserError(`${w}: expected an object`);
    const o = fieldsOf(v);
    framings[name] = {
      description: str(o, 'description', w),
      tasks: Object.fromEntries(qaTaskNames().map((t) => [t, validateTaskFramings(o.get(t), `${w}.${t}`)])),
    };
  }
  if (!framings[def]) throw new UserError(`${where}: default framing "${def}" is not defined under "framings"`);
  return { default: def, framings };
}

const libraryCache = new Map<string, PromptLibrary>();

/** Loads (once per directory) and validates every prompt file the HotpotQA/FEVER methods use. */
export function loadPromptLibrary(dir: string = promptsDir): PromptLibrary {
  const cached = libraryCache.get(dir);
  if (cached) return cached;
  const files: Record<string, Record<string, unknown>> = {};
  for (const f of new Set(REQUIRED_KEYS().map(([file]) => file))) files[f] = readJsonObject(dir, f);
  const framingsPath = path.join(dir, PROMPT_FILES.framings);
  const lib: PromptLibrary = {
    dir,
    files,
    framings: parseFramings(readJsonObject(dir, PROMPT_FILES.framings), framingsPath),
  };
  // Check every key any method may need now, so a broken file fails at start-up, not mid-run.
  for (const [file, key] of REQUIRED_KEYS()) promptText(lib, file, key);
  libraryCache.set(dir, lib);
  return lib;
}

/** Every (file, key) a registered task's methods use. */
const REQUIRED_KEYS = (): Array<[string, string]> =>
  qaTaskNames().flatMap((t) => {
    const spec = qaTask(t);
    return [...(spec.reactInstruction ? [spec.reactInstruction] : []), ...Object.values(spec.exemplars)];
  });

export function promptText(lib: PromptLibrary, file: string, key: string): string {
  const obj = lib.files[file];
  if (!obj) throw new UserError(`${path.join(lib.dir, file)}: prompt file not loaded`);
  return str(JsonFields.orEmpty(obj), key, path.join(lib.dir, file));
}

/** One text that went into a prompt head, for the manifest. */
export interface PromptPart {
  /** "<file>#<key>" for the paper's files, "framings.json#<framing>.<task>.<method>.<field>" for ours. */
  source: string;
  sha256: string;
  chars: number;
  /** How this text departs from the paper's (an --exemplars ablation); absent when it is the paper's. */
  deviation?: string;
}

/**
 * A released exemplar text split on its exemplar boundaries: the text before the first exemplar (a
 * newline, or FEVER's instruction line) and each exemplar from its "Question:"/"Claim:" line up to the
 * next one (the blank line after it included). Joined back they are the text, byte for byte.
 */
export function splitExemplars(text: string, label: 'Question' | 'Claim'): { prefix: string; exemplars: string[] } {
  const starts: number[] = [];
  const head = `${label}:`;
  for (let i = text.indexOf(head); i >= 0; i = text.indexOf(head, i + 1)) if (i === 0 || text[i - 1] === '\n') starts.push(i);
  if (starts.length === 0) return { prefix: text, exemplars: [] };
  return { prefix: text.slice(0, starts[0]), exemplars: starts.map((s, k) => text.slice(s, starts[k + 1] ?? text.length)) };
}

/** The first k exemplars of a released exemplar text (all of them when k is the count: the text itself). */
export function firstExemplars(text: string, label: 'Question' | 'Claim', k: number, where: string): string {
  const { prefix, exemplars } = splitExemplars(text, label);
  if (!Number.isInteger(k) || k < 1 || k > exemplars.length) {
    throw new UserError(`--exemplars: expected 1 to ${exemplars.length} (${where} has ${exemplars.length} exemplars), got ${k}`);
  }
  return prefix + exemplars.slice(0, k).join('');
}

/** The library with prompts cut to their first K exemplars (--exemplars K); undefined K = the library as is. */
export function withExemplars(lib: PromptLibrary, k: number | undefined): PromptLibrary {
  return k === undefined ? lib : { ...lib, exemplars: k };
}

/**
 * Everything a method needs to build its prompts for one task. The prompt for an example is
 * head + "<Question|Claim>: <text>\n" (+ cue for the single-completion methods).
 */
export interface MethodPrompt {
  method: MethodName;
  task: TaskName;
  /** null for ReAct (the released code's prompt; no framing of ours). */
  framing: string | null;
  head: string;
  headSha256: string;
  parts: PromptPart[];
  /** Standard/CoT/CoT-SC only. */
  cue?: string;
  stop?: string[];
}

function part(source: string, text: string): PromptPart {
  return { source, sha256: sha256(text), chars: text.length };
}

export function getFraming(lib: PromptLibrary, name: string | undefined): { name: string; framing: Framing } {
  const n = name ?? lib.framings.default;
  const framing = lib.framings.framings[n];
  if (!framing) {
    throw new UserError(
      `--framing: unknown framing "${n}" (expected one of ${Object.keys(lib.framings.framings).join(', ')}; see prompts/framings.json)`,
    );
  }
  return { name: n, framing };
}

/** Pure: the prompt head of a method for a task under a framing (ignored for ReAct). */
export function buildMethodPrompt(lib: PromptLibrary, method: MethodName, task: TaskName, framingName?: string): MethodPrompt {
  const spec = qaTask(task);
  const [file, key] = spec.exemplars[method];
  const released = promptText(lib, file, key);
  let exemplars = released;
  let exPart = part(`${file}#${key}`, released);
  if (lib.exemplars !== undefined) {
    const n = splitExemplars(released, spec.label).exemplars.length;
    exemplars = firstExemplars(released, spec.label, lib.exemplars, `${file}#${key}`);
    // K = all is the released prompt itself: nothing to record, and the run is the paper's.
    if (lib.exemplars < n)
      exPart = {
        ...part(`${file}#${key}`, exemplars),
        deviation: `first ${lib.exemplars} of the ${n} exemplars (--exemplars ${lib.exemplars}); the paper uses all ${n}`,
      };
  }
  if (method === 'react') {
    // §4: HotpotQA = instruction + webthink_simple6; FEVER = webthink_simple3 (carries its instruction).
    if (spec.reactInstruction) {
      const [instrFile, instrKey] = spec.reactInstruction;
      const instr = promptText(lib, instrFile, instrKey);
      const head = instr + exemplars;
      return {
        method,
        task,
        framing: null,
        head,
        headSha256: sha256(head),
        parts: [part(`${instrFile}#${instrKey}`, instr), exPart],
      };
    }
    return { method, task, framing: null, head: exemplars, headSha256: sha256(exemplars), parts: [exPart] };
  }
  const { name, framing } = getFraming(lib, framingName);
  const tf = framing.tasks[task];
  const src = (field: string, m: string = method) => `${PROMPT_FILES.framings}#${name}.${task}.${m}.${field}`;
  if (method === 'act') {
    const head = tf.act.prefix + exemplars;
    return {
      method,
      task,
      framing: name,
      head,
      headSha256: sha256(head),
      parts: [part(src('prefix'), tf.act.prefix), exPart],
    };
  }
  const entryName = method === 'cot-sc' && tf['cot-sc'] ? 'cot-sc' : method === 'standard' ? 'standard' : 'cot';
  const qa = entryName === 'cot-sc' ? tf['cot-sc']! : entryName === 'standard' ? tf.standard : tf.cot;
  const head = qa.prefix + exemplars + qa.separator;
  return {
    method,
    task,
    framing: name,
    head,
    headSha256: sha256(head),
    parts: [
      part(src('prefix', entryName), qa.prefix),
      exPart,
      part(src('separator', entryName), qa.separator),
      part(src('cue', entryName), qa.cue),
    ],
    cue: qa.cue,
    stop: [...qa.stop],
  };
}

/** The line the task wrapper's reset() returns, plus the newline webthink appends (§4). */
export function questionLine(label: 'Question' | 'Claim', question: string): string {
  return `${label}: ${question}\n`;
}

/** Pure: the full single-completion prompt (Standard/CoT/CoT-SC) for one example. */
export function qaPrompt(p: MethodPrompt, label: 'Question' | 'Claim', question: string): string {
  if (p.cue === undefined) throw new Error(`${p.method} has no completion cue`);
  return p.head + questionLine(label, question) + p.cue;
}

/**
 * Pure: the answer of a Standard/CoT completion: the first line after the LAST "Answer:" in
 * cue + completion, Python-stripped; null when there is no "Answer:" or nothing after it.
 */
export function parseQaAnswer(text: string): string | null {
  const at = text.lastIndexOf('Answer:');
  if (at === -1) return null;
  const rest = pyStrip(text.slice(at + 'Answer:'.length));
  const line = pyStrip(rest.split('\n')[0]);
  return line === '' ? null : line;
}
