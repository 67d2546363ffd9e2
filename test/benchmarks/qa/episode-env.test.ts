import { describe, expect, it } from 'vitest';
import { QAEpisodeEnv } from '../../../src/benchmarks/qa/episode-env.js';
import { scoreFever, scoreHotpotQA } from '../../../src/benchmarks/qa/scoring.js';
import type { Example, Task } from '../../../src/benchmarks/qa/types.js';
import { qaItem } from '../../../src/benchmarks/qa/benchmark.js';
import { MemoryEnv } from '../../support/memory-env.js';

const feverTask: Pick<Task, 'observationLabel' | 'score'> = { observationLabel: 'Claim', score: scoreFever };
const hotpotTask: Pick<Task, 'observationLabel' | 'score'> = { observationLabel: 'Question', score: scoreHotpotQA };

describe('QAEpisodeEnv (wrappers.py HotPotQAWrapper / FeverWrapper)', () => {
  it('reset returns "Claim: <c>"; FEVER label scored on finish (normalized), final info fields', async () => {
    const claim: Example = { index: 3687, question: 'Paramore is not from Tennessee.', answer: 'REFUTES' };
    const env = new QAEpisodeEnv(new MemoryEnv(() => 'Paramore is a band.'), feverTask, qaItem(claim));
    expect((await env.reset()).observation).toBe('Claim: Paramore is not from Tennessee.');
    const s1 = await env.step('search[Paramore]');
    expect(s1).toEqual({ observation: 'Paramore is a band.', reward: 0, done: false, info: { steps: 1, answer: null } });
    const s2 = await env.step('finish[Refutes.]');
    expect(s2.observation).toBe('Episode finished, reward = 1\n');
    expect(s2).toMatchObject({ reward: 1, done: true });
    expect(s2.info).toEqual({ steps: 2, answer: 'Refutes.', gt_answer: 'REFUTES', question_idx: 3687, em: 1, f1: 1, reward: 1 });
  });

  it('a wrong FEVER label and the forced finish[] score 0', async () => {
    const claim: Example = { index: 1, question: 'X.', answer: 'NOT ENOUGH INFO' };
    const env = new QAEpisodeEnv(new MemoryEnv(), feverTask, qaItem(claim));
    await env.reset();
    const s = await env.step('finish[SUPPORTS]');
    expect(s).toMatchObject({ observation: 'Episode finished, reward = 0\n', reward: 0, info: { em: 0, f1: 0, reward: 0 } });
    const e2 = new QAEpisodeEnv(new MemoryEnv(), feverTask, qaItem(claim));
    await e2.reset();
    expect((await e2.step('finish[]')).info).toMatchObject({ answer: '', em: 0, reward: 0 });
  });

  it('HotpotQA: "Question: <q>", EM and token F1 in the final info', async () => {
    const q: Example = { index: 9, question: 'Where?', answer: 'the city of Paris' };
    const env = new QAEpisodeEnv(new MemoryEnv(), hotpotTask, qaItem(q));
    expect((await env.reset()).observation).toBe('Question: Where?');
    const s = await env.step('finish[Paris]');
    expect(s.info).toMatchObject({ answer: 'Paris', gt_answer: 'the city of Paris', question_idx: 9, em: 0, reward: 0 });
    expect(s.info.f1).toBeCloseTo(0.5, 12); // "paris" vs "city of paris": P 1, R 1/3
    expect(s.observation).toBe('Episode finished, reward = 0\n');
  });
});
