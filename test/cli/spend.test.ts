// One meter, true to the bill (README "Reliability"): a priced run stopped twice at --max-cost and
// resumed, or killed with SIGKILL mid-run and resumed, reports as spent exactly what the server billed
// for the requests it answered, and each invocation's amount is in the manifest's sessions. Calls paid
// for by a stopped invocation and served from the cache on resume are not lost, nor counted twice.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer, type ServerCompletionRequest } from '../servers/openai-server.js';
import { cleanEnv, runCli, runDirs, startCli } from '../run/cli-helpers.js';

const PRICE = 100; // USD per 1M tokens, prompt and completion alike: the test tokenizer's prompts cost cents

/** Three ReAct turns per question (two searches, then finish), so a stop can fall mid-episode. */
function threeTurns(req: ServerCompletionRequest): string {
  const m = /Thought (\d+):$/.exec(req.prompt);
  const i = m ? Number(m[1]) : 1;
  return i < 3 ? ` I search.\nAction ${i}: Search[Scott Derrickson]\n` : ` So yes.\nAction ${i}: Finish[yes]\n`;
}

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spend-'));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

const billedUsd = (srv: OpenAIServer) => ((srv.billed.prompt_tokens + srv.billed.completion_tokens) * PRICE) / 1e6;
const csvRow = (dir: string): Record<string, string> => {
  const [head, row] = fs.readFileSync(path.join(dir, 'summary.csv'), 'utf8').trim().split('\n');
  const cols = head.split(',');
  const vals = row.split(',');
  return Object.fromEntries(cols.map((c, i) => [c, vals[i]]));
};
/** The objects of a JSONL text, one a line. */
const jsonLines = (text: string): any[] =>
  text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
const manifestOf = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));

function expectSpentEqualsBill(dir: string, srv: OpenAIServer, invocations: number): void {
  const m = manifestOf(dir);
  expect(m.sessions).toHaveLength(invocations);
  for (const s of m.sessions)
    expect(s.spent).toEqual(expect.objectContaining({ total_tokens: expect.any(Number), cost_usd: expect.any(Number) }));
  const tokens = m.sessions.reduce((a: number, s: any) => a + s.spent.total_tokens, 0);
  const prompt = m.sessions.reduce((a: number, s: any) => a + s.spent.prompt_tokens, 0);
  const calls = m.sessions.reduce((a: number, s: any) => a + s.spent.calls, 0);
  // Exactly what the server answered and billed: requests, prompt tokens, all tokens.
  expect(calls).toBe(srv.billed.requests);
  expect(prompt).toBe(srv.billed.prompt_tokens);
  expect(tokens).toBe(srv.billed.prompt_tokens + srv.billed.completion_tokens);
  const row = csvRow(dir);
  expect(Number(row.spent_tokens)).toBe(srv.billed.prompt_tokens + srv.billed.completion_tokens);
  expect(Number(row.spent_cost_usd)).toBe(Math.round(billedUsd(srv) * 1e6) / 1e6);
  const sessionsUsd = m.sessions.reduce((a: number, s: any) => a + s.spent.cost_usd, 0);
  expect(sessionsUsd).toBeCloseTo(billedUsd(srv), 9);
}

