import { describe, expect, it } from 'vitest';
import { combine, cotScThenReact, majorityTrusted, reactThenCotSc } from './run-method.js';
import { fakeTask } from './fake-task.js';

const task = fakeTask('hotpotqa', []);
const gold = 'Paris';
const answered = { answer: 'Paris', forcedFinish: false, steps: [1, 2, 3] };
const forced = { answer: '', forcedFinish: true, steps: [1, 2, 3, 4, 5, 6, 7] };

describe('majority threshold (n/2)', () => {
  it('paper: back off when votes < n/2; author: trust only when votes > n/2 (differ at even n, votes = n/2)', () => {
    expect(majorityTrusted(2, 4, 'paper')).toBe(true);
    expect(majorityTrusted(2, 4, 'author')).toBe(false);
    expect(majorityTrusted(1, 4, 'paper')).toBe(false);
    expect(majorityTrusted(3, 4, 'author')).toBe(true);
    // odd n: identical
    for (const v of [10, 11]) expect(majorityTrusted(v, 21, 'paper')).toBe(majorityTrusted(v, 21, 'author'));
    expect(majorityTrusted(10, 21, 'paper')).toBe(false);
    expect(majorityTrusted(11, 21, 'paper')).toBe(true);
  });
});

describe('ReAct→CoT-SC', () => {
  it('keeps ReAct when it answered within the step limit', () => {
    const r = reactThenCotSc({ react: answered, cotSc: { samples: ['Rome', 'Rome', 'Rome'] }, task, gold });
    expect(r).toMatchObject({ combination: 'react-cot-sc', used: 'react', answer: 'Paris', em: 1, k: 3, majorityVotes: 3 });
  });

  it('uses the CoT-SC majority after a forced finish[] (or no answer)', () => {
    const r = reactThenCotSc({ react: forced, cotSc: { samples: ['Paris', 'Rome', 'paris'] }, task, gold });
    expect(r).toMatchObject({ used: 'cot-sc', answer: 'Paris', em: 1, majorityVotes: 2, reactAnswered: false });
    const n = reactThenCotSc({ react: { answer: null }, cotSc: { samples: ['Rome'] }, task, gold });
    expect(n).toMatchObject({ used: 'cot-sc', answer: 'Rome', em: 0 });
  });

  it('k: majority over the first k samples only', () => {
    const input = { react: forced, cotSc: { samples: ['Rome', 'Paris', 'Paris'] }, task, gold };
    expect(reactThenCotSc({ ...input, k: 1 })).toMatchObject({ answer: 'Rome', em: 0, k: 1 });
    expect(reactThenCotSc({ ...input, k: 3 })).toMatchObject({ answer: 'Paris', em: 1, k: 3 });
  });

  it('reactStepLimit: an answer given after the paper limit counts as none', () => {
    const late = { answer: 'Rome', forcedFinish: false, steps: [1, 2, 3, 4, 5, 6] };
    expect(reactThenCotSc({ react: late, cotSc: { samples: ['Paris'] }, task, gold })).toMatchObject({ used: 'react', em: 0 });
    expect(reactThenCotSc({ react: late, cotSc: { samples: ['Paris'] }, task, gold }, { reactStepLimit: 5 })).toMatchObject({
      used: 'cot-sc',
      em: 1,
    });
  });
});

describe('CoT-SC→ReAct', () => {
  const react = { answer: 'Paris', forcedFinish: false, steps: [1] };

  it('even n at exactly n/2 votes: paper keeps CoT-SC, author backs off to ReAct', () => {
    const cotSc = { samples: ['Rome', 'Rome', 'Paris', 'Lyon'] };
    expect(cotScThenReact({ react, cotSc, task, gold })).toMatchObject({ used: 'cot-sc', answer: 'Rome', em: 0, majorityVotes: 2 });
    expect(cotScThenReact({ react, cotSc, task, gold }, { rule: 'paper' })).toMatchObject({ used: 'cot-sc' });
    expect(cotScThenReact({ react, cotSc, task, gold }, { rule: 'author' })).toMatchObject({ used: 'react', answer: 'Paris', em: 1 });
  });

  it('below n/2 both readings use ReAct; above both use CoT-SC', () => {
    const weak = { samples: ['Rome', 'Lyon', 'Nice', 'Rome', 'Metz'] }; // 2 of 5
    for (const rule of ['paper', 'author'] as const) {
      expect(cotScThenReact({ react, cotSc: weak, task, gold }, { rule })).toMatchObject({ used: 'react', em: 1 });
    }
    const strong = { samples: ['Rome', 'Rome', 'Rome', 'Paris', 'Lyon'] }; // 3 of 5
    for (const rule of ['paper', 'author'] as const) {
      expect(cotScThenReact({ react, cotSc: strong, task, gold }, { rule })).toMatchObject({ used: 'cot-sc', em: 0 });
    }
  });

  it('samples without an answer count in n but do not vote; k sweeps the same samples', () => {
    const cotSc = { samples: ['Rome', null, null, 'Rome', 'Paris'] };
    expect(cotScThenReact({ react, cotSc, task, gold, k: 2 })).toMatchObject({ used: 'cot-sc', k: 2, majorityVotes: 1 });
    expect(cotScThenReact({ react, cotSc, task, gold, k: 3 })).toMatchObject({ used: 'react', k: 3 });
    expect(cotScThenReact({ react, cotSc, task, gold, k: 4 })).toMatchObject({ used: 'cot-sc', majorityVotes: 2 });
    expect(cotScThenReact({ react, cotSc, task, gold, k: 5 })).toMatchObject({ used: 'react', em: 1 });
  });

  it('backing off to a ReAct run that was forced to finish gives its empty answer', () => {
    const r = combine('cot-sc-react', { react: forced, cotSc: { samples: ['a', 'b', 'c'] }, task, gold });
    expect(r).toMatchObject({ used: 'react', answer: '', em: 0, reactAnswered: false });
  });
});
