// Model limits are outcomes, not outages: behind a stand-in that refuses prompts longer than its window
// the way each server family does (status and body from their code), `run --task hotpotqa --method
// react --limit 20` on the offline Wikipedia scores every episode, marks and counts the ones that
// outgrew the window, exits 0 and reports EM over all 20; --context-overflow truncate is a recorded
// deviation; a server that cuts prompts silently is detected from the usage it reports.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type ContextFamily, type ServerCompletionRequest } from '../servers/openai-server.js';
import { cleanEnv, readLines, runCli, runDirs } from '../run/cli-helpers.js';
import { limitRespond } from './context-helpers.js';

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-context-'));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

// With the test tokenizer the first turns' prompts count 1,027-1,064 tokens and the second turns'
// 1,046-1,069 after a one-line observation and 1,083-1,104 after Scott Derrickson's page. So a window
// of 1,175 (prompt + max_tokens 100 must fit: OpenAI, vLLM, TGI) or 1,080 (prompt alone: llama.cpp,
// Ollama) overflows exactly the second turns that read the long page.
const WINDOWS: Record<Exclude<ContextFamily, 'ollama-truncate'>, number> = {
  openai: 1175,
  vllm: 1175,
  tgi: 1175,
  'llama.cpp': 1080,
  ollama: 1080,
};
const NAMES_WINDOW: Record<string, boolean> = { openai: true, vllm: true, tgi: true, 'llama.cpp': true, ollama: false };

async function runWith(family: ContextFamily, window: number, name: string, extra: string[] = []) {
  const srv = await startOpenAIServer({ respond: limitRespond, contextWindow: { tokens: window, family } });
  try {
    const results = path.join(tmp, name);
    const r = await runCli(
      [
        'run',
        '--task',
        'hotpotqa',
        '--method',
        'react',
        '--limit',
        '20',
        '--base-url',
        srv.baseURL,
        '--model',
        'test-model',
        '--cache',
        'off',
        '--results-dir',
        results,
        ...extra,
      ],
      { cwd: tmp, env: cleanEnv() },
    );
    const [dir] = runDirs(results);
    const runDir = path.join(results, dir);
    return {
      r,
      runDir,
      records: readLines(path.join(runDir, 'episodes.jsonl')),
      manifest: JSON.parse(fs.readFileSync(path.join(runDir, 'manifest.json'), 'utf8')),
      summary: fs.readFileSync(path.join(runDir, 'summary.csv'), 'utf8'),
    };
  } finally {
    await srv.close();
  }
}

