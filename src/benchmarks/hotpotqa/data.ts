// HotpotQA dev (hotpot_dev_v1_simplified.json, 7405 questions) and its splits (§2).
import { QATask, fileOrder } from '../qa/base.js';
import { datasetSpansMemoFile } from '../../paths.js';
import { coveredIndexSet, coveredIndicesFile, hotpotqaDevFile, loadCoveredIndices, loadHotpotQA } from '../qa/datasets.js';
import { PAPER_RANGE, PAPER_SAMPLE_SIZE, paperSample, paperShuffle } from '../qa/splits.js';
import { scoreHotpotQA } from '../qa/scoring.js';

export interface HotpotQAFiles {
  dataFile?: string;
  /** Indices whose gold pages are in the offline Wikipedia snapshot (the offline splits). */
  coveredFile?: string;
}

export function createHotpotQATask(files: HotpotQAFiles = {}): QATask {
  const dataFile = files.dataFile ?? hotpotqaDevFile;
  const coveredFile = files.coveredFile ?? coveredIndicesFile;
  return new QATask({
    name: 'hotpotqa',
    observationLabel: 'Question',
    dataFile,
    load: () => loadHotpotQA(dataFile, { memoFile: datasetSpansMemoFile() }),
    score: scoreHotpotQA,
    splits: (task) => [
      {
        name: 'dev',
        description: 'all HotpotQA dev questions (hotpot_dev_v1_simplified.json, 7405), in file order',
        build: () => fileOrder(task.size),
      },
      {
        name: 'react500',
        description:
          "the paper's 500-question sample (§2): idxs = list(range(7405)); random.Random(233).shuffle(idxs); idxs[:500], in that order",
        build: () => paperSample(task, 'react500'),
      },
      {
        name: 'offline',
        description:
          'the 1906 dev questions whose gold pages are all in the shipped offline Wikipedia (envs/wikipedia/hotpotqa-2017/covered_dev_indices.json), ascending',
        build: () => loadCoveredIndices(coveredFile, task.size),
      },
      {
        name: 'offline500',
        description:
          "the first 500 offline-covered questions in the paper's shuffle order: random.Random(233).shuffle(list(range(7405))) filtered to covered_dev_indices.json, first 500 (123 of them are in react500)",
        build: () => {
          task.requireSize(PAPER_RANGE, 'offline500');
          const covered = coveredIndexSet(coveredFile, task.size);
          return paperShuffle(PAPER_RANGE)
            .filter((i) => covered.has(i))
            .slice(0, PAPER_SAMPLE_SIZE);
        },
      },
    ],
  });
}
