// Pure helpers of the llama.cpp backend (no node-llama-cpp needed).
import { describe, expect, it } from 'vitest';
import { FatalRunError } from '../../src/errors.js';
import { checkLlamaRequest, findStop, sampleSeed, usableStops } from '../../src/llm/llama-sampling.js';
import { PAPER_SAMPLING, type CompletionRequest } from '../../src/llm/types.js';

const ok: CompletionRequest = { ...PAPER_SAMPLING, prompt: 'p', stop: ['\n'] };

describe('findStop', () => {
  it('returns the earliest occurrence of any stop, whatever the list order', () => {
    expect(findStop('abc\nObservation 1: x', ['\nObservation 1:'])).toBe(3);
    expect(findStop('one two three', ['three', 'two'])).toBe(4);
    expect(findStop('one two three', ['two', 'three'])).toBe(4);
    expect(findStop('abcabc', ['c'])).toBe(2);
  });
  it('returns -1 when no stop occurs or no stops are given', () => {
    expect(findStop('abc', ['x', 'abcd'])).toBe(-1);
    expect(findStop('abc', [])).toBe(-1);
  });
});

describe('usableStops', () => {
  it('drops empty strings and handles a missing list', () => {
    expect(usableStops(['', '\n', ''])).toEqual(['\n']);
    expect(usableStops(undefined)).toEqual([]);
  });
});

describe('sampleSeed', () => {
  it('is seed + i, as a uint32', () => {
    expect([0, 1, 2].map((i) => sampleSeed(42, i))).toEqual([42, 43, 44]);
    expect(sampleSeed(2 ** 32 - 1, 1)).toBe(0);
    expect(sampleSeed(-1, 0)).toBe(2 ** 32 - 1);
    expect(sampleSeed(-1, 1)).toBe(0);
  });
});

describe('checkLlamaRequest', () => {
  it('accepts the paper defaults', () => {
    expect(() => checkLlamaRequest(ok)).not.toThrow();
    expect(() => checkLlamaRequest({ ...ok, n: 21, temperature: 0.7, seed: 5 })).not.toThrow();
  });
  it.each([
    [{ n: 0 }, /n must be/],
    [{ n: 1.5 }, /n must be/],
    [{ maxTokens: -1 }, /maxTokens/],
    [{ temperature: -0.1 }, /temperature/],
    [{ topP: 0 }, /topP/],
    [{ topP: 1.01 }, /topP/],
    [{ seed: 0.5 }, /seed/],
    [{ frequencyPenalty: Number.NaN }, /frequencyPenalty/],
  ] as Array<[Partial<CompletionRequest>, RegExp]>)('rejects %o as a FatalRunError', (over, msg) => {
    const call = () => checkLlamaRequest({ ...ok, ...over });
    expect(call).toThrow(FatalRunError);
    expect(call).toThrow(msg);
  });
});
