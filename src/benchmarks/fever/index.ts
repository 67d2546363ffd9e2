// FEVER (paper §3, Table 1): 9999 dev claims, accuracy = EM of the label (F1 equals EM, as in the
// released FeverWrapper, which has no token F1).
import { createQaBenchmark } from '../qa/benchmark.js';
import type { Benchmark } from '../types.js';
import { createFeverTask } from './data.js';

export function createFeverBenchmark(): Benchmark {
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
    task: () => createFeverTask(),
  });
}
