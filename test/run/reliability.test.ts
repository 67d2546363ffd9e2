// Reliability (README "Reliability") in the runner, with doubles: the circuit breaker, the --max-cost budget, disk errors,
// errors per cause, the resume note, the results-folder checks and the progress line.
import { execFileSync } from 'node:child_process';
import { getEventListeners } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkResultsDir, ensureResultsDir, errorCauses, executeRun } from '../../src/run/execute.js';
import { recordableSettings, redactedSettingKeys } from '../../src/run/manifest.js';
import { loadEpisodes } from '../../src/runlog/store.js';
import { CircuitBreaker, CircuitOpenError } from '../../src/run/breaker.js';
import { Budget, BudgetStop, estimateCallUsd } from '../../src/run/budget.js';
import { pricesOfDescription } from '../../src/llm/pricing.js';
import { EpisodeMeter } from '../../src/run/meter.js';
import { episodeModel } from '../../src/run/model-chain.js';
import { errorsText, Progress, progressLine } from '../../src/run/progress.js';
import { ContextLengthError } from '../../src/llm/context-limit.js';
import { InfraError, UserError } from '../../src/errors.js';
import { DiskError } from '../../src/util/durable.js';
import { fakeDeps, fakeModel, quietIO } from './doubles.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rel-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const base = () => ({ task: 'hotpotqa', method: 'cot', model: 'm1', resultsDir: dir, concurrency: 1 });
const read = (d: string, f: string) => fs.readFileSync(path.join(d, f), 'utf8');
const llmDown = () => new InfraError('model "m1" at http://127.0.0.1:1/v1 failed after 3 attempts: connection error (ECONNREFUSED)', 'llm');

describe('CircuitBreaker', () => {
  it('trips on the Nth failure in a row of one side; a success resets; context-length errors and bugs do not count', () => {
    const b = new CircuitBreaker(3);
    expect(b.failure(llmDown())).toBeNull();
    expect(b.failure(llmDown())).toBeNull();
    b.success();
    expect(b.failure(llmDown())).toBeNull();
    expect(b.failure(new InfraError('Wikipedia: GET http://w/x failed 10 times (last: HTTP 503)', 'env'))).toBeNull();
    expect(b.failure(new ContextLengthError('the prompt does not fit'))).toBeNull();
    expect(b.failure(new TypeError('a bug'))).toBeNull();
    expect(b.failure(llmDown())).toBeNull();
    const open = b.failure(llmDown());
    expect(open).toBeInstanceOf(CircuitOpenError);
    expect(open!.message).toBe(
      'stopped: 3 episodes in a row failed on the model endpoint: model "m1" at http://127.0.0.1:1/v1 failed after 3 attempts: connection error (ECONNREFUSED)',
    );
    expect(open!.source).toBe('llm');
    const off = new CircuitBreaker(0);
    for (let i = 0; i < 100; i++) expect(off.failure(llmDown())).toBeNull();
  });
});

