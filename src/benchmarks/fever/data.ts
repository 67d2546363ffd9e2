// FEVER dev (paper_dev.jsonl, 9999 claims; question = claim, answer = label) and its splits (§2).
import { QATask, fileOrder } from '../qa/base.js';
import { datasetSpansMemoFile } from '../../paths.js';
import { feverDevFile, loadFever } from '../qa/datasets.js';
import { PAPER_SAMPLE_SIZE, paperSample, paperShuffle } from '../qa/splits.js';
import { scoreFever } from '../qa/scoring.js';
import { feverOfflineIndices } from './offline.js';

export function createFeverTask(files: { dataFile?: string } = {}): QATask {
  const dataFile = files.dataFile ?? feverDevFile;
  return new QATask({
    name: 'fever',
    observationLabel: 'Claim',
    dataFile,
    load: () => loadFever(dataFile, { memoFile: datasetSpansMemoFile() }),
    score: scoreFever,
    splits: (task) => [
      {
        name: 'dev',
        description: 'all FEVER dev claims (paper_dev.jsonl, 9999), in file order',
        build: () => fileOrder(task.size),
      },
      {
        name: 'react500',
        description:
          "the notebook's sample, kept as the faithful default (§2): it reuses HotpotQA's random.Random(233).shuffle(list(range(7405)))[:500] on paper_dev.jsonl, so only the first 7405 of the 9999 claims can be drawn",
        build: () => paperSample(task, 'react500'),
      },
      {
        name: 'react500-fixed',
        description:
          'corrected variant of react500 (deviation from the released code): random.Random(233).shuffle(list(range(9999)))[:500], so every claim can be drawn',
        build: () => paperShuffle(task.size).slice(0, PAPER_SAMPLE_SIZE),
      },
      {
        name: 'offline',
        description:
          "the 345 SUPPORTS/REFUTES dev claims whose evidence pages (every page of every evidence set) are all in the shipped offline Wikipedia (envs/wikipedia/hotpotqa-2017/pages.jsonl), in file order; NOT ENOUGH INFO claims name no evidence pages and are left out, so the labels are 2-way (166 SUPPORTS, 179 REFUTES), unlike the paper's 3-way FEVER",
        build: () => feverOfflineIndices(dataFile),
      },
    ],
  });
}