describe('spent = billed', () => {
  it('a priced 40-question run stopped twice at --max-cost, then resumed: spent is the bill, each invocation has its amount', async () => {
    const srv = await startOpenAIServer({ respond: threeTurns });
    try {
      const results = path.join(tmp, 'budget');
      const env = cleanEnv({}, path.join(tmp, 'budget-cache'));
      const args = [
        'run',
        '--task',
        'hotpotqa',
        '--method',
        'react',
        '--limit',
        '40',
        '--concurrency',
        '4',
        '--base-url',
        srv.baseURL,
        '--model',
        'test-model',
        '--price-prompt',
        String(PRICE),
        '--price-completion',
        String(PRICE),
        '--results-dir',
        results,
      ];
      const first = await runCli([...args, '--max-cost', '2'], { cwd: tmp, env });
      expect(first.code).toBe(4);
      const [dir] = runDirs(results);
      const runDir = path.join(results, dir);
      // The stop line shows what this command spent, not "tokens 0, cost $0.0000".
      const paid1 = manifestOf(runDir).sessions[0].spent;
      expect(paid1.cost_usd).toBeGreaterThan(1);
      expect(first.stdout).toContain(
        `this command spent ${paid1.total_tokens.toLocaleString('en-US')} tokens, $${paid1.cost_usd.toFixed(4)}`,
      );
      const second = await runCli([...args, '--resume', dir, '--max-cost', '2'], { cwd: tmp, env });
      expect(second.code).toBe(4);
      const third = await runCli([...args, '--resume', dir], { cwd: tmp, env });
      expect(third.code).toBe(0);
      const m = manifestOf(runDir);
      expect(m.sessions.map((s: any) => s.status)).toEqual(['interrupted', 'interrupted', 'complete']);
      for (const s of m.sessions.slice(0, 2)) expect(s.spent.cost_usd).toBeGreaterThan(1);
      expectSpentEqualsBill(runDir, srv, 3);
      // Re-run from the cache: it costs nothing, so a budget below one call's estimate lets it run whole.
      const requests = srv.billed.requests;
      const replay = await runCli([...args.slice(0, -1), path.join(tmp, 'budget-replay'), '--cache', 'replay', '--max-cost', '0.01'], {
        cwd: tmp,
        env,
      });
      expect(replay.code).toBe(0);
      expect(replay.stdout).toContain('this command spent 0 tokens, $0.0000');
      expect(srv.billed.requests).toBe(requests);
    } finally {
      await srv.close();
    }
  }, 180_000);

  it('--concurrency 8 under a small budget: calls wait for those in flight to settle, so the run spends close to the budget and never past it', async () => {
    const srv = await startOpenAIServer({ respond: threeTurns });
    try {
      const results = path.join(tmp, 'budget-wide');
      const budget = 1.5; // some eight calls' upper bounds: at --concurrency 8 those in flight could fill it
      const args = [
        'run',
        '--task',
        'hotpotqa',
        '--method',
        'react',
        '--limit',
        '40',
        '--concurrency',
        '8',
        '--base-url',
        srv.baseURL,
        '--model',
        'test-model',
        '--cache',
        'off',
        '--price-prompt',
        String(PRICE),
        '--price-completion',
        String(PRICE),
        '--results-dir',
        results,
        '--max-cost',
        String(budget),
      ];
      const r = await runCli(args, { cwd: tmp, env: cleanEnv() });
      expect(r.code, r.stderr).toBe(4);
      const spent = manifestOf(path.join(results, runDirs(results)[0])).sessions[0].spent.cost_usd;
      expect(spent).toBeCloseTo(billedUsd(srv), 9);
      // The call refused could not fit even with nothing else in flight: what was spent leaves less than it.
      const refused = /the next call \(up to \$([0-9.]+)\) could pass it/.exec(r.stderr);
      expect(refused, r.stderr).not.toBeNull();
      const upperBound = Number(refused![1]);
      expect(upperBound).toBeLessThan(budget / 4);
      expect(spent).toBeLessThanOrEqual(budget);
      expect(spent).toBeGreaterThanOrEqual(budget - upperBound - 0.00005); // the bound as printed, to four decimals
      // So was what had been spent when it stopped (as printed: to a cent above a dollar).
      const atStop = /: \$([0-9.,]+) spent by this command when it stopped/.exec(r.stderr);
      expect(atStop, r.stderr).not.toBeNull();
      expect(Number(atStop![1])).toBeGreaterThanOrEqual(budget - upperBound - 0.005);
    } finally {
      await srv.close();
    }
  }, 180_000);

  it('kill -9 mid-run, then resumed: the calls answered before the kill count as spent, the bill is matched exactly', async () => {
    let completions = 0;
    let onHeld: () => void = () => {};
    const heldNow = new Promise<void>((r) => (onHeld = r));
    const srv = await startOpenAIServer({
      respond: threeTurns,
      // The 20th completion request is held (never answered while the CLI lives): the kill lands
      // with every earlier answer already received, and no answer on the wire.
      fault: (req) => {
        if (!req.path.endsWith('/completions') || ++completions !== 20) return undefined;
        onHeld();
        return { kind: 'delay', ms: 60_000 };
      },
    });
    try {
      const results = path.join(tmp, 'kill');
      const env = cleanEnv({}, path.join(tmp, 'kill-cache'));
      const args = [
        'run',
        '--task',
        'hotpotqa',
        '--method',
        'react',
        '--limit',
        '12',
        '--concurrency',
        '1',
        '--base-url',
        srv.baseURL,
        '--model',
        'test-model',
        '--price-prompt',
        String(PRICE),
        '--price-completion',
        String(PRICE),
        '--results-dir',
        results,
      ];
      const { child, done } = startCli(args, { cwd: tmp, env });
      await heldNow;
      child.kill('SIGKILL');
      expect((await done).signal).toBe('SIGKILL');
      expect(srv.billed.requests).toBe(19);
      const [dir] = runDirs(results);
      const resumed = await runCli([...args, '--resume', dir], { cwd: tmp, env });
      expect(resumed.code).toBe(0);
      const m = manifestOf(path.join(results, dir));
      expect(m.sessions[0].spent.calls).toBe(19); // read back from the recording
      // The killed session is closed by the resume: it no longer says "running".
      expect(m.sessions.map((s: any) => [s.status, s.stoppedBy])).toEqual([
        ['interrupted', 'process gone'],
        ['complete', undefined],
      ]);
      expectSpentEqualsBill(path.join(results, dir), srv, 2);
    } finally {
      await srv.close();
    }
  }, 180_000);

  it('a server that reports no usage: its calls are counted as of unknown billing, and --max-cost holds at their estimates', async () => {
    const srv = await startOpenAIServer({ respond: threeTurns, usage: false });
    try {
      const results = path.join(tmp, 'nousage');
      const env = cleanEnv({}, path.join(tmp, 'nousage-cache'));
      const args = ['run', '--task', 'hotpotqa', '--method', 'react', '--limit', '10', '--concurrency', '1', '--base-url', srv.baseURL];
      const priced = [
        '--model',
        'test-model',
        '--price-prompt',
        String(PRICE),
        '--price-completion',
        String(PRICE),
        '--results-dir',
        results,
      ];
      const stopped = await runCli([...args, ...priced, '--max-cost', '1'], { cwd: tmp, env });
      expect(stopped.code).toBe(4);
      const [dir] = runDirs(results);
      const m = manifestOf(path.join(results, dir));
      expect(m.sessions[0].spent).toMatchObject({ calls: 0, total_tokens: 0, paid_unknown_calls: srv.billed.requests });
      expect(csvRow(path.join(results, dir)).paid_unknown_calls).toBe(String(srv.billed.requests));
      expect(srv.billed.requests).toBeGreaterThan(0);
      // Each call was admitted at its upper-bound estimate ($0.01–$0.02 at these prices), kept for good.
      expect(srv.billed.requests).toBeLessThan(100);
      expect(stopped.stdout).toContain(`(+${srv.billed.requests} calls of unknown billing: answered without usage or cut off in flight)`);
      expect(stopped.stdout + stopped.stderr).toContain('for calls answered without usage');
      // Nothing was counted, so no figure is the bill: never "$0.0000" (src/run/meter.ts costStanding).
      const calls = srv.billed.requests;
      // (The recorded episodes' calls, then every call this command paid for.)
      expect(stopped.stdout).toMatch(
        new RegExp(
          `tokens unknown, cost unknown \\(\\+\\d+ calls? answered without usage, not counted\\); this command spent an unknown number of tokens, cost unknown \\(\\+${calls} calls of unknown billing`,
        ),
      );
      expect(stopped.stderr).toMatch(
        /: an unknown amount spent by this command when it stopped \(up to \$[0-9.]+ for calls answered without usage\)/,
      );
      expect(stopped.stderr).toContain(`this command spent an unknown amount in all (+${calls} calls of unknown billing)`);
      expect(stopped.stdout + stopped.stderr).not.toContain('$0.0000');
      expect(csvRow(path.join(results, dir))).toMatchObject({ cost_usd: '', spent_cost_usd: '' });
      // The report's Runs table gives the count in its own column, in every format (the CSV here).
      const report = await runCli(['report', results, '--format', 'csv'], { cwd: tmp, env });
      expect(report.code, report.stderr).toBe(0);
      expect(report.stdout).toContain(`,ours,Calls of unknown billing,${srv.billed.requests},,,${dir}`);
      expect(report.stdout).toContain(`,ours,Cost USD (total),unknown,,,${dir}`);
      expect(report.stdout).toContain(`,ours,Cost USD (spent),unknown,,,${dir}`);
    } finally {
      await srv.close();
    }
  }, 60_000);

  it('answers without usage: each record counts the calls its tokens leave out, and so does a re-run from the cache', async () => {
    const srv = await startOpenAIServer({ respond: threeTurns, usage: false });
    try {
      const env = cleanEnv({}, path.join(tmp, 'nousage-total-cache'));
      const args = ['run', '--task', 'hotpotqa', '--method', 'react', '--limit', '3', '--base-url', srv.baseURL, '--model', 'test-model'];
      const first = path.join(tmp, 'nousage-total');
      const made = await runCli([...args, '--results-dir', first], { cwd: tmp, env });
      expect(made.code, made.stderr).toBe(0);
      const calls = srv.billed.requests;
      expect(calls).toBeGreaterThan(3);
      const recordsOf = (results: string) => jsonLines(fs.readFileSync(path.join(results, runDirs(results)[0], 'episodes.jsonl'), 'utf8'));
      const check = (results: string, out: string) => {
        const recs = recordsOf(results);
        // Every call of every episode was answered without usage: the record says how many its 0 tokens leave out.
        expect(recs.map((r) => r.usage_unknown_calls)).toEqual(recs.map((r) => r.n_calls));
        expect(recs.every((r) => r.usage.total_tokens === 0)).toBe(true);
        expect(csvRow(path.join(results, runDirs(results)[0])).usage_unknown_calls).toBe(String(calls));
        expect(out).toContain(
          `tokens unknown, cost unknown (no price for this model: give --price-prompt and --price-completion) (+${calls} calls answered without usage, not counted)`,
        );
      };
      check(first, made.stdout);
      // From the cache (no request): the same records, so the same count, not a silent 0.
      const again = path.join(tmp, 'nousage-total-replay');
      const replay = await runCli([...args, '--results-dir', again, '--cache', 'replay'], { cwd: tmp, env });
      expect(replay.code, replay.stderr).toBe(0);
      expect(srv.billed.requests).toBe(calls);
      check(again, replay.stdout);
      // Bundled and re-run offline, those cache hits come back as they were: identical records.
      const file = path.join(tmp, 'nousage-total.tar.gz');
      const bundled = await runCli(['bundle', path.join(again, runDirs(again)[0]), '--out', file], { cwd: tmp, env });
      expect(bundled.code, bundled.stderr).toBe(0);
      const offline = path.join(tmp, 'nousage-total-offline');
      const fromBundle = await runCli(['run', '--from-bundle', file, '--results-dir', offline], { cwd: tmp, env });
      expect(fromBundle.code, fromBundle.stderr).toBe(0);
      expect(recordsOf(offline).map((r) => r.usage_unknown_calls)).toEqual(recordsOf(again).map((r) => r.usage_unknown_calls));
      const exported = await runCli(['export', again, '--format', 'jsonl'], { cwd: tmp, env });
      expect(exported.code, exported.stderr).toBe(0);
      const rows = jsonLines(exported.stdout);
      expect(rows.reduce((a, r) => a + r.usage_unknown_calls, 0)).toBe(calls);
      const report = await runCli(['report', again, '--format', 'csv'], { cwd: tmp, env });
      expect(report.code, report.stderr).toBe(0);
      expect(report.stdout).toContain(`,ours,Calls without usage,${calls},,,${runDirs(again)[0]}`);
    } finally {
      await srv.close();
    }
  }, 60_000);

  it('a model with no known price: summary.csv leaves its cost blank, never $0', async () => {
    const srv = await startOpenAIServer({ respond: threeTurns });
    try {
      const results = path.join(tmp, 'unpriced');
      const env = cleanEnv({}, path.join(tmp, 'unpriced-cache'));
      const args = ['run', '--task', 'hotpotqa', '--method', 'react', '--limit', '2', '--base-url', srv.baseURL, '--model', 'test-model'];
      const res = await runCli([...args, '--results-dir', results], { cwd: tmp, env });
      expect(res.code).toBe(0);
      expect(res.stdout).toContain('cost unknown');
      const row = csvRow(path.join(results, runDirs(results)[0]));
      expect(row).toMatchObject({ cost_usd: '', spent_cost_usd: '' });
      expect(Number(row.spent_tokens)).toBe(srv.billed.prompt_tokens + srv.billed.completion_tokens);
      // The episodes exported flat: tokens, and cost null (not 0).
      const exported = await runCli(['export', results, '--format', 'jsonl'], { cwd: tmp, env });
      expect(exported.code, exported.stderr).toBe(0);
      const rows = jsonLines(exported.stdout);
      expect(rows.map((r) => [r.cost, r.spent_cost, r.total_tokens > 0])).toEqual([
        [null, null, true],
        [null, null, true],
      ]);
      // A combination of its runs says the same on its result line.
      const combined = await runCli([...args.slice(0, 4), 'react-cot-sc', ...args.slice(5), '--results-dir', results], { cwd: tmp, env });
      expect(combined.code, combined.stderr).toBe(0);
      const line = combined.stdout.split('\n').find((l) => l.includes('-react-cot-sc-'))!;
      // its base runs' model had no price: the combination names them (its own command takes no prices)
      expect(line).toContain('cost unknown (a base run has no known price)');
      expect(line).not.toContain('$0.0000');
    } finally {
      await srv.close();
    }
  }, 60_000);

  it('a resume keeps --max-consecutive-failures', async () => {
    const srv = await startOpenAIServer({ respond: threeTurns });
    try {
      const results = path.join(tmp, 'mcf');
      const env = cleanEnv({}, path.join(tmp, 'mcf-cache'));
      const args = [
        'run',
        '--task',
        'hotpotqa',
        '--method',
        'react',
        '--limit',
        '2',
        '--concurrency',
        '1',
        '--base-url',
        srv.baseURL,
        '--model',
        'test-model',
        '--results-dir',
        results,
      ];
      expect((await runCli([...args, '--max-consecutive-failures', '7'], { cwd: tmp, env })).code).toBe(0);
      const [dir] = runDirs(results);
      expect((await runCli([...args, '--resume', dir], { cwd: tmp, env })).code).toBe(0);
      expect(manifestOf(path.join(results, dir)).sessions.map((s: any) => s.maxConsecutiveFailures)).toEqual([7, 7]);
    } finally {
      await srv.close();
    }
  }, 60_000);

  it('a model with no known price shows its cost as unknown, never $0.0000', async () => {
    const srv = await startOpenAIServer({ respond: threeTurns });
    try {
      const results = path.join(tmp, 'unpriced');
      const r = await runCli(
        [
          'run',
          '--task',
          'hotpotqa',
          '--method',
          'react',
          '--limit',
          '1',
          '--base-url',
          srv.baseURL,
          '--model',
          'test-model',
          '--results-dir',
          results,
        ],
        { cwd: tmp, env: cleanEnv({}, path.join(tmp, 'unpriced-cache')) },
      );
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('cost unknown (no price for this model');
      expect(r.stdout).not.toContain('$0.0000');
    } finally {
      await srv.close();
    }
  }, 60_000);
});

