// FEVER (paper §3, Table 1): 9999 dev claims, accuracy = EM of the label (F1 equals EM, as in the
// released FeverWrapper, which has no token F1).
import { createQaBenchmark, type QaOptions } from '../qa/benchmark.js';
import type { ParsedBenchmark } from '../types.js';
import { createFeverTask } from './data.js';
import { WIKI_SNAPSHOT_FILE } from '../qa/wiki-env.js';
import { searchesWikipedia } from '../qa/methods/index.js';
import { snapshotNotice } from './offline.js';

export function createFeverBenchmark(): ParsedBenchmark<QaOptions> {
  return createQaBenchmark({
    name: 'fever',
    title: 'FEVER',
    describe: 'fact verification over Wikipedia (paper Table 1)',
    metrics: [
      { key: 'em', label: 'Acc' },
      { key: 'f1', label: 'F1' },
    ],
    defaultSplit: 'react500',
    promptFiles: ['prompts/fever.json'],
    dataFile: 'data/fever/paper_dev.jsonl',
    // The offline split keeps the claims whose evidence pages are in the shipped pages.
    splitFiles: { offline: [WIKI_SNAPSHOT_FILE] },
    task: () => createFeverTask(),
    // README "Reliability": ReAct/Act look claims up in the shipped 2017 HotpotQA pages by default, which lack most
    // FEVER evidence pages: say so once, before the run (feverEvidenceGap: the same rule gives Table 1's caveat).
    startNotes: ({ method, split, indices, options }) => {
      const note = snapshotNotice({ searches: searchesWikipedia(method), wiki: options.wiki, split, indices });
      return note ? [note] : [];
    },
  });
}
