// The recording layer's incremental cache key (src/llm/cache/key.ts ConversationKeyer): for every call of
// an episode it must give exactly cacheKey's value (the keys recordings and bundles carry), whether
// the prompt extends the previous one or not, whatever characters meet at the join.
import { describe, expect, it } from 'vitest';
import { cacheKey, ConversationKeyer } from '../../src/llm/cache/key.js';
import { PAPER_SAMPLING, type CompletionRequest } from '../../src/llm/types.js';

const req = (prompt: string, extra: Partial<CompletionRequest> = {}): CompletionRequest => ({
  ...PAPER_SAMPLING,
  prompt,
  stop: ['\nObservation 1:'],
  ...extra,
});

describe('ConversationKeyer', () => {
  it("gives cacheKey's value for a growing ReAct prompt, whatever is escaped at the joins", () => {
    const keyer = new ConversationKeyer();
    const pieces = [
      'Solve a question answering task with interleaving Thought, Action, Observation steps.\nQuestion: "AT&T" \\ tab\there',
      '\nThought 1: I need to search \u2028 line-sep and \u0001 control.',
      '\nAction 1: Search[Colorado orogeny]\nObservation 1: The Colorado orogeny 😀 was',
      // a join inside a surrogate pair: the previous prompt ends with a high surrogate
      '\ud83d',
      '\ude00 and a lone \udc00 low one, then "quotes" and </script>',
      '',
      '\nThought 2: é ü 中文',
    ];
    let prompt = '';
    for (const p of pieces) {
      prompt += p;
      const r = req(prompt);
      expect(keyer.key('m', 'completions', r)).toBe(cacheKey('m', 'completions', r));
    }
  });

  it('hashes afresh when the prompt does not extend the last one, or the model, api or sampling differ', () => {
    const keyer = new ConversationKeyer();
    const cases: [string, string, CompletionRequest][] = [
      ['m', 'completions', req('Question: one')],
      ['m', 'completions', req('Question: one\nThought 1:')],
      ['m', 'completions', req('Question: two')],
      ['m', 'completions', req('Question: two', { stop: undefined, seed: 7, temperature: 0.7, n: 3 })],
      ['other-model', 'completions', req('Question: two and more')],
      ['other-model', 'chat', req('Question: two and more, longer')],
      ['other-model', 'chat', req('Question: two and more, longer', { maxTokens: undefined as unknown as number })],
      ['m', 'completions', req('')],
      ['m', 'completions', req('x')],
    ];
    for (const [model, api, r] of cases) expect(keyer.key(model, api, r)).toBe(cacheKey(model, api, r));
  });

  it('keeps no state in the request: two conversations interleaved keep their own keys', () => {
    const a = new ConversationKeyer();
    const b = new ConversationKeyer();
    for (let i = 0; i < 4; i++) {
      const ra = req(`Question: a${'\nstep a'.repeat(i)}`);
      const rb = req(`Question: b${'\nstep "b"'.repeat(i)}`);
      expect([a.key('m', 'completions', ra), b.key('m', 'completions', rb)]).toEqual([
        cacheKey('m', 'completions', ra),
        cacheKey('m', 'completions', rb),
      ]);
    }
  });
});
