// HotpotQA and FEVER as benchmark plug-ins: one factory over a QA task (questions or claims, their
// splits and scorer), the Wikipedia environment, the five methods and the two combinations, and
// Table 1 / Figure 2 for the report.
import { UserError } from '../../errors.js';
import type { Settings } from '../../options.js';
import { wikiCliOptions } from '../../envs/wikipedia/index.js';

import type { CompleteBenchmark, Item, MetricDef, RunStart } from '../types.js';
import type { QATask } from './base.js';
import type { Example, TaskName } from './types.js';
import { createMethod, METHOD_NAMES } from './methods/index.js';
import { combinationCliOptions, methodCliOptions, methodOptionsFromArgv } from './methods/options.js';
import { PROMPT_FILES } from './methods/prompts.js';
import { qaObservation } from './methods/loop.js';
import { createWikiEnvHandle, usesSnapshot, WIKI_SNAPSHOT_FILE } from './wiki-env.js';
import { qaDerivedMethods } from './derived.js';
import { buildTable1 } from './report/table1.js';
import { buildSweepFigures } from './report/sweep.js';
import { qaErrorAnalysis } from './report/error-analysis.js';

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
  startNotes?(run: RunStart): string[];
}

export function qaItem(e: Example): Item {
  return { index: e.index, id: e.question, input: e.question, gold: e.answer, ...(e.meta ? { meta: e.meta } : {}) };
}

export function createQaBenchmark(spec: QaBenchmarkSpec): CompleteBenchmark<Settings> {
  let task: QATask | undefined;
  const t = () => (task ??= spec.task());
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
    createMethod: (name, settings) => createMethod(name, t(), methodOptionsFromArgv(settings)),
    derivedMethods: qaDerivedMethods({ name: spec.name, score: (p, g) => t().score(p, g) }),
    createEnv: (settings, hooks) => createWikiEnvHandle(settings, t(), hooks),
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
    inputFiles: (method, settings: Settings) => {
      const files = [...spec.promptFiles, spec.dataFile];
      if (method !== 'react') files.push(`prompts/${PROMPT_FILES.framings}`);
      if ((method === 'react' || method === 'act') && usesSnapshot(settings)) files.push(WIKI_SNAPSHOT_FILE);
      if (settings.indices === undefined) files.push(...(spec.splitFiles?.[String(settings.split ?? spec.defaultSplit)] ?? []));
      return [...new Set(files)];
    },
    reportTables: (runs) => {
      const mine = runs.filter((r) => r.manifest.task === 'hotpotqa' || r.manifest.task === 'fever');
      return mine.length ? [buildTable1(mine)] : [];
    },
    reportFigures: (runs) => buildSweepFigures(runs.filter((r) => r.manifest.task === spec.name)),
    errorAnalysis: qaErrorAnalysis,
    ...(spec.startNotes ? { startNotes: spec.startNotes } : {}),
  };
}
