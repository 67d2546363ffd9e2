// WikiEnv's own rules (§6) on a scripted backend: the paths the released code takes for each outcome.
import { describe, expect, it } from 'vitest';
import type { SearchOutcome, WikiBackend } from '../../../src/envs/wikipedia/backend.js';
import { WikiDisambiguationLoopError, WikiEnv, WIKI_RESET_OBSERVATION } from '../../../src/envs/wikipedia/wiki-env.js';
import { InfraError } from '../../../src/errors.js';

class Scripted implements WikiBackend {
  readonly kind = 'scripted';
  calls: string[] = [];
  constructor(private readonly answers: Record<string, SearchOutcome | Error>) {}
  async search(entity: string): Promise<SearchOutcome> {
    this.calls.push(entity);
    const a = this.answers[entity] ?? { kind: 'similar', titles: ['Nothing'] };
    if (a instanceof Error) throw a;
    return a;
  }
  describe() {
    return { kind: this.kind };
  }
}

const page = (...blocks: string[]): SearchOutcome => ({ kind: 'page', blocks });

describe('WikiEnv', () => {
  it('reset observation, info and counting', async () => {
    const env = new WikiEnv(new Scripted({}));
    expect((await env.reset()).observation).toBe(WIKI_RESET_OBSERVATION);
    expect(WIKI_RESET_OBSERVATION).toBe('Interact with Wikipedia using search[], lookup[], and finish[].\n');
    const r1 = await env.step('think[a]');
    expect(r1).toEqual({ observation: 'Nice thought.', reward: 0, done: false, info: { steps: 1, answer: null } });
    expect((await env.step('')).observation).toBe('Invalid action: ');
    expect((await env.step('  \t')).info).toEqual({ steps: 3, answer: null });
    expect((await env.step('Finish[x]')).observation).toBe('Invalid action: Finish[x]');
    const fin = await env.step(' finish[Paris] ');
    expect(fin).toEqual({ observation: 'Episode finished, reward = 0\n', reward: 0, done: true, info: { steps: 5, answer: 'Paris' } });
    // already finished: same observation, done, no step counted
    expect(await env.step('search[x]')).toEqual({ observation: 'Episode finished, reward = 0\n', reward: 0, done: true, info: { steps: 5, answer: 'Paris' } });
    await env.reset();
    expect((await env.step('think[]')).info).toEqual({ steps: 1, answer: null });
  });

  it('keeps blocks of more than two space-separated tokens, 5 sentences, lookups k/N', async () => {
    const b = new Scripted({
      P: page('Too short', 'two  spaces', 'A b. C d. E f.', 'Ok.', 'G h. I j. K l. M n.\nsecond line here'),
    });
    const env = new WikiEnv(b);
    await env.reset();
    // 'two  spaces' splits into 3 tokens on ' ' (an empty one in the middle), so it is kept
    expect((await env.step('search[P]')).observation).toBe('two  spaces. A b. C d. E f.. G h.') // a paragraph's last "." is kept and another added;
    expect((await env.step('lookup[ d]')).observation).toBe('(Result 1 / 1) C d.');
    expect((await env.step('lookup[ d]')).observation).toBe('No more results.\n');
    expect((await env.step('lookup[ d]')).observation).toBe('No more results.\n');
    expect((await env.step('lookup[LINE]')).observation).toBe('(Result 1 / 1) second line here.');
    expect((await env.step('lookup[ d]')).observation).toBe('(Result 1 / 1) C d.'); // a new keyword restarts
  });

  it('similar titles leave the page and the lookup position alone', async () => {
    const env = new WikiEnv(new Scripted({ P: page('x y z. u v w.'), Q: { kind: 'similar', titles: [" A'b ", 'c', 'd', 'e', 'f', 'g'] } }));
    await env.reset();
    expect((await env.step('lookup[x]')).observation).toBe('No more results.\n'); // no page yet
    await env.step('search[P]');
    expect((await env.step('lookup[w]')).observation).toBe('(Result 1 / 1) u v w..');
    expect((await env.step('search[Q]')).observation).toBe(`Could not find Q. Similar: ["A'b", 'c', 'd', 'e', 'f'].`);
    expect((await env.step('lookup[w]')).observation).toBe('No more results.\n');
    expect((await env.step('lookup[x]')).observation).toBe('(Result 1 / 1) x y z.');
  });

  it('"may refer to:" searches again for [entity]; a results page without headings reads as an empty page', async () => {
    const b = new Scripted({ H: page('H may refer to:', 'H one, a thing'), '[H]': { kind: 'similar', titles: ['H (one)'] }, E: { kind: 'similar', titles: [] } });
    const env = new WikiEnv(b);
    await env.reset();
    expect((await env.step('search[H]')).observation).toBe("Could not find [H]. Similar: ['H (one)'].");
    expect(b.calls).toEqual(['H', '[H]']);
    expect((await env.step('search[E]')).observation).toBe('');
  });

  it('an endless disambiguation chain is stopped; backend errors propagate', async () => {
    const loop = new Scripted({});
    loop.search = async (e: string) => (loop.calls.push(e), page('X may refer to:'));
    const env = new WikiEnv(loop, { maxDisambiguationRetries: 3 });
    await env.reset();
    await expect(env.step('search[X]')).rejects.toBeInstanceOf(WikiDisambiguationLoopError);
    expect(loop.calls).toEqual(['X', '[X]', '[[X]]', '[[[X]]]']);
    const env2 = new WikiEnv(new Scripted({ Y: new InfraError('down', 'env') }));
    await env2.reset();
    await expect(env2.step('search[Y]')).rejects.toBeInstanceOf(InfraError);
    expect((await env2.step('think[t]')).info.steps).toBe(1); // the failed step did not count
  });
});
