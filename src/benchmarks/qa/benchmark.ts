// HotpotQA and FEVER as benchmark plug-ins: one factory over a QA task (questions or claims, their
// splits and scorer), the Wikipedia environment, the five methods and the two combinations, and
// Table 1 / Figure 2 for the report.
import { UserError } from '../../errors.js';
import type { Settings } from '../../options.js';
import { wikiCliOptions, type WikiArgv } from '../../envs/wikipedia/index.js';

import type { DerivedMethod, Item, MetricDef, ParsedBenchmark, RunStart } from '../types.js';
import type { QATask } from './base.js';
import type { Example, MethodName, TaskName } from './types.js';
import { createMethod, METHOD_NAMES, searchesWikipedia } from './methods/index.js';
import {
  combinationCliOptions,
  combinationOptionsFromSettings,
  methodCliOptions,
  methodOptionsFromArgv,
  type CombinationOptions,
  type MethodOptions,
} from './methods/options.js';
import { PROMPT_FILES } from './methods/prompts.js';
import { qaObservation } from './methods/loop.js';
import { checkWikiFlagsGiven, createWikiEnvHandle, usesSnapshot, wikiArgv, WIKI_SNAPSHOT_FILE } from './wiki-env.js';
import { JsonFields } from '../../util/json-fields.js';
import { qaDerivedMethods } from './derived.js';
import { buildTable1 } from './report/table1.js';
import { isQaTask } from './task-specs.js';
import { buildSweepFigures } from './report/sweep.js';
import { qaErrorAnalysis, qaIsCorrect } from './report/error-analysis.js';
import { QA_COMPARISONS, QA_METHOD_LABELS } from './report/names.js';

export interface QaBenchmarkSpec {
  name: TaskName;
  title: string;
  describe: string;
  metrics: MetricDef[];
  defaultSplit: string;
  /** Repo-relative prompt files of this task (hashed into every manifest). */
  promptFiles: string[];
  /** Repo-relative dataset file. */
  dataFile: string;
  /** Repo-relative files a split is computed from (the offline splits read the shipped Wikipedia's coverage). */
  splitFiles?: Record<string, string[]>;
  task(): QATask;
  /** Notices before a run starts (FEVER on a snapshot that lacks its evidence pages). */
  startNotes?(run: RunStart<QaOptions>): string[];
}

/** A HotpotQA/FEVER run's options, read once from its settings. */
export interface QaOptions {
  /** The methods' flags (their ranges are checked when the method is built). */
  method: MethodOptions;
  /** The Wikipedia flags, --env-url folded in (checked when the environment is built). */
  wiki: WikiArgv;
  /** The flag that named the Wikipedia site when it was not --wiki-url (for messages). */
  wikiUrlFlag?: string;
  /** The split the run covers, or null with --indices (a split's own files are inputs of the run). */
  split: string | null;
  /** What the combinations read (derived.ts): the majority rule and the step limit given. */
  combination: CombinationOptions;
}

export function parseQaOptions(settings: Settings, defaultSplit: string): QaOptions {
  const f = JsonFields.orEmpty(settings);
  const split = f.get('split');
  const wiki = wikiArgv(settings);
  return {
    method: methodOptionsFromArgv(settings),
    wiki: wiki.argv,
    ...(wiki.urlFlag ? { wikiUrlFlag: wiki.urlFlag } : {}),
    split: f.get('indices') !== undefined ? null : typeof split === 'string' ? split : defaultSplit,
    combination: combinationOptionsFromSettings(settings),
  };
}

type QaFlag = keyof typeof methodCliOptions | keyof typeof combinationCliOptions;

/**
 * The flags each method reads besides Wikipedia's (Benchmark.methodFlags), as it is built
 * (methods/index.ts createMethod): every method cuts its prompt to --exemplars; Act, Standard, CoT
 * and CoT-SC take their framing from --framing (ReAct uses the released prompt as is); ReAct and
 * Act stop at --max-steps and record --empty-action (loop.ts); CoT-SC samples --samples at
 * --sc-temperature (cot-sc.ts).
 */
const QA_METHOD_FLAGS: Record<MethodName, readonly QaFlag[]> = {
  standard: ['framing', 'exemplars'],
  cot: ['framing', 'exemplars'],
  'cot-sc': ['framing', 'exemplars', 'samples', 'sc-temperature'],
  act: ['framing', 'exemplars', 'max-steps', 'empty-action'],
  react: ['exemplars', 'max-steps', 'empty-action'],
};

