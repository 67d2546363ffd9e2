// The OpenAI-compatible backend (its requests on src/llm/model-http.ts) against the test server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FatalRunError, InfraError } from '../../src/errors.js';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { modelOn, req, SECRET_KEY } from './helpers.js';
import { AbortedUnsentError } from '../../src/llm/types.js';
import { recordError } from '../../src/envs/recording.js';
import { isInFlightAbort } from '../../src/run/meter.js';
import { abortReason, VirtualClock } from '../../src/util/clock.js';

let srv: OpenAIServer;
beforeAll(async () => {
  srv = await startOpenAIServer({
    respond: (r, i) => {
      if (r.prompt.startsWith('react:')) return ' I should search.\nAction 1: Search[Milhouse]\nObservation 1: ...';
      if (r.prompt.startsWith('sample:')) return ` answer ${i}`;
      if (r.prompt.startsWith('long:')) return ' one two three four five six seven eight nine ten';
      return ' plain text';
    },
  });
});
afterAll(() => srv.close());

describe('completions', () => {
  it('sends the request parameters exactly and returns choices, finish reasons and usage', async () => {
    const { model } = await modelOn(srv.baseURL);
    srv.reset();
    const r = await model.complete(req('react: Thought 1:', { stop: ['\nObservation 1:'], seed: 7 }));
    expect(r.choices).toEqual([{ index: 0, text: ' I should search.\nAction 1: Search[Milhouse]', finishReason: 'stop' }]);
    expect(r.cachedChoices).toBe(0);
    const body = srv.completionRequests()[0].body;
    expect(body).toMatchObject({
      model: 'test-model',
      prompt: 'react: Thought 1:',
      stop: ['\nObservation 1:'],
      max_tokens: 100,
      temperature: 0,
      top_p: 1,
      n: 1,
      seed: 7,
      frequency_penalty: 0,
      presence_penalty: 0,
    });
    expect(srv.completionRequests()[0].path).toBe('/v1/completions');
    // test tokenizer: "react:", " Thought", " 1:" = 3 prompt tokens; 6 completion tokens
    expect(r.usage).toEqual({ promptTokens: 3, completionTokens: 6, totalTokens: 9 });
    expect(r.costUsd).toBe(0); // local endpoint, no prices given
    await model.close();
  });

  it('cuts at the earliest of several stop sequences, and a stop at the start gives ""', async () => {
    const { model } = await modelOn(srv.baseURL);
    const a = await model.complete(req('react: x', { stop: ['Observation', '\nAction 1:', 'search'] }));
    expect(a.choices[0].text).toBe(' I should ');
    const b = await model.complete(req('react: x', { stop: [' I should'] }));
    expect(b.choices[0]).toMatchObject({ text: '', finishReason: 'stop' });
    await model.close();
  });

  it('omits stop when there is none, and truncates at max_tokens with finish_reason length', async () => {
    const { model } = await modelOn(srv.baseURL);
    srv.reset();
    const r = await model.complete(req('long: go', { maxTokens: 3 }));
    expect(r.choices[0]).toEqual({ index: 0, text: ' one two three', finishReason: 'length' });
    expect(srv.completionRequests()[0].body).not.toHaveProperty('stop');
    expect(r.usage.completionTokens).toBe(3);
    await model.close();
  });

  it('returns n samples in index order with the usage of the whole call', async () => {
    const { model } = await modelOn(srv.baseURL);
    srv.reset();
    const r = await model.complete(req('sample: q', { n: 4, temperature: 0.7 }));
    expect(r.choices.map((c) => c.text)).toEqual([' answer 0', ' answer 1', ' answer 2', ' answer 3']);
    expect(r.choices.map((c) => c.index)).toEqual([0, 1, 2, 3]);
    expect(srv.completionRequests()).toHaveLength(1);
    expect(srv.completionRequests()[0].body.n).toBe(4);
    expect(r.usage).toEqual({ promptTokens: 2, completionTokens: 8, totalTokens: 10 });
    await model.close();
  });

  it('computes cost from configured prices and keeps run totals', async () => {
    const { model } = await modelOn(srv.baseURL, { pricePrompt: 1.5, priceCompletion: 2 });
    const r = await model.complete(req('sample: q', { n: 2 }));
    // 2 prompt tokens, 4 completion tokens
    expect(r.costUsd).toBeCloseTo((2 * 1.5 + 4 * 2) / 1e6, 15);
    const r2 = await model.complete(req('long: x', { maxTokens: 2 }));
    // Tokens and money are the calls' own figures (the run's meter sums them); the totals count traffic.
    expect(r2.usage).toEqual({ promptTokens: 2, completionTokens: 2, totalTokens: 4 });
    expect(r2.costUsd).toBeCloseTo((2 * 1.5 + 2 * 2) / 1e6, 15);
    expect(model.totals()).toEqual({
      calls: 2,
      failedCalls: 0,
      httpRequests: 2,
      retries: 0,
      cacheHits: 0,
      cachedChoices: 0,
      freshChoices: 3,
      inFlight: 0,
    });
    expect(model.describe()).toMatchObject({ pricesUsdPer1M: { prompt: 1.5, completion: 2, source: 'flags' } });
    await model.close();
  });

  it('asks again for the remaining samples when a server ignores n (as Ollama does)', async () => {
    // A bare server that answers one choice whatever n is.
    const http = await import('node:http');
    const bodies: any[] = [];
    const server = http.createServer((rq, rs) => {
      let data = '';
      rq.on('data', (c) => (data += c));
      rq.on('end', () => {
        const b = JSON.parse(data);
        bodies.push(b);
        rs.writeHead(200, { 'content-type': 'application/json' });
        rs.end(
          JSON.stringify({
            id: 'x',
            object: 'text_completion',
            created: 0,
            model: b.model,
            choices: [{ index: 0, text: ` s${bodies.length}`, finish_reason: 'stop', logprobs: null }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as any).port;
    const { model } = await modelOn(`http://127.0.0.1:${port}/v1`);
    const r = await model.complete(req('q', { n: 3, temperature: 0.7 }));
    expect(r.choices.map((c) => [c.index, c.text])).toEqual([
      [0, ' s1'],
      [1, ' s2'],
      [2, ' s3'],
    ]);
    expect(bodies.map((b) => b.n)).toEqual([3, 2, 1]);
    expect(r.usage.totalTokens).toBe(6);
    await model.close();
    await new Promise((r) => server.close(r));
  });
});

describe('chat mode (--api chat)', () => {
  it('carries the prompt as one user message with the same stop and sampling, and reports the deviation', async () => {
    const { model } = await modelOn(srv.baseURL, { api: 'chat' });
    srv.reset();
    const r = await model.complete(req('react: Thought 1:', { stop: ['\nObservation 1:'], n: 2, temperature: 0.7 }));
    expect(r.choices.map((c) => c.text)).toEqual([
      ' I should search.\nAction 1: Search[Milhouse]',
      ' I should search.\nAction 1: Search[Milhouse]',
    ]);
    const rec = srv.completionRequests()[0];
    expect(rec.path).toBe('/v1/chat/completions');
    expect(rec.body).toMatchObject({
      model: 'test-model',
      messages: [{ role: 'user', content: 'react: Thought 1:' }],
      stop: ['\nObservation 1:'],
      max_tokens: 100,
      temperature: 0.7,
      top_p: 1,
      n: 2,
      frequency_penalty: 0,
      presence_penalty: 0,
    });
    expect(rec.body).not.toHaveProperty('prompt');
    const d = model.describe();
    expect(d.api).toBe('chat');
    expect((d.deviations as string[])[0]).toMatch(/chat/);
    await model.close();
  });

  it('reports no deviation in completions mode', async () => {
    const { model } = await modelOn(srv.baseURL);
    expect(model.describe()).toMatchObject({ api: 'completions', deviations: [], backend: 'openai-compatible', model: 'test-model' });
    await model.close();
  });
});

describe('authentication and fatal errors', () => {
  let authSrv: OpenAIServer;
  beforeAll(async () => {
    authSrv = await startOpenAIServer({ apiKey: SECRET_KEY, models: ['good-model'], respond: () => ' ok' });
  });
  afterAll(() => authSrv.close());

  it('sends the key from the named env var as a Bearer token, never in describe()', async () => {
    const { model } = await modelOn(authSrv.baseURL, { model: 'good-model', apiKeyEnv: 'MY_KEY' }, { MY_KEY: SECRET_KEY });
    authSrv.reset();
    const r = await model.complete(req('q'));
    expect(r.choices[0].text).toBe(' ok');
    expect(authSrv.requests[0].headers.authorization).toBe(`Bearer ${SECRET_KEY}`);
    const d = JSON.stringify(model.describe());
    expect(d).not.toContain(SECRET_KEY);
    expect(d).toContain('MY_KEY');
    await model.close();
  });

  it('sends a placeholder key when none is configured (servers that need none)', async () => {
    const { model } = await modelOn(srv.baseURL);
    srv.reset();
    await model.complete(req('q'));
    expect(srv.requests[0].headers.authorization).toBe('Bearer sk-no-key');
    await model.close();
  });

  it('401 fails fast with a FatalRunError naming the env var, never the key', async () => {
    const wrong = `${SECRET_KEY}-wrong`;
    const { model } = await modelOn(authSrv.baseURL, { model: 'good-model' }, { OPENAI_API_KEY: wrong });
    authSrv.reset();
    const e = await model.complete(req('q')).catch((x) => x);
    expect(e).toBeInstanceOf(FatalRunError);
    expect(e.message).toMatch(/401/);
    expect(e.message).toMatch(/OPENAI_API_KEY/);
    expect(e.message).not.toContain(wrong);
    expect(e.message).not.toContain(SECRET_KEY);
    expect(e.message).not.toContain('\n');
    expect(JSON.stringify(e)).not.toContain(wrong);
    expect(String(e.stack)).not.toContain(wrong);
    expect(authSrv.completionRequests()).toHaveLength(1); // no retry
    expect(model.totals().failedCalls).toBe(1);
    await model.close();
  });

  it('401 without any key says to set the env var', async () => {
    const { model } = await modelOn(authSrv.baseURL, { model: 'good-model' });
    const e = await model.complete(req('q')).catch((x) => x);
    expect(e).toBeInstanceOf(FatalRunError);
    expect(e.message).toMatch(/needs an API key.*set the environment variable OPENAI_API_KEY/);
    await model.close();
  });

  it('404 for an unknown model names --model and --base-url (must end in /v1)', async () => {
    const { model } = await modelOn(authSrv.baseURL, { model: 'no-such-model' }, { OPENAI_API_KEY: SECRET_KEY });
    authSrv.reset();
    const e = await model.complete(req('q')).catch((x) => x);
    expect(e).toBeInstanceOf(FatalRunError);
    expect(e.message).toMatch(/no-such-model/);
    expect(e.message).toMatch(/--model and --base-url \(it must end in \/v1\)/);
    expect(e.message).not.toContain(SECRET_KEY);
    expect(authSrv.completionRequests()).toHaveLength(1);
    await model.close();
  });

  it('404 for a base URL without /v1', async () => {
    const { model } = await modelOn(srv.baseURL.replace(/\/v1$/, ''));
    const e = await model.complete(req('q')).catch((x) => x);
    expect(e).toBeInstanceOf(FatalRunError);
    expect(e.message).toMatch(/404.*must end in \/v1/);
    await model.close();
  });

  it('400 shows the server message on one line (more than 4 stop sequences)', async () => {
    const { model } = await modelOn(srv.baseURL);
    srv.reset();
    const e = await model.complete(req('q', { stop: ['a', 'b', 'c', 'd', 'e'] })).catch((x) => x);
    expect(e).toBeInstanceOf(FatalRunError);
    expect(e.message).toMatch(/rejected the request \(400\): .*is too long - 'stop'/);
    expect(e.message).not.toContain('\n');
    expect(srv.completionRequests()).toHaveLength(1);
    await model.close();
  });

  it('a 400 about the context window is an episode error (InfraError), not fatal', async () => {
    const s = await startOpenAIServer();
    s.enqueueFaults({
      kind: 'status',
      status: 400,
      message: "This model's maximum context length is 4097 tokens, however you requested 5000 tokens.",
    });
    const { model } = await modelOn(s.baseURL);
    const e = await model.complete(req('q')).catch((x) => x);
    expect(e).toBeInstanceOf(InfraError);
    expect(e).not.toBeInstanceOf(FatalRunError);
    expect(e.message).toMatch(/does not fit.*maximum context length/);
    expect(s.completionRequests()).toHaveLength(1);
    await model.close();
    await s.close();
  });

  it('403 fails fast', async () => {
    const s = await startOpenAIServer();
    s.enqueueFaults({ kind: 'status', status: 403 });
    const { model } = await modelOn(s.baseURL, {}, { OPENAI_API_KEY: SECRET_KEY });
    const e = await model.complete(req('q')).catch((x) => x);
    expect(e).toBeInstanceOf(FatalRunError);
    expect(e.message).toMatch(/403/);
    expect(s.completionRequests()).toHaveLength(1);
    await model.close();
    await s.close();
  });
});

describe('error bodies of other servers', () => {
  it('vLLM\'s {"object":"error","message"} 400 about the context is recognised', async () => {
    const s = await startOpenAIServer();
    s.enqueueFaults({
      kind: 'status',
      status: 400,
      body: {
        object: 'error',
        message:
          "This model's maximum context length is 4096 tokens. However, you requested 4197 tokens (4097 in the messages, 100 in the completion).",
        type: 'BadRequestError',
        param: null,
        code: 400,
      },
    });
    const { model } = await modelOn(s.baseURL);
    const e = await model.complete(req('q')).catch((x) => x);
    expect(e).toBeInstanceOf(InfraError);
    expect(e.message).toMatch(/maximum context length is 4096/);
    await model.close();
    await s.close();
  });

  it('Ollama\'s {"error":"text"} 404 keeps its message', async () => {
    const s = await startOpenAIServer();
    s.enqueueFaults({ kind: 'status', status: 404, body: { error: "model 'llama9' not found, try pulling it first" } });
    const { model } = await modelOn(s.baseURL, { model: 'llama9' });
    const e = await model.complete(req('q')).catch((x) => x);
    expect(e).toBeInstanceOf(FatalRunError);
    expect(e.message).toMatch(/404: model 'llama9' not found, try pulling it first\)/);
    await model.close();
    await s.close();
  });

  it('a FastAPI {"detail"} 400 shows the detail', async () => {
    const s = await startOpenAIServer();
    s.enqueueFaults({ kind: 'status', status: 400, body: { detail: 'top_p must be in (0, 1]' } });
    const { model } = await modelOn(s.baseURL);
    const e = await model.complete(req('q')).catch((x) => x);
    expect(e).toBeInstanceOf(FatalRunError);
    expect(e.message).toMatch(/\(400\): top_p must be in \(0, 1\]$/);
    await model.close();
    await s.close();
  });
});

/** A clock whose backoff sleeps last until the call is stopped (so a test stops a call while it backs off). */
class HeldClock extends VirtualClock {
  override sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return new Promise((_, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      signal?.addEventListener('abort', () => reject(abortReason(signal)), { once: true });
    });
  }
}

/** Calls `baseURL` and stops the call once it backs off after its first attempt; what the call threw. */
async function stoppedWhileBackingOff(baseURL: string): Promise<{ e: unknown; signal: AbortSignal }> {
  const clock = new HeldClock();
  const { model } = await modelOn(baseURL, {}, {}, clock);
  const ac = new AbortController();
  const call = model.complete(req('q'), { signal: ac.signal }).catch((x: unknown) => x);
  while (clock.sleeps.length === 0) await new Promise((r) => setTimeout(r, 5));
  ac.abort(new Error('interrupted'));
  const e = await call;
  await model.close();
  return { e, signal: ac.signal };
}

describe('a call stopped by its signal: may it have been billed?', () => {
  it('stopped while backing off after a refused connection, it is an AbortedUnsentError (nothing reached a server)', async () => {
    const probe = await startOpenAIServer();
    await probe.close();
    const { e, signal } = await stoppedWhileBackingOff(probe.baseURL);
    expect(e).toBeInstanceOf(AbortedUnsentError);
    expect(recordError(e, signal)).toMatchObject({ aborted: true, unsent: true });
    expect(isInFlightAbort(recordError(e, signal))).toBe(false);
  });

  it('stopped while backing off after a 500, it is an AbortedUnsentError (an error status is not billed)', async () => {
    const s = await startOpenAIServer();
    s.enqueueFaults({ kind: 'status', status: 500 });
    expect((await stoppedWhileBackingOff(s.baseURL)).e).toBeInstanceOf(AbortedUnsentError);
    await s.close();
  });

  it('stopped while backing off after a timeout, it is not (the server may have done and billed the work)', async () => {
    const s = await startOpenAIServer();
    s.enqueueFaults({ kind: 'delay', ms: 2000 });
    const clock = new HeldClock();
    const { model } = await modelOn(s.baseURL, { requestTimeout: 0.2 }, {}, clock);
    const ac = new AbortController();
    const call = model.complete(req('q'), { signal: ac.signal }).catch((x: unknown) => x);
    while (clock.sleeps.length === 0) await new Promise((r) => setTimeout(r, 5));
    ac.abort(new Error('interrupted'));
    const e = await call;
    expect(e).not.toBeInstanceOf(AbortedUnsentError);
    expect(isInFlightAbort(recordError(e, ac.signal))).toBe(true);
    await model.close();
    await s.close();
  });

  it('stopped while its request is at the server, it is not', async () => {
    const s = await startOpenAIServer();
    s.enqueueFaults({ kind: 'delay', ms: 2000 });
    const { model } = await modelOn(s.baseURL);
    const ac = new AbortController();
    const call = model.complete(req('q'), { signal: ac.signal }).catch((x: unknown) => x);
    while (s.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    ac.abort(new Error('interrupted'));
    const e = await call;
    expect(e).not.toBeInstanceOf(AbortedUnsentError);
    expect(isInFlightAbort(recordError(e, ac.signal))).toBe(true);
    await model.close();
    await s.close();
  });
});