describe('executeRun with the circuit breaker', () => {
  it('a dead model endpoint stops the run after N failures in a row: those are recorded, the rest is not attempted; a re-run resumes', async () => {
    const { io } = quietIO();
    const deps = fakeDeps({ fail: () => llmDown() });
    const r = await executeRun({ ...base() }, deps, { ...io, maxConsecutiveFailures: 4 });
    expect(r.status).toBe('failed');
    expect(r.fatal).toBeInstanceOf(CircuitOpenError);
    expect(r.fatal!.message).toMatch(/4 episodes in a row failed on the model endpoint: .*127\.0\.0\.1:1.*ECONNREFUSED/);
    expect(deps.models[0].calls).toBe(4); // of 20 planned
    expect(loadEpisodes(path.join(r.dir, 'episodes.jsonl')).lines).toBe(4);
    expect(r.errorCauses).toEqual([{ source: 'llm', count: 4, first: llmDown().message }]);
    const m = JSON.parse(read(r.dir, 'manifest.json'));
    expect(m.sessions[0].status).toBe('failed');
    expect(read(r.dir, 'summary.csv')).toContain(',20,4,0,4,');
    // The endpoint is back: the same settings resume, --retry-errors re-runs the four.
    const lines: string[] = [];
    const healed = fakeDeps();
    const r2 = await executeRun({ ...base(), retryErrors: true }, healed, { ...io, log: (l) => lines.push(l) });
    expect(r2.status).toBe('complete');
    expect(healed.models[0].calls).toBe(20);
    expect(r2.errorCauses).toEqual([]);
    expect(lines).toContain('re-running the 4 episodes of this run recorded as errors (--retry-errors)');
  });

  it('tripped by the last episodes with every one written, it stopped nothing: the run is complete with its errors', async () => {
    const { io } = quietIO();
    let n = 0;
    const deps = fakeDeps({ fail: () => (n++ >= 18 ? llmDown() : undefined) });
    const r = await executeRun({ ...base() }, deps, { ...io, maxConsecutiveFailures: 2 });
    expect(r.status).toBe('complete');
    expect(r.fatal).toBeUndefined();
    expect(r.summary.n_done).toBe(20);
    expect(r.errorCauses).toEqual([{ source: 'llm', count: 2, first: llmDown().message }]);
    expect(JSON.parse(read(r.dir, 'manifest.json')).sessions[0].status).toBe('complete');
    // One episode earlier, the same trip leaves an episode unrun: stopped.
    let m = 0;
    const early = fakeDeps({ fail: () => (m++ >= 17 && m <= 19 ? llmDown() : undefined) });
    const s = await executeRun({ ...base(), resultsDir: path.join(dir, 'early') }, early, { ...io, maxConsecutiveFailures: 2 });
    expect(s.status).toBe('failed');
    expect(s.fatal).toBeInstanceOf(CircuitOpenError);
    expect(s.summary.n_done).toBe(19);
  });

  it('with concurrency, in-flight episodes are aborted and not written when it trips; those that had failed already are', async () => {
    const { io } = quietIO();
    // Plan order 3 10 17 24 1 8 | 15 22 ...: the first six of the eight started fail at once, every
    // other episode waits until the run stops it. All six fail (and their recordings say "written")
    // before the first of them is made durable and appended, so the fifth appended trips the breaker
    // with the sixth already promised, and the rest are in flight: whatever the machine's timing.
    const failsAtOnce = new Set([3, 10, 17, 24, 1, 8]);
    const deps = fakeDeps({ fail: () => llmDown() });
    const orig = deps.createMethod;
    deps.createMethod = (name, s) => {
      const m = orig(name, s);
      const run = m.run.bind(m);
      m.run = (ex, ctx) =>
        failsAtOnce.has(ex.index)
          ? run(ex, ctx)
          : new Promise((_, reject) => ctx.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
      return m;
    };
    const r = await executeRun({ ...base(), concurrency: 8 }, deps, { ...io, maxConsecutiveFailures: 5 });
    expect(r.status).toBe('failed');
    expect(r.fatal).toBeInstanceOf(CircuitOpenError);
    // The five that tripped it and the one that had failed with them: never one of those in flight.
    const recs = loadEpisodes(path.join(r.dir, 'episodes.jsonl'));
    expect([...recs.records.keys()].sort((a, b) => a - b)).toEqual([...failsAtOnce].sort((a, b) => a - b));
    expect([...recs.records.values()].every((e) => e.error?.source === 'llm')).toBe(true);
    const ends = read(r.dir, 'recording.jsonl')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { t: string; item: number; written?: boolean })
      .filter((l) => l.t === 'end');
    const said = (written: boolean) =>
      ends
        .filter((l) => l.written === written)
        .map((l) => l.item)
        .sort((a, b) => a - b);
    // The recording and the run log agree: an attempt whose "end" line says written has its record.
    expect(said(true)).toEqual([...recs.records.keys()].sort((a, b) => a - b));
    expect(said(false)).toEqual(expect.arrayContaining([15, 22]));
    expect(deps.models[0].calls).toBe(6);
  });

  it('scattered failures between successes never trip it; the run ends with its errors per cause', async () => {
    const { io } = quietIO();
    const deps = fakeDeps({
      fail: (ex) =>
        ex.index % 3 === 0
          ? llmDown()
          : ex.index % 5 === 0
            ? new InfraError('Wikipedia: GET http://w/x failed 10 times (last: HTTP 503)', 'env')
            : ex.index === 17
              ? new RangeError('bug')
              : undefined,
    });
    // Plan order 3 10 17 24 1 8 15 ...: llm, env, bug, llm, ok, ok, llm ... -- at most 2 llm failures
    // with no scored episode between them.
    const r = await executeRun({ ...base() }, deps, { ...io, maxConsecutiveFailures: 3 });
    expect(r.status).toBe('complete');
    expect(r.errorCauses.map((c) => [c.source, c.count])).toEqual([
      ['llm', 7],
      ['env', 3],
      ['internal', 1],
    ]);
    const strict = await executeRun({ ...base(), resultsDir: path.join(dir, 'strict') }, deps, { ...io, maxConsecutiveFailures: 2 });
    expect(strict.status).toBe('failed');
    expect(strict.summary.n_done).toBe(4); // 3 (llm), 10 (env), 17 (bug), 24 (llm): two llm failures, no success between
    expect(r.errorCauses[2].first).toBe('RangeError: bug');
  });
});