describe('a prompt that outgrows the context window ends its episode as a scored failure', () => {
  for (const family of Object.keys(WINDOWS) as (keyof typeof WINDOWS)[]) {
    it(`${family}: every episode scored, the overflowed ones marked and counted, exit 0, EM over all 20`, async () => {
      const window = WINDOWS[family];
      const { r, records, manifest, summary } = await runWith(family, window, family);
      expect(r.stderr).not.toMatch(/internal error|recorded as errors|--retry-errors/);
      expect(r.code).toBe(0);
      expect(records).toHaveLength(20);
      expect(records.every((x) => x.error === null)).toBe(true);
      const long = records.filter((x) => x.steps[0]?.action === 'Search[Scott Derrickson]');
      const over = records.filter((x) => x.outcome === 'context_exceeded');
      expect(over.length).toBeGreaterThan(0);
      expect(over.length).toBeLessThan(20);
      // Every episode whose second turn carried the long page (and one with a very long question).
      for (const x of long) expect(over).toContain(x);
      for (const x of records.filter((y) => !over.includes(y)))
        expect(x.steps.map((s: { action: string }) => s.action).at(-1)).toBe('Finish[yes]');
      for (const x of over) {
        expect(x.outcome_step).toBe(2);
        expect(x.steps).toHaveLength(1);
        expect(x.answer).toBeNull();
        expect(x.metrics).toEqual({ em: 0, f1: 0 });
        expect(x.outcome_detail.server).toBe(family);
        if (NAMES_WINDOW[family]) expect(x.outcome_detail.window).toBe(window);
        // The traj is the notebook's prompt up to the turn that did not fit.
        expect(x.traj).toContain('Observation 1: ');
      }
      // EM over all 20 items, the overflowed ones scoring 0.
      const em = records.reduce((a, x) => a + x.metrics.em, 0);
      expect(summary).toMatch(new RegExp(`,20,20,20,0,${((em / 20) * 100).toFixed(1)},`));
      expect(r.stdout).toMatch(new RegExp(`20/20 episodes, EM ${((em / 20) * 100).toFixed(1)}, .*errors 0`));
      const windowWords = NAMES_WINDOW[family]
        ? `the model's ${window.toLocaleString('en-US')}-token window`
        : "the model's context window";
      expect(r.stderr).toContain(`${over.length} of 20 episodes outgrew ${windowWords}`);
      expect(manifest.limits).toMatchObject({ context_exceeded: over.length });
      expect(manifest.sessions.at(-1).status).toBe('complete');
      // summary.csv counts them.
      const [head, row] = summary
        .trim()
        .split('\n')
        .map((l) => l.split(','));
      expect(row[head.indexOf('n_context_exceeded')]).toBe(String(over.length));
      if (family === 'vllm') {
        // Every report table says it in its notes; the trajectory browser can filter those episodes.
        const md = await runCli(['report', path.join(tmp, family)], { cwd: tmp });
        expect(md.code, md.stderr).toBe(0);
        const note = `HotpotQA ReAct (${manifest.runId}): ${over.length} of 20 episodes outgrew ${windowWords}`;
        const tablesWithNote = md.stdout.split(/\n#+ /).filter((sec) => sec.includes(note));
        expect(tablesWithNote.length).toBeGreaterThanOrEqual(2); // Table 1 and the Runs table at least
        expect(md.stdout).toMatch(/^#+ Runs[\s\S]*outgrew/m);
        const html = await runCli(['report', path.join(tmp, family), '--format', 'html'], { cwd: tmp });
        expect(html.code, html.stderr).toBe(0);
        expect(html.stdout).toContain('"context_exceeded"');
        expect(html.stdout).toContain(`(${manifest.runId}): ${over.length} of 20 episodes outgrew the model`);
        // The report's CSV carries the count too, in the Runs table's own column.
        const csv = await runCli(['report', path.join(tmp, family), '--format', 'csv'], { cwd: tmp });
        expect(csv.code, csv.stderr).toBe(0);
        expect(csv.stdout).toContain(`runs,Runs,HotpotQA ReAct,ours,Over the window,${over.length},,,${manifest.runId}`);
      }
    }, 120_000);
  }

  it('--context-overflow truncate: the oldest turns are left out and the run records the deviation', async () => {
    const { r, records, manifest, runDir } = await runWith('vllm', 1175, 'truncate', ['--context-overflow', 'truncate']);
    expect(r.code).toBe(0);
    expect(records.every((x) => x.error === null && x.outcome === undefined)).toBe(true);
    const cut = records.filter((x) => x.steps.some((s: { turnsDropped?: number }) => s.turnsDropped));
    expect(cut.length).toBeGreaterThan(0);
    for (const x of cut) expect(x.steps[1]).toMatchObject({ step: 2, turnsDropped: 1, action: 'Finish[yes]' });
    expect(manifest.fidelity.contextOverflow).toMatchObject({ mode: 'truncate', deviation: expect.stringMatching(/oldest turns/) });
    expect(manifest.identity.contextOverflow).toBe('truncate');
    expect(path.basename(runDir)).toMatch(/^hotpotqa-react-/);
    expect(manifest.limits.context_truncated_episodes).toBe(cut.length);
    expect(r.stderr).toContain(`${cut.length} of 20 episodes went on with their oldest turns left out`);
  }, 120_000);

  it('a server that cuts prompts silently (Ollama with context shift) is named in the closing lines and the manifest', async () => {
    const { r, records, manifest } = await runWith('ollama-truncate', 700, 'silent');
    expect(r.code).toBe(0);
    expect(records.every((x) => x.error === null && x.silent_truncation)).toBe(true);
    expect(manifest.limits.silent_truncation_episodes).toBe(20);
    expect(r.stderr).toMatch(/20 of 20 episodes had prompts the server appears to have cut without refusing them/);
  }, 120_000);
});

describe('--dry-run reads the context window and says how many first prompts already do not fit', () => {
  it('vLLM: GET /v1/models max_model_len', async () => {
    // The dry run estimates chars/4: the 20 first prompts come to 1,719-1,767 tokens with max_tokens 100.
    const srv = await startOpenAIServer({ respond: limitRespond, contextWindow: { tokens: 1730, family: 'vllm' } });
    try {
      const r = await runCli(
        [
          'run',
          '--task',
          'hotpotqa',
          '--method',
          'react',
          '--limit',
          '20',
          '--base-url',
          srv.baseURL,
          '--model',
          'test-model',
          '--results-dir',
          path.join(tmp, 'dry'),
          '--dry-run',
        ],
        { cwd: tmp, env: cleanEnv({}, path.join(tmp, 'dry-cache')) },
      );
      expect(r.code).toBe(0);
      expect(srv.completionRequests()).toHaveLength(0);
      const m =
        /^ {2}context window: 1,730 tokens \(127\.0\.0\.1:\d+ GET \/v1\/models max_model_len\); (\d+) of 20 first prompts already do not fit/m.exec(
          r.stdout,
        );
      expect(m, r.stdout).not.toBeNull();
      expect(Number(m![1])).toBeGreaterThan(0);
      expect(Number(m![1])).toBeLessThan(20);
    } finally {
      await srv.close();
    }
  }, 60_000);

  it('llama.cpp server: GET /props default_generation_settings.n_ctx; a large window fits every first prompt', async () => {
    const srv = await startOpenAIServer({ respond: limitRespond, contextWindow: { tokens: 4096, family: 'llama.cpp' } });
    try {
      const r = await runCli(
        [
          'run',
          '--task',
          'hotpotqa',
          '--method',
          'react',
          '--limit',
          '5',
          '--base-url',
          srv.baseURL,
          '--model',
          'test-model',
          '--results-dir',
          path.join(tmp, 'dry2'),
          '--dry-run',
        ],
        { cwd: tmp, env: cleanEnv({}, path.join(tmp, 'dry-cache')) },
      );
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(
        /^ {2}context window: 4,096 tokens \(127\.0\.0\.1:\d+ GET \/props default_generation_settings\.n_ctx\); every first prompt fits/m,
      );
      expect(srv.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /v1/models', 'GET /props']);
    } finally {
      await srv.close();
    }
  }, 60_000);
});

describe('a combination whose answer came from an episode that outgrew the window', () => {
  it('counts it as its own outcome: CoT-SC→ReAct backing off to a ReAct episode that outgrew the window', async () => {
    // CoT-SC's three samples disagree on every question (no majority), so CoT-SC→ReAct takes ReAct's
    // answer everywhere; ReAct outgrows the window on the questions that read the long page.
    const respond = (req: ServerCompletionRequest, sample: number) =>
      req.prompt.endsWith('Thought:')
        ? ` Let's think.\nAnswer: ${['red', 'green', 'blue'][sample % 3]}\nQuestion: next`
        : limitRespond(req);
    const srv = await startOpenAIServer({ respond, contextWindow: { tokens: WINDOWS.vllm, family: 'vllm' } });
    try {
      const results = path.join(tmp, 'combination');
      const args = ['run', '--task', 'hotpotqa', '--limit', '10', '--samples', '3', '--base-url', srv.baseURL, '--model', 'test-model'];
      const run = (method: string) =>
        runCli([...args, '--method', method, '--cache', 'off', '--results-dir', results], { cwd: tmp, env: cleanEnv() });
      const r = await run('cot-sc-react');
      expect(r.code, r.stderr).toBe(0);
      // Its base runs' displays say what they are run for.
      expect(r.stderr).toMatch(/^base of hotpotqa cot-sc-react: hotpotqa-cot-sc-offline500-/m);
      expect(r.stderr).toMatch(/^base of hotpotqa cot-sc-react: hotpotqa-react-offline500-/m);
      const byMethod = (m: string) => {
        const dir = runDirs(results).find((d) => JSON.parse(fs.readFileSync(path.join(results, d, 'manifest.json'), 'utf8')).method === m)!;
        return { dir, records: readLines(path.join(results, dir, 'episodes.jsonl')) };
      };
      const react = byMethod('react');
      const over = react.records.filter((x) => x.outcome === 'context_exceeded').map((x) => x.idx);
      expect(over.length).toBeGreaterThan(0);
      expect(over.length).toBeLessThan(10);
      const combined = byMethod('cot-sc-react');
      for (const x of combined.records) {
        expect(x.answer_from).toBe('react');
        expect(x.outcome === 'context_exceeded').toBe(over.includes(x.idx));
      }
      // Its own last line and manifest say it, under its own run id (the ReAct run's line says it of that run).
      expect(r.stderr).toContain(
        `${combined.dir}: ${over.length} of 10 episodes outgrew the model's ${WINDOWS.vllm.toLocaleString('en-US')}-token window`,
      );
      const manifest = JSON.parse(fs.readFileSync(path.join(results, combined.dir, 'manifest.json'), 'utf8'));
      expect(manifest.limits.context_exceeded).toBe(over.length);
      const summary = fs
        .readFileSync(path.join(results, combined.dir, 'summary.csv'), 'utf8')
        .trim()
        .split('\n');
      const col = summary[0].split(',').indexOf('n_context_exceeded');
      expect(summary[1].split(',')[col]).toBe(String(over.length));
      // ReAct→CoT-SC: ReAct answered where it fit; where it did not, CoT-SC's first sample answers, within the window.
      const r2 = await run('react-cot-sc');
      expect(r2.code, r2.stderr).toBe(0);
      const other = byMethod('react-cot-sc');
      for (const x of other.records) expect(x.outcome).toBeUndefined();
    } finally {
      await srv.close();
    }
  }, 120_000);
});

describe('the single-call methods (Standard, CoT, CoT-SC) and max_tokens', () => {
  for (const method of ['standard', 'cot-sc']) {
    it(`${method}: a first prompt over the window ends the episode at once, scored 0 and marked, exit 0`, async () => {
      const srv = await startOpenAIServer({ respond: limitRespond, contextWindow: { tokens: 120, family: 'vllm' } });
      try {
        const results = path.join(tmp, `single-${method}`);
        const r = await runCli(
          [
            'run',
            '--task',
            'hotpotqa',
            '--method',
            method,
            '--limit',
            '5',
            '--samples',
            '3',
            '--base-url',
            srv.baseURL,
            '--model',
            'test-model',
            '--cache',
            'off',
            '--results-dir',
            results,
            '--max-consecutive-failures',
            '2',
          ],
          { cwd: tmp, env: cleanEnv() },
        );
        expect(r.code, r.stderr).toBe(0);
        const [dir] = runDirs(results);
        const records = readLines(path.join(results, dir, 'episodes.jsonl'));
        expect(records).toHaveLength(5);
        for (const x of records) {
          expect(x).toMatchObject({
            error: null,
            answer: null,
            outcome: 'context_exceeded',
            outcome_step: null,
            metrics: { em: 0, f1: 0 },
            n_calls: 1,
          });
          expect(x.outcome_detail).toMatchObject({ server: 'vllm', window: 120 });
        }
        expect(r.stdout).toMatch(/5\/5 episodes, EM 0\.0, F1 0\.0, errors 0/);
        expect(r.stderr).toContain("5 of 5 episodes outgrew the model's 120-token window");
        // Not errors: the breaker (2 in a row) never tripped, and --retry-errors has nothing to re-run.
        const calls = srv.completionRequests().length;
        const again = await runCli(
          ['run', '--resume', dir, '--retry-errors', '--base-url', srv.baseURL, '--cache', 'off', '--results-dir', results],
          { cwd: tmp, env: cleanEnv() },
        );
        expect(again.code, again.stderr).toBe(0);
        expect(srv.completionRequests()).toHaveLength(calls);
        expect(again.stderr).not.toMatch(/recorded as errors/);
        // The resumed run's progress line counts the outcomes it starts from, as its score does.
        expect(again.stderr).toMatch(/ 5\/5 \(100%\) EM 0\.0 errors 0 retries 0 context exceeded 5 /);
      } finally {
        await srv.close();
      }
    }, 60_000);
  }

  it('a completion that stops on max_tokens is recorded on its step and counted', async () => {
    const respond = (req: { prompt: string }) =>
      req.prompt.endsWith('Thought 1:') ? ` ${'long '.repeat(150)}` : req.prompt.endsWith('Action 1:') ? ' Finish[yes]\n' : ' yes';
    const srv = await startOpenAIServer({ respond });
    try {
      const results = path.join(tmp, 'maxtok');
      const r = await runCli(
        [
          'run',
          '--task',
          'hotpotqa',
          '--method',
          'react',
          '--limit',
          '3',
          '--base-url',
          srv.baseURL,
          '--model',
          'test-model',
          '--cache',
          'off',
          '--results-dir',
          results,
        ],
        { cwd: tmp, env: cleanEnv() },
      );
      expect(r.code, r.stderr).toBe(0);
      const [dir] = runDirs(results);
      const records = readLines(path.join(results, dir, 'episodes.jsonl'));
      for (const x of records) {
        expect(x.max_tokens_stops).toBe(1);
        expect(x.steps[0]).toMatchObject({ step: 1, badcall: true, maxTokensStop: true, action: 'Finish[yes]' });
      }
      expect(r.stderr).toContain('3 completions in 3 of 3 episodes stopped at max_tokens (finish_reason length)');
      const manifest = JSON.parse(fs.readFileSync(path.join(results, dir, 'manifest.json'), 'utf8'));
      expect(manifest.limits).toMatchObject({ max_tokens_episodes: 3, max_tokens_stops: 3, context_exceeded: 0 });
    } finally {
      await srv.close();
    }
  }, 60_000);
});

describe('a run with context_exceeded episodes bundles and replays', () => {
  it('run --from-bundle re-runs it with no server, the outcomes identical', async () => {
    const { r, runDir, records } = await runWith('llama.cpp', 1080, 'bundled');
    expect(r.code).toBe(0);
    expect(records.some((x) => x.outcome === 'context_exceeded')).toBe(true);
    const bundle = path.join(tmp, 'limits.tar.gz');
    const b = await runCli(['bundle', runDir, '--out', bundle], { cwd: tmp, env: cleanEnv() });
    expect(b.code, b.stderr).toBe(0);
    const rerun = path.join(tmp, 'rerun');
    const again = await runCli(['run', '--from-bundle', bundle, '--results-dir', rerun], {
      cwd: tmp,
      env: cleanEnv({}, path.join(tmp, 'no-cache')),
    });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('identical to the bundle');
    const [dir] = runDirs(rerun);
    const replayed = readLines(path.join(rerun, dir, 'episodes.jsonl'));
    const strip = (x: Record<string, unknown>) => {
      const { latency_ms: _l, ...rest } = x;
      return rest;
    };
    expect(replayed.map(strip).sort((a, b) => Number(a.idx) - Number(b.idx))).toEqual(
      records.map(strip).sort((a, b) => Number(a.idx) - Number(b.idx)),
    );
  }, 120_000);
});

describe('a merge of shards that reached the window', () => {
  it('counts its own limit outcomes and spends what its shards were billed', async () => {
    const srv = await startOpenAIServer({ respond: limitRespond, contextWindow: { tokens: WINDOWS.vllm, family: 'vllm' } });
    const results = path.join(tmp, 'shards');
    try {
      for (const shard of ['1/2', '2/2']) {
        const r = await runCli(
          [
            'run',
            '--task',
            'hotpotqa',
            '--method',
            'react',
            '--limit',
            '20',
            '--shard',
            shard,
            '--base-url',
            srv.baseURL,
            '--model',
            'test-model',
            '--cache',
            'off',
            '--results-dir',
            results,
          ],
          { cwd: tmp, env: cleanEnv() },
        );
        expect(r.code).toBe(0);
      }
    } finally {
      await srv.close();
    }
    const shards = runDirs(results).map((d) => path.join(results, d));
    const exceeded = shards.map((d) => readLines(path.join(d, 'episodes.jsonl')).filter((x) => x.outcome === 'context_exceeded').length);
    // The window bites in one shard more than the other: the merge must count both, not copy the first.
    expect(exceeded[0] + exceeded[1]).toBeGreaterThan(0);
    const out = path.join(tmp, 'merged');
    const m = await runCli(['merge', ...shards, '--out', out], { cwd: tmp, env: cleanEnv() });
    expect(m.code).toBe(0);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
    expect(manifest.limits).toMatchObject({ context_exceeded: exceeded[0] + exceeded[1] });
    const [header, row] = fs.readFileSync(path.join(out, 'summary.csv'), 'utf8').trim().split('\n');
    const col = (name: string) => Number(row.split(',')[header.split(',').indexOf(name)]);
    expect(col('n_context_exceeded')).toBe(exceeded[0] + exceeded[1]);
    // The merged run's spend is its shards' sessions' spend: what the server billed.
    expect(col('spent_tokens')).toBe(srv.billed.prompt_tokens + srv.billed.completion_tokens);
  }, 180_000);
});
