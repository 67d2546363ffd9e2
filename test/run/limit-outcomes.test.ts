// How a run counts and words its model-limit outcomes (src/run/limit-outcomes.ts).
import { describe, expect, it } from 'vitest';
import { limitCounts, limitSentences, manifestLimits, contextOverflowOf } from '../../src/run/limit-outcomes.js';
import type { EpisodeRecord } from '../../src/runlog/schema.js';

const rec = (extra: Partial<EpisodeRecord> = {}): EpisodeRecord =>
  ({
    idx: 0,
    item: 'x',
    input: 'q',
    gold: 'a',
    answer: null,
    metrics: { em: 0 },
    reward: null,
    traj: '',
    steps: [],
    n_calls: 1,
    n_badcalls: 0,
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    cost: 0,
    latency_ms: 0,
    cached_calls: 0,
    error: null,
    ...extra,
  }) as EpisodeRecord;

describe('limitCounts and limitSentences', () => {
  it('counts each limit over scored episodes; error episodes are not counted', () => {
    const records = [
      ...Array.from({ length: 12 }, () =>
        rec({ outcome: 'context_exceeded', outcome_step: 3, outcome_detail: { window: 2048, message: 'm' } }),
      ),
      ...Array.from({ length: 7 }, () => rec()),
      rec({ max_tokens_stops: 2, steps: [{ step: 1, action: 'a', observation: 'o', maxTokensStop: true, turnsDropped: 1 }] }),
      rec({ error: { source: 'llm', message: 'down' }, outcome: 'context_exceeded' }),
    ];
    const c = limitCounts(records);
    expect(c).toEqual({
      episodes: 20,
      contextExceeded: 12,
      windows: [2048],
      maxTokensEpisodes: 1,
      maxTokensStops: 2,
      silentTruncationEpisodes: 0,
      truncatedEpisodes: 1,
    });
    const s = limitSentences(c);
    expect(s[0]).toBe(
      "12 of 20 episodes outgrew the model's 2,048-token window: each ended there as a failure (scored 0, outcome context_exceeded), not an error",
    );
    expect(s[1]).toMatch(/^1 of 20 episodes went on with their oldest turns left out/);
    expect(s[2]).toMatch(/^2 completions in 1 of 20 episodes stopped at max_tokens/);
    expect(manifestLimits(c)).toMatchObject({ context_exceeded: 12, context_windows: [2048], max_tokens_stops: 2, notes: s });
  });
  it('nothing to say when no limit was reached', () => {
    expect(limitSentences(limitCounts([rec(), rec()]))).toEqual([]);
  });
  it('--context-overflow: fail (default) or truncate, anything else is bad input', () => {
    expect(contextOverflowOf(undefined)).toBe('fail');
    expect(contextOverflowOf('truncate')).toBe('truncate');
    expect(() => contextOverflowOf('cut')).toThrow('--context-overflow: expected fail or truncate, got "cut"');
  });
});
