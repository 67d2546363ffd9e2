import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeRun } from '../../src/run/execute.js';
import { loadEpisodes } from '../../src/runlog/store.js';
import { mergeRuns } from '../../src/run/merge.js';
import { FatalRunError, InfraError } from '../../src/errors.js';
import { fakeDeps, quietIO } from './doubles.js';
import { withoutSpent } from './cli-helpers.js';

/** `deps` whose methods call `then` once their n-th episode has run (an interrupt mid-run). */
function afterEpisodes(deps: ReturnType<typeof fakeDeps>, n: number, then: () => void): ReturnType<typeof fakeDeps> {
  let done = 0;
  const orig = deps.createMethod;
  deps.createMethod = (name, s) => {
    const m = orig(name, s);
    const run = m.run.bind(m);
    m.run = async (ex, ctx) => {
      const out = await run(ex, ctx);
      if (++done === n) then();
      return out;
    };
    return m;
  };
  return deps;
}

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'exec-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const base = () => ({ task: 'hotpotqa', method: 'cot', model: 'm1', resultsDir: dir, concurrency: 4 });
const read = (d: string, f: string) => fs.readFileSync(path.join(d, f), 'utf8');

describe('executeRun', () => {
  it('writes manifest, episodes and summary; the same settings name the same run', async () => {
    const { io } = quietIO();
    const r = await executeRun({ ...base(), limit: 6 }, fakeDeps(), io);
    expect(r.status).toBe('complete');
    expect(r.runId).toMatch(/^hotpotqa-cot-offline500-m1-[0-9a-f]{8}$/);
    const m = JSON.parse(read(r.dir, 'manifest.json'));
    expect(m.indices).toEqual([3, 10, 17, 24, 1, 8]);
    expect(m.settings.limit).toBe(6);
    expect(m.software.node).toBe(process.version);
    expect(m.inputs['data/hotpotqa/hotpot_dev_v1_simplified.json']).toMatch(/^[0-9a-f]{64}$/);
    expect(m.sessions).toHaveLength(1);
    expect(m.sessions[0].status).toBe('complete');
    const eps = loadEpisodes(path.join(r.dir, 'episodes.jsonl')).records;
    expect(eps.size).toBe(6);
    expect(r.summary.metrics.em).toBe(50); // 10, 24, 8 even of 3,10,17,24,1,8
    expect(m.metrics).toEqual([
      { key: 'em', label: 'EM' },
      { key: 'f1', label: 'F1' },
    ]);
    expect(m.schema).toBe(2);
    expect(read(r.dir, 'summary.csv').split('\n')[0]).toContain(',n_errors,em,f1,n_calls,');
    const deps2 = fakeDeps();
    const r2 = await executeRun({ ...base(), limit: 6 }, deps2, io);
    expect(r2.runId).toBe(r.runId);
    expect(deps2.models[0].calls).toBe(0); // nothing left to run
    expect(loadEpisodes(path.join(r.dir, 'episodes.jsonl')).lines).toBe(6);
    const r3 = await executeRun({ ...base(), limit: 6, model: 'm2' }, fakeDeps(), io);
    expect(r3.runId).not.toBe(r.runId);
    const r4 = await executeRun({ ...base(), limit: 6, concurrency: 1 }, fakeDeps(), io);
    expect(r4.runId).toBe(r.runId); // operational flags do not change the run
  });

  it('resumes a partial run and summarises exactly like an uninterrupted one', async () => {
    const { io } = quietIO();
    const full = await executeRun({ ...base(), resultsDir: path.join(dir, 'a') }, fakeDeps(), io);
    // A run cut after some episodes (simulate a crash: keep 7 lines plus half a line).
    const partialDir = path.join(dir, 'b');
    const first = await executeRun({ ...base(), resultsDir: partialDir }, fakeDeps(), io);
    const file = path.join(first.dir, 'episodes.jsonl');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    fs.writeFileSync(file, lines.slice(0, 7).join('\n') + '\n' + lines[7].slice(0, 30));
    const deps = fakeDeps();
    const resumed = await executeRun({ ...base(), resultsDir: partialDir }, deps, io);
    expect(deps.models[0].calls).toBe(13);
    // The crashed session paid for all 20 episodes and the resume for 13 of them again (no cache): the
    // run's spend counts both (src/run/meter.ts); every other column equals the uninterrupted run's.
    expect(withoutSpent(read(resumed.dir, 'summary.csv'))).toBe(withoutSpent(read(full.dir, 'summary.csv')));
    expect(full.summary).toMatchObject({ spent_tokens: 20 * 12 });
    expect(full.summary.spent_cost_usd).toBeCloseTo(0.02, 12);
    expect(resumed.summary).toMatchObject({ spent_tokens: 33 * 12 });
    expect(resumed.summary.spent_cost_usd).toBeCloseTo(0.033, 12);
    expect(loadEpisodes(file).lines).toBe(20);
  });

  it('refuses to resume a run whose configuration differs, naming the field', async () => {
    const { io } = quietIO();
    const r = await executeRun({ ...base(), limit: 2 }, fakeDeps(), io);
    await expect(executeRun({ ...base(), limit: 2, model: 'other', resume: r.runId }, fakeDeps(), io)).rejects.toThrow(
      /cannot resume: identity\.model\.model differs \(stored "m1", now "other"\)/,
    );
    const m = JSON.parse(read(r.dir, 'manifest.json'));
    m.inputs['prompts/prompts_naive.json'] = 'f'.repeat(64);
    fs.writeFileSync(path.join(r.dir, 'manifest.json'), JSON.stringify(m));
    await expect(executeRun({ ...base(), limit: 2 }, fakeDeps(), io)).rejects.toThrow(/inputs\.prompts\/prompts_naive\.json differs/);
    await expect(executeRun({ ...base(), resume: 'nope' }, fakeDeps(), io)).rejects.toThrow(/--resume nope: no run at/);
  });

  it('records infrastructure errors separately and --retry-errors re-runs only those', async () => {
    const { io } = quietIO();
    const broken = fakeDeps({ fail: (ex) => (ex.index % 3 === 0 ? new InfraError('LLM unreachable after 3 retries', 'llm') : undefined) });
    const r = await executeRun({ ...base(), limit: 10 }, broken, io);
    const errs = [...loadEpisodes(path.join(r.dir, 'episodes.jsonl')).records.values()].filter((e) => e.error);
    expect(errs.map((e) => e.idx).sort((a, b) => a - b)).toEqual([3, 6, 15, 24]);
    expect(errs[0].error).toEqual({ source: 'llm', message: 'LLM unreachable after 3 retries' });
    expect(r.summary.n_errors).toBe(4);
    expect(r.summary.n_scored).toBe(6);
    const again = fakeDeps();
    await executeRun({ ...base(), limit: 10 }, again, io);
    expect(again.models[0].calls).toBe(0); // error episodes count as finished without --retry-errors
    const healed = fakeDeps();
    const r2 = await executeRun({ ...base(), limit: 10, retryErrors: true }, healed, io);
    expect(healed.models[0].calls).toBe(4);
    expect(r2.summary.n_errors).toBe(0);
    expect(r2.summary.n_scored).toBe(10);
    const loaded = loadEpisodes(path.join(r.dir, 'episodes.jsonl'));
    expect(loaded.lines).toBe(14);
    expect(loaded.records.size).toBe(10);
  });

  it('stops the whole run on a FatalRunError', async () => {
    const { io } = quietIO();
    const deps = fakeDeps({ fail: (ex) => (ex.index === 17 ? new FatalRunError('401 Unauthorized: check the API key') : undefined) });
    const r = await executeRun({ ...base(), concurrency: 1 }, deps, io);
    expect(r.status).toBe('failed');
    expect(r.fatal?.message).toMatch(/401/);
    expect(r.summary.n_done).toBe(2); // 3 and 10 finished before 17
  });

  it("a library user's createModel may return a plain model (run uncached) or { backend }; anything else is refused in one line", async () => {
    const { io } = quietIO();
    const plain = fakeDeps();
    const orig = plain.createModel;
    plain.createModel = async (run, hooks) => (await orig(run, hooks)).backend as never;
    const r = await executeRun(base(), plain, io);
    expect(r.status).toBe('complete');
    expect(r.summary.n_done).toBe(20);
    const bad = fakeDeps();
    bad.createModel = async () => ({}) as never;
    await expect(executeRun({ ...base(), resultsDir: path.join(dir, 'bad') }, bad, io)).rejects.toThrow(
      /^deps\.createModel: expected \{ backend: CompletionModel, cache\?: CacheStore \}/,
    );
  });

  it('an interrupt aborts in-flight episodes without writing them and writes the summary', async () => {
    const { io } = quietIO();
    const ac = new AbortController();
    const deps = afterEpisodes(fakeDeps({ delayMs: 30 }), 5, () => setTimeout(() => ac.abort(), 0));
    const r = await executeRun({ ...base(), concurrency: 2 }, deps, { ...io, signal: ac.signal });
    expect(r.status).toBe('interrupted');
    const recs = loadEpisodes(path.join(r.dir, 'episodes.jsonl'));
    expect(recs.lines).toBeGreaterThanOrEqual(5);
    expect(recs.lines).toBeLessThan(20);
    expect(read(r.dir, 'summary.csv')).toContain(`,${recs.lines},`);
    // The recording and the run log agree: an attempt whose "end" line says written has its record.
    const promised = read(r.dir, 'recording.jsonl')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { t: string; item: number; written?: boolean })
      .filter((l) => l.t === 'end' && l.written)
      .map((l) => l.item)
      .sort((a, b) => a - b);
    expect(promised).toEqual([...recs.records.keys()].sort((a, b) => a - b));
  });

  it('runs shards that merge into the unsharded run, and refuses gaps, overlaps and mismatches', async () => {
    const { io } = quietIO();
    const whole = await executeRun({ ...base(), resultsDir: path.join(dir, 'whole') }, fakeDeps(), io);
    const s1 = await executeRun({ ...base(), shard: '1/3' }, fakeDeps(), io);
    const s2 = await executeRun({ ...base(), shard: '2/3' }, fakeDeps(), io);
    const s3 = await executeRun({ ...base(), shard: '3/3' }, fakeDeps(), io);
    expect(JSON.parse(read(s2.dir, 'manifest.json')).shard).toBe('2/3');
    expect(s2.summary.n_planned).toBe(7);
    expect(() => mergeRuns([s1.dir, s3.dir], path.join(dir, 'm0'))).toThrow(/gap: 7 of 20 items uncovered .*shard 2\/3 missing/);
    expect(() => mergeRuns([s1.dir, s1.dir, s2.dir, s3.dir], path.join(dir, 'm0'))).toThrow(/shards overlap/);
    const other = await executeRun({ ...base(), shard: '2/3', model: 'm2' }, fakeDeps(), io);
    expect(() => mergeRuns([s1.dir, other.dir, s3.dir], path.join(dir, 'm0'))).toThrow(
      /not shards of one run: identity\.model\.model differs/,
    );
    expect(() => mergeRuns([whole.dir], path.join(dir, 'm0'))).toThrow(/is not a shard/);
    const m = mergeRuns([s3.dir, s1.dir, s2.dir], path.join(dir, 'merged'));
    expect(m.runId).toBe(whole.runId);
    expect(read(m.dir, 'summary.csv')).toBe(read(whole.dir, 'summary.csv'));
    expect(
      read(m.dir, 'episodes.jsonl')
        .split('\n')
        .map((l) => l && JSON.parse(l).question_idx),
    ).toEqual(
      read(whole.dir, 'episodes.jsonl')
        .split('\n')
        .map((l) => l && JSON.parse(l).question_idx),
    );
    // A shard that stopped part way is refused: resume it first.
    const ac = new AbortController();
    const deps = afterEpisodes(fakeDeps({ delayMs: 5 }), 3, () => ac.abort());
    const stopped = await executeRun({ ...base(), shard: '2/3', resultsDir: path.join(dir, 'stopped'), concurrency: 1 }, deps, {
      ...io,
      signal: ac.signal,
    });
    expect(stopped.status).toBe('interrupted');
    const left = 7 - loadEpisodes(path.join(stopped.dir, 'episodes.jsonl')).lines;
    expect(left).toBeGreaterThan(0);
    expect(() => mergeRuns([s1.dir, stopped.dir, s3.dir], path.join(dir, 'm1'))).toThrow(
      new RegExp(`shard 2/3 .* is unfinished: ${left} of 7 episodes missing .*; resume it first$`),
    );
    // A finished shard whose episodes.jsonl lost records (a copy cut short) is not: a resume would run,
    // and pay for, those episodes again; its folder is to be copied again.
    const f = path.join(s2.dir, 'episodes.jsonl');
    fs.writeFileSync(f, read(s2.dir, 'episodes.jsonl').split('\n').slice(0, 3).join('\n') + '\n');
    const cut = () => mergeRuns([s1.dir, s2.dir, s3.dir], path.join(dir, 'm1'));
    expect(cut).toThrow(
      /shard 2\/3 .*episodes\.jsonl holds 3 of the 7 episode records .*: copy the shard's folder again, whole, then merge$/,
    );
    expect(cut).not.toThrow(/resume/);
  });

  it('refuses a bad --concurrency before anything is written', async () => {
    const { io } = quietIO();
    for (const concurrency of [0, -2, 1.5]) {
      await expect(executeRun({ ...base(), limit: 2, concurrency }, fakeDeps(), io)).rejects.toThrow(
        /^--concurrency: expected a positive integer, got /,
      );
    }
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('never writes a secret value, and runs exactly --indices', async () => {
    const { io } = quietIO();
    const r = await executeRun({ ...base(), indices: '12,4,7' }, fakeDeps({}, { secrets: ['sk-test-SECRET-123'] }), io);
    expect(JSON.parse(read(r.dir, 'manifest.json')).indices).toEqual([12, 4, 7]);
    expect(r.runId).toMatch(/^hotpotqa-cot-indices-m1-/);
    await expect(executeRun({ ...base(), indices: '12,40' }, fakeDeps(), io)).rejects.toThrow(/--indices: 40 is out of range/);
    const leaky = fakeDeps({}, { secrets: ['sk-test-SECRET-123'] });
    await expect(executeRun({ ...base(), limit: 1, apiKeyEnv: 'sk-test-SECRET-123' }, leaky, io)).rejects.toThrow(/secret/);
  });

  it("records each session's model endpoints as the model's description writes them; a model with none records none", async () => {
    const { io } = quietIO();
    const plain = await executeRun({ ...base(), limit: 1 }, fakeDeps(), io);
    expect(JSON.parse(read(plain.dir, 'manifest.json')).sessions[0]).not.toHaveProperty('endpoints');
    const deps = fakeDeps();
    const opened = deps.createModel;
    deps.createModel = async (run, hooks) => ({
      ...(await opened(run, hooks)),
      endpoints: ['http://user:pw-SECRET-456@a.test/v1', 'http://b.test:8000/v1/?key=q-SECRET-789#frag', 'https://c.test/'],
    });
    const r = await executeRun({ ...base(), limit: 2, resultsDir: path.join(dir, 'e') }, deps, io);
    const text = read(r.dir, 'manifest.json');
    expect(text).not.toContain('SECRET');
    // Scheme, host, port and path, as modelDescription.endpoints (src/llm/endpoints.ts safeEndpointLabel):
    // no userinfo, query, fragment or trailing slash.
    expect(JSON.parse(text).sessions[0].endpoints).toEqual(['http://a.test/v1', 'http://b.test:8000/v1', 'https://c.test']);
  });
});

describe('run identity', () => {
  it('leaves out what changes between server restarts or versions without changing the items', async () => {
    const { identityOf } = await import('../../src/run/execute.js');
    const { LiveHtmlBackend } = await import('../../src/envs/wikipedia/live-backend.js');
    // Live Wikipedia's User-Agent, page check, attempts, timeout and URL are how it is served.
    const wiki = new LiveHtmlBackend({ baseUrl: 'http://127.0.0.1:1', userAgent: 'react-repro/0.1.0' });
    expect(wiki.describe()).toMatchObject({ userAgent: 'react-repro/0.1.0', attempts: 10 });
    expect(identityOf(wiki)).toEqual({ kind: 'live', parser: wiki.describe().parser });
    // Without a declaration, the whole description is the identity.
    const plain = { describe: () => ({ backend: 'x', url: 'http://h' }) };
    expect(identityOf(plain)).toEqual({ backend: 'x', url: 'http://h' });
  });
});
