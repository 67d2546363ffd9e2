// A cache hit says when the usage of its samples is unknown (README "Reliability"): rows stored
// without token counts, and rows of a cache written before such answers were marked (0 and 0).
import { describe, expect, it } from 'vitest';
import { usageUnknownIn, type StoredChoice } from '../../src/llm/cache/stored.js';

const row = (promptTokens: number | null | undefined, completionTokens: number | null | undefined): StoredChoice => ({
  sampleIndex: 0,
  text: 't',
  finishReason: 'stop',
  callN: 1,
  promptTokens,
  completionTokens,
});

describe('usageUnknownIn', () => {
  it('unknown: no counts, or 0 and 0 (an older cache); known: any token counted', () => {
    expect(usageUnknownIn([row(null, null)])).toBe(true);
    expect(usageUnknownIn([row(undefined, undefined)])).toBe(true);
    expect(usageUnknownIn([row(0, 0)])).toBe(true);
    expect(usageUnknownIn([row(12, 0)])).toBe(false); // an empty completion is a known 0
    expect(usageUnknownIn([row(12, 3), row(0, 0)])).toBe(true);
    expect(usageUnknownIn([row(12, 3), row(12, 4)])).toBe(false);
    expect(usageUnknownIn([])).toBe(false);
  });
});