describe('the resume note', () => {
  it('re-running a run with error episodes says how many and how to re-run them', async () => {
    const { io } = quietIO();
    await executeRun({ ...base(), limit: 6 }, fakeDeps({ fail: (ex) => (ex.index % 2 === 1 ? llmDown() : undefined) }), io);
    const lines: string[] = [];
    await executeRun({ ...base(), limit: 6 }, fakeDeps(), { ...io, log: (l) => lines.push(l) });
    expect(lines).toContain('3 episodes of this run are recorded as errors; --retry-errors re-runs them');
  });
});

describe('--max-cost', () => {
  it('estimates a call at chars/4 prompt tokens and max_tokens × n completion tokens', () => {
    const req = { prompt: 'x'.repeat(4001), maxTokens: 100, n: 3 };
    expect(estimateCallUsd(req, { promptPerM: 1, completionPerM: 2 })).toBeCloseTo((1001 * 1 + 300 * 2) / 1e6, 12);
    expect(estimateCallUsd(req, null)).toBe(0);
    expect(pricesOfDescription({ pricesUsdPer1M: { prompt: 1.5, completion: 2, source: 'builtin' } })).toEqual({
      promptPerM: 1.5,
      completionPerM: 2,
      status: 'known',
    });
    expect(pricesOfDescription({ backend: 'llama.cpp' })).toEqual({ promptPerM: 0, completionPerM: 0, status: 'free' });
    // A library backend stating no prices bills what it reports (costUsd): not free.
    expect(pricesOfDescription({ backend: 'mine' })).toEqual({ promptPerM: 0, completionPerM: 0, status: 'known' });
  });

  it('counts calls in flight at their estimates: a call that fits only once they settle waits, and is admitted at what they cost', async () => {
    const b = new Budget(0.01);
    const settleA = await b.begin(0.004);
    const settleB = await b.begin(0.004);
    let admitted = false;
    const third = b.begin(0.004).then((release) => {
      admitted = true;
      return release;
    });
    await Promise.resolve();
    expect(admitted).toBe(false); // 0.008 in flight + 0.004 could pass 0.01
    b.meter.paid({ promptTokens: 0, completionTokens: 0, totalTokens: 0 }, 0.003); // what the meter counts, not the estimate
    settleA();
    await Promise.resolve();
    expect(admitted).toBe(false); // 0.003 spent + 0.004 in flight + 0.004
    b.meter.paid({ promptTokens: 0, completionTokens: 0, totalTokens: 0 }, 0.001);
    settleB();
    (await third)(); // 0.004 spent + 0.004 fits
    expect(b.spent).toBeCloseTo(0.004, 12);
    expect(b.stopped).toBeNull();
    await expect(b.begin(0.007)).rejects.toThrow(BudgetStop); // could pass it with nothing in flight
    expect(b.stopped?.message).toBe(
      'stopped at the --max-cost budget of $0.0100: $0.0040 spent by this command when it stopped, and the next call (up to $0.0070) could pass it',
    );
    await expect(b.begin(0)).rejects.toThrow(BudgetStop); // once stopped, stopped
    let stops = 0;
    // The budget layer over the metering layer, as in an episode's chain (src/run/model-chain.ts).
    const budget = new Budget(0.0025);
    const m = episodeModel({
      model: fakeModel(),
      meter: new EpisodeMeter(budget.meter),
      budget: { budget, prices: null, onStop: () => stops++ },
    });
    const req = { prompt: 'p', maxTokens: 1, temperature: 0, topP: 1, n: 1, frequencyPenalty: 0, presencePenalty: 0 };
    await m.complete(req); // 0.001
    await m.complete(req); // 0.002
    await m.complete(req); // 0.003: spent was 0.002 + estimate 0 <= 0.0025
    await expect(m.complete(req)).rejects.toThrow(BudgetStop);
    expect(stops).toBe(1);
  });

  it('refuses a budget over a model whose price is unknown before the run folder is made', async () => {
    const { io } = quietIO();
    const deps = fakeDeps();
    const create = deps.createModel;
    deps.createModel = async (run, hooks) => {
      const made = await create(run, hooks);
      const describe = made.backend.describe.bind(made.backend);
      made.backend.describe = () => ({ ...describe(), pricesUsdPer1M: { prompt: 0, completion: 0, source: 'none' } });
      return made;
    };
    const resultsDir = path.join(dir, 'unpriced');
    await expect(executeRun({ ...base(), resultsDir }, deps, { ...io, budget: new Budget(1) })).rejects.toThrow(
      /^--max-cost: no price is known for the model m1, so the budget cannot count its calls/,
    );
    expect(deps.models[0].calls).toBe(0);
    expect(fs.existsSync(resultsDir)).toBe(false);
  });

  it('stops the run cleanly and resumably; the resumed run summarises like an uninterrupted one', async () => {
    const { io } = quietIO();
    const full = await executeRun({ ...base(), resultsDir: path.join(dir, 'a') }, fakeDeps(), io);
    const budget = new Budget(0.0045); // the fake model costs $0.001 a call
    const deps = fakeDeps();
    const r = await executeRun({ ...base(), resultsDir: path.join(dir, 'b') }, deps, { ...io, budget });
    expect(r.status).toBe('interrupted');
    expect(r.stoppedBy).toBe('max-cost');
    expect(r.budgetStop?.message).toMatch(/--max-cost budget of \$0\.0045/);
    expect(deps.models[0].calls).toBe(5); // the 6th call was refused
    expect(loadEpisodes(path.join(r.dir, 'episodes.jsonl')).lines).toBe(5);
    const m = JSON.parse(read(r.dir, 'manifest.json'));
    expect(m.sessions[0]).toMatchObject({ status: 'interrupted', stoppedBy: 'max-cost', written: 5 });
    expect(read(r.dir, 'summary.csv')).toContain(',20,5,5,0,');
    const resumed = await executeRun({ ...base(), resultsDir: path.join(dir, 'b') }, fakeDeps(), { ...io, budget: new Budget(1) });
    expect(resumed.status).toBe('complete');
    expect(read(resumed.dir, 'summary.csv')).toBe(read(full.dir, 'summary.csv'));
  });
});