describe('a run priced in one session and not in another', () => {
  // Question 2's first request is dropped in the first session (no retries): an error episode, re-run
  // by the second session with --retry-errors, which has the other price status.
  const secondQuestion = 'Hardley Flood is an area of lagoons'; // offline500's second question
  async function twoSessions(name: string, first: string[], second: string[]) {
    let drop = true;
    const srv = await startOpenAIServer({
      respond: threeTurns,
      fault: (r) => (drop && String(r.body?.prompt ?? '').includes(secondQuestion) ? { kind: 'drop' } : undefined),
    });
    try {
      const results = path.join(tmp, name);
      const env = cleanEnv({}, path.join(tmp, `${name}-cache`));
      const args = ['run', '--task', 'hotpotqa', '--method', 'react', '--limit', '2', '--max-retries', '0', '--base-url', srv.baseURL];
      const one = await runCli([...args, '--model', 'test-model', ...first, '--results-dir', results], { cwd: tmp, env });
      expect(one.code, one.stderr).toBe(3); // finished with error episodes
      const [id] = runDirs(results);
      const dir = path.join(results, id);
      expect(fs.readFileSync(path.join(dir, 'episodes.jsonl'), 'utf8')).toContain('"error":{');
      drop = false;
      const two = await runCli(['run', '--resume', id, '--results-dir', results, '--retry-errors', '--base-url', srv.baseURL, ...second], {
        cwd: tmp,
        env,
      });
      expect(two.code, two.stderr).toBe(0);
      const exported = await runCli(['export', dir, '--format', 'jsonl'], { cwd: tmp, env });
      expect(exported.code, exported.stderr).toBe(0);
      return { dir, line: two.stdout.split('\n').find((l) => l.startsWith(id))!, rows: jsonLines(exported.stdout) };
    } finally {
      await srv.close();
    }
  }
  const prices = ['--price-prompt', String(PRICE), '--price-completion', String(PRICE)];

  it('prices added on resume: the run cost stays unknown (never the priced part alone); each episode says which it is', async () => {
    const { dir, line, rows } = await twoSessions('priced-later', [], prices);
    expect(manifestOf(dir).sessions.map((s: any) => s.price)).toEqual(['unknown', 'known']);
    expect(csvRow(dir)).toMatchObject({ cost_usd: '', spent_cost_usd: '' });
    expect(line).toContain('cost unknown (some of its episodes were run with no known price)');
    expect(line).not.toMatch(/cost \$/);
    // The first episode was metered without a price, the second at PRICE.
    expect(rows.map((r) => r.cost === null)).toEqual([true, false]);
    expect(rows[1].cost).toBeGreaterThan(0);
  }, 60_000);

  it('prices given to the first session only: the resume keeps them, and the cost is known and whole', async () => {
    const { dir, line, rows } = await twoSessions('priced-first', prices, []);
    expect(manifestOf(dir).sessions.map((s: any) => s.price)).toEqual(['known', 'known']);
    const cost = Number(csvRow(dir).cost_usd);
    expect(cost).toBeGreaterThan(0);
    expect(rows.every((r) => r.cost > 0)).toBe(true);
    expect(cost).toBeCloseTo(rows[0].cost + rows[1].cost, 6);
    expect(line).toMatch(/cost \$/);
  }, 60_000);
});