const qaMethodFlags = (method: string): readonly QaFlag[] | undefined =>
  Object.entries(QA_METHOD_FLAGS).find(([name]) => name === method)?.[1];

/**
 * The flags a combination reads: --majority-rule and --max-steps (the step limit it judges ReAct by,
 * derived.ts), and what its base runs read (it runs them with its own settings).
 */
function combinationFlags(derived: DerivedMethod<QaOptions>): QaFlag[] {
  const bases = derived.bases.flatMap((b) => qaMethodFlags(b) ?? []);
  return [...new Set<QaFlag>(['majority-rule', 'max-steps', ...bases])];
}

export function qaItem(e: Example): Item {
  return { index: e.index, id: e.question, input: e.question, gold: e.answer, ...(e.meta ? { meta: e.meta } : {}) };
}

export function createQaBenchmark(spec: QaBenchmarkSpec): ParsedBenchmark<QaOptions> {
  let task: QATask | undefined;
  const t = () => (task ??= spec.task());
  const derivedMethods = qaDerivedMethods({ name: spec.name, score: (p, g) => t().score(p, g) });
  return {
    name: spec.name,
    title: spec.title,
    describe: spec.describe,
    metrics: spec.metrics,
    options: { ...wikiCliOptions, ...methodCliOptions, ...combinationCliOptions },
    size: () => t().size,
    item: (index) => qaItem(t().example(index)),
    splitNames: () => t().splitNames(),
    defaultSplit: spec.defaultSplit,
    split: (name, opts) => t().split(name, opts),
    itemRefKey: 'index',
    itemByRef: (ref) => {
      if (typeof ref !== 'number' || !Number.isInteger(ref))
        throw new UserError(`"index": expected a ${spec.title} dataset index (an integer), got ${JSON.stringify(ref)}`);
      return qaItem(t().example(ref));
    },
    methods: METHOD_NAMES,
    defaultMethod: 'react',
    methodLabels: QA_METHOD_LABELS,
    // ReAct's trajectories: FireAct (Chen et al., 2023) fine-tuned on HotpotQA ReAct trajectories.
    finetuneMethods: ['react'],
    parseOptions: (settings) => parseQaOptions(settings, spec.defaultSplit),
    checkGivenFlags: checkWikiFlagsGiven,
    createMethod: (name, options) => createMethod(name, t(), options.method),
    derivedMethods,
    methodFlags: (method) => {
      const derived = Object.values(derivedMethods).find((d) => d.name === method);
      return derived ? combinationFlags(derived) : qaMethodFlags(method);
    },
    createEnv: (options, hooks) => createWikiEnvHandle(options.wiki, t(), hooks, options.wikiUrlFlag),
    observe: qaObservation,
    play: {
      flags: [...Object.keys(wikiCliOptions), 'env-url'],
      actions:
        'search[entity], lookup[keyword], finish[answer], sent exactly as written. The ReAct and Act loops lower-case the first letter of the ' +
        "model's action before stepping (docs/protocol.md §4), so the model's Search[X] reaches Wikipedia as search[X]; env play sends what you write: Search[X] is an invalid action there, search[X] works",
    },
    // §7: the wrappers' EM and token F1 of the answer against the gold (FEVER: F1 equals EM).
    score: (item, result) => {
      const s = t().score(result.answer, item.gold ?? '');
      return { em: s.em, f1: s.f1 };
    },
    isCorrect: qaIsCorrect,
    inputFiles: (method, options) => {
      const files = [...spec.promptFiles, spec.dataFile];
      if (method !== 'react') files.push(`prompts/${PROMPT_FILES.framings}`);
      if (searchesWikipedia(method) && usesSnapshot(options.wiki)) files.push(WIKI_SNAPSHOT_FILE);
      if (options.split !== null) files.push(...(spec.splitFiles?.[options.split] ?? []));
      return [...new Set(files)];
    },
    reportTables: (runs) => {
      const mine = runs.filter((r) => isQaTask(r.manifest.task));
      return mine.length ? [buildTable1(mine)] : [];
    },
    reportFigures: (runs) => buildSweepFigures(runs.filter((r) => r.manifest.task === spec.name)),
    comparisons: QA_COMPARISONS,
    errorAnalysis: qaErrorAnalysis,
    ...(spec.startNotes ? { startNotes: spec.startNotes } : {}),
  };
}
