// A results folder as the shipped experiments make it (experiments/*.json): Table 1 on HotpotQA and
// FEVER (snapshot / live Wikipedia, every method with the combinations), a CoT-SC sweep, ALFWorld and
// WebShop with error episodes. A report over it has every benchmark's tables and every published number.
import fs from 'node:fs';
import type { EpisodeRecord } from '../../src/runlog/schema.js';
import { qa, qaRecords, writeRun } from './run-folders.js';

const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);

/** Writes the runs under `dir` (once: an existing folder is taken as written) and returns it. */
export function writeShippedResults(dir: string): string {
  if (fs.existsSync(dir)) return dir;
  const methods = ['standard', 'cot', 'cot-sc', 'act', 'react', 'cot-sc-react', 'react-cot-sc'];
  for (const [task, wiki, idx] of [
    ['hotpotqa', 'snapshot', range(0, 20)],
    ['fever', 'live', range(100, 120)],
  ] as const) {
    methods.forEach((method, k) => {
      const records =
        method === 'cot-sc'
          ? idx.map((i) =>
              qa(i, i % 3 ? 'right' : 'wrong', {
                samples: i % 3 ? [`gold ${i}`, 'x', `gold ${i}`, 'y', `gold ${i}`] : ['x', 'x', `gold ${i}`, 'y', 'x'],
              }),
            )
          : qaRecords(idx, 'rrwrrwrwrrwwrrrwrrwr'.slice(k) + 'rrrrrrr'.slice(0, k));
      writeRun(dir, {
        runId: `${task}-${method}-react500-gpt-3.5-turbo-instruct-0914-3f9c2a1b`,
        task,
        method,
        split: 'react500',
        model: 'gpt-3.5-turbo-instruct-0914',
        indices: [...idx],
        records,
        kind: method.includes('-react') || method.startsWith('react-') ? 'combination' : 'run',
        settings: { wiki, samples: 5 },
        environment: ['act', 'react', 'cot-sc-react', 'react-cot-sc'].includes(method) ? { kind: wiki } : null,
      });
    });
  }
  const ep = (idx: number, metrics: Record<string, number>, error: boolean, extra: Record<string, unknown> = {}) =>
    ({ ...qa(idx, error ? 'error' : 'right'), metrics, reward: error ? null : 1, ...extra }) as EpisodeRecord;
  const games = range(0, 25);
  writeRun(dir, {
    runId: 'alfworld-react-valid_unseen-gpt-3.5-turbo-instruct-0914-aa',
    task: 'alfworld',
    method: 'react',
    split: 'valid_unseen',
    model: 'gpt-3.5-turbo-instruct-0914',
    indices: games,
    records: games.map((i) =>
      ep(i, { success: i % 2 }, i >= 10, { task_type: ['put', 'clean', 'heat', 'cool', 'examine', 'puttwo'][i % 6] }),
    ),
  });
  writeRun(dir, {
    runId: 'webshop-react-test-gpt-3.5-turbo-instruct-0914-bb',
    task: 'webshop',
    method: 'react',
    split: 'test',
    model: 'gpt-3.5-turbo-instruct-0914',
    indices: games,
    records: games.map((i) => ep(i, { score: (i % 4) / 4, success: i % 4 === 3 ? 1 : 0 }, i === 7)),
  });
  return dir;
}