describe('disk errors in a run', () => {
  it('a DiskError stops the run (no false error records), is rethrown and leaves the run resumable', async () => {
    const { io, lines } = quietIO();
    const full = new DiskError('/x/cache', 'ENOSPC', '/x/cache: writing failed (ENOSPC): no space left on the device');
    const deps = fakeDeps({ fail: (ex) => (ex.index === 17 ? full : undefined) });
    await expect(executeRun({ ...base() }, deps, io)).rejects.toBe(full);
    const [runDir] = fs.readdirSync(dir);
    const loaded = loadEpisodes(path.join(dir, runDir, 'episodes.jsonl'));
    expect(loaded.lines).toBe(2); // 3 and 10; 17 is not recorded as an error
    expect(lines.join('\n')).not.toMatch(/recorded as an error/);
    const r = await executeRun({ ...base() }, fakeDeps(), io); // the lock was released
    expect(r.status).toBe('complete');
  });

  it('a run that throws stops its progress display: off the shared signal, no redraw after, the last counts on a log', async () => {
    const full = () => new DiskError('/x/cache', 'ENOSPC', '/x/cache: writing failed (ENOSPC): no space left on the device');
    const ac = new AbortController();
    // On a terminal: the block's redraw timer would go on drawing over whatever is printed after.
    const drawn: string[] = [];
    const tty = { write: (s: string) => void drawn.push(s), isTTY: true, columns: 100, rows: 24 };
    const failAt17 = () => fakeDeps({ fail: (ex) => (ex.index === 17 ? full() : undefined) });
    await expect(executeRun({ ...base() }, failAt17(), { progress: tty, log: () => {}, signal: ac.signal })).rejects.toThrow(DiskError);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    const before = drawn.length;
    await new Promise((r) => setTimeout(r, 700)); // longer than the block's 500 ms redraw
    expect(drawn.length).toBe(before);
    // In a log: the counts at the stop are printed (3 and 10 recorded), and a later abort prints nothing more.
    const logged: string[] = [];
    const log = { write: (s: string) => void logged.push(s), isTTY: false };
    await expect(
      executeRun({ ...base(), resultsDir: path.join(dir, 'b') }, failAt17(), { progress: log, log: () => {}, signal: ac.signal }),
    ).rejects.toThrow(DiskError);
    expect(logged.at(-1)).toMatch(/^hotpotqa cot 2\/20 /);
    const n = logged.length;
    ac.abort();
    expect(logged.length).toBe(n);
  });
});

