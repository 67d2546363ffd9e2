// A small in-test Task (HotpotQA/FEVER shape) so method tests do not depend on the dataset files.
// Its scoring follows §7 closely enough for the cases used here (lower-case, punctuation, articles).
import type { Example, Score, Task, TaskName } from '../../../src/benchmarks/qa/types.js';

export function testNormalize(s: string): string {
  return s
    .toLowerCase()
    .replace(/[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g, '')
    .replace(/\b(a|an|the)\b/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ');
}

export function fakeTask(name: TaskName, examples: Example[]): Task {
  return {
    name,
    observationLabel: name === 'fever' ? 'Claim' : 'Question',
    size: examples.length,
    example: (i) => {
      const e = examples.find((x) => x.index === i);
      if (!e) throw new Error(`no example ${i}`);
      return e;
    },
    splitNames: () => ['all'],
    split: () => ({ benchmark: name, name: 'all', description: 'test', indices: examples.map((e) => e.index) }),
    score(pred, gold): Score {
      if (pred === null || pred === undefined) return { em: 0, f1: 0, reward: 0 };
      const p = testNormalize(pred);
      const g = testNormalize(gold);
      const em = p === g ? 1 : 0;
      const pt = p.split(' ').filter(Boolean);
      const gt = g.split(' ').filter(Boolean);
      const left = [...gt];
      let same = 0;
      for (const t of pt) {
        const at = left.indexOf(t);
        if (at !== -1) {
          same++;
          left.splice(at, 1);
        }
      }
      const f1 = same === 0 ? 0 : (2 * (same / pt.length) * (same / gt.length)) / (same / pt.length + same / gt.length);
      return { em, f1, reward: em };
    },
  };
}