describe('the results folder', () => {
  it('a file, a path under a file, and /proc are one-line UserErrors, found without writing (and without hanging)', () => {
    const file = path.join(dir, 'f');
    fs.writeFileSync(file, 'x');
    expect(() => checkResultsDir({ resultsDir: file })).toThrow(
      new UserError(`--results-dir ${file}: this is a file, not a folder; choose a folder for the run folders`),
    );
    expect(() => checkResultsDir({ resultsDir: path.join(file, 'sub') })).toThrow(/is a file, not a folder/);
    if (fs.existsSync('/proc/1')) {
      expect(() => {
        checkResultsDir({ resultsDir: '/proc/1/x' });
        ensureResultsDir({ resultsDir: '/proc/1/x' });
      }).toThrow(/^--results-dir \/proc\/1\/x: /);
    }
    checkResultsDir({ resultsDir: path.join(dir, 'new', 'deeper') });
    expect(fs.existsSync(path.join(dir, 'new'))).toBe(false);
    ensureResultsDir({ resultsDir: path.join(dir, 'new', 'deeper') });
    expect(fs.statSync(path.join(dir, 'new', 'deeper')).isDirectory()).toBe(true);
  });

  it('an unwritable folder (a read-only mount; root ignores permission bits) is refused before the run starts', async (ctx) => {
    const ro = path.join(dir, 'ro');
    fs.mkdirSync(ro);
    let mounted = false;
    if (process.getuid?.() === 0) {
      try {
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=64k', 'tmpfs', ro], { stdio: 'ignore' });
        mounted = true;
      } catch {
        /* no mount permission in this container */
      }
    } else fs.chmodSync(ro, 0o555);
    if (!mounted && process.getuid?.() === 0) return ctx.skip('root without permission to mount a read-only tmpfs');
    try {
      const deps = fakeDeps();
      await expect(executeRun({ ...base(), resultsDir: path.join(ro, 'results') }, deps, quietIO().io)).rejects.toThrow(
        /^--results-dir .*\/ro\/results: cannot write there \(/,
      );
      expect(deps.models).toHaveLength(0); // refused before the model was created
    } finally {
      if (mounted) execFileSync('umount', [ro]);
      else fs.chmodSync(ro, 0o755);
    }
  });
});

describe('settings and secrets', () => {
  it('URL credentials never reach the recorded settings; a resume must give that flag again', () => {
    const rec = recordableSettings({ wikiUrl: 'http://user:s3cretKEY@wiki.test/w', baseUrl: ['http://a/v1'], resume: 'x', limit: 3 });
    expect(rec).toEqual({ wikiUrl: 'http://***@wiki.test/w', baseUrl: ['http://a/v1'], limit: 3 });
    expect(redactedSettingKeys(rec)).toEqual(['wikiUrl']);
  });

  it('a key in a URL query is recorded as ***, and a resume must give that flag again; other query parameters stay as given', () => {
    const given = {
      baseUrl: ['http://a/v1?api-version=2024-02-01&api-key=s3cretKEY', 'http://b/v1?api-version=2024-02-01'],
      envUrl: 'http://e:1/?Token=s3cretKEY,http://f:2',
      wikiUrl: 'https://wiki.test/w?api-version=2024-02-01&keyboard=1',
    };
    const rec = recordableSettings(given);
    expect(rec).toEqual({
      baseUrl: ['http://a/v1?api-version=2024-02-01&api-key=***', 'http://b/v1?api-version=2024-02-01'],
      envUrl: 'http://e:1/?Token=***,http://f:2',
      wikiUrl: 'https://wiki.test/w?api-version=2024-02-01&keyboard=1',
    });
    expect(redactedSettingKeys(rec)).toEqual(['baseUrl', 'envUrl']);
    // settings without a key are recorded byte for byte, as before
    const plain = { baseUrl: ['http://a/v1?api-version=2024-02-01'], wikiUrl: 'https://en.wikipedia.org', limit: 3 };
    expect(JSON.stringify(recordableSettings(plain))).toBe(JSON.stringify(plain));
    expect(redactedSettingKeys(recordableSettings(plain))).toEqual([]);
  });
});

describe('errors per cause and the progress line', () => {
  it('errorCauses: llm, env, internal in that order, each with its first message', () => {
    const e = (source: string, message: string) => ({ error: { source, message } });
    expect(errorCauses([e('internal', 'i1'), { error: null }, e('env', 'e1'), e('llm', 'l1'), e('env', 'e2')])).toEqual([
      { source: 'llm', count: 1, first: 'l1' },
      { source: 'env', count: 2, first: 'e1' },
      { source: 'internal', count: 1, first: 'i1' },
    ]);
  });

  it('shows errors by cause and retries as they happen, and the score rounded once (15/19 → 78.9)', () => {
    expect(errorsText(0, {})).toBe('errors 0');
    expect(errorsText(3, { env: 1, llm: 2 })).toBe('errors 3 (llm 2, env 1)');
    const state = {
      done: 22,
      total: 50,
      scored: 19,
      metricLabel: 'EM',
      metricValues: [...Array(15).fill(1), ...Array(4).fill(0)],
      errors: 3,
      errorsBySource: { llm: 3 },
      retries: 12,
      tokens: 1000,
      cost: 0,
    };
    expect(progressLine('run', state, 22, 44)).toBe('run 22/50 (44%) EM 78.9 errors 3 (llm 3) retries 12 tokens 1,000 elapsed 44s ETA 56s');
    const out: string[] = [];
    const p = new Progress(
      'run',
      { ...state, done: 0, scored: 0, metricValues: [], errors: 0, errorsBySource: {}, retries: 0 },
      { write: (s) => void out.push(s), isTTY: false },
    );
    p.retry(); // the first event of a quiet log prints at once
    expect(out.at(-1)).toMatch(/errors 0 retries 1 /);
    p.record({ error: { source: 'llm' }, metrics: { em: 0 }, usage: { total_tokens: 0 }, cost: 0 }, 'em');
    p.finish();
    expect(out.at(-1)).toMatch(/^run 1\/50 \(2%\) EM — errors 1 \(llm 1\) retries 1 /);
  });

  it("takes its listener off the invocation's signal when it finishes or stops (many runs share that signal)", () => {
    const ac = new AbortController();
    const quiet = { write: () => {}, isTTY: false };
    const state = {
      done: 0,
      total: 1,
      scored: 0,
      metricLabel: 'EM',
      metricValues: [],
      errors: 0,
      errorsBySource: {},
      retries: 0,
      tokens: 0,
      cost: 0,
    };
    const finished = new Progress('run', { ...state }, quiet, undefined, undefined, ac.signal);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    finished.finish();
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    const stopped = new Progress('run', { ...state }, quiet, undefined, undefined, ac.signal);
    stopped.stop();
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });
});
