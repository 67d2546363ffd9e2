// Runner benchmark (npx tsx bench/run.ts): ReAct on hotpotqa offline500 through the offline Wikipedia
// against a scripted test server. (1) instant server: harness time per step (median over episodes of
// episode wall time / steps; includes HTTP to 127.0.0.1, the snapshot search, scoring and the fsync'ed
// append); target <= 2 ms. (2) a 200 ms server at concurrency 1, 8, 32: throughput vs linear (>= 0.8).
// Writes bench/results-run.md (keeping its ## Notes).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyLimits } from '../test/servers/openai-server.js';
import { childOpenAIServer } from './support/child-server.js';
import { reactEpisode } from './support/scripts.js';
import { executeRun, type RunDeps } from '../src/run/execute.js';
import '../src/benchmarks/builtin.js';
import { realDeps } from '../src/run/deps.js';
import { loadEpisodes } from '../src/runlog/store.js';
import { reportRows, writeResultsFile } from './support/summary.js';

const quiet = { progress: { write: () => {}, isTTY: false }, log: () => {} };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-run-'));

/** The model without HTTP: isolates the harness and the offline Wikipedia from the test server's own work. */
const directDeps: RunDeps = {
  ...realDeps,
  createModel: async () => ({
    backend: {
      model: 'bench-direct',
      describe: () => ({ backend: 'direct' }),
      async complete(req) {
        const text = applyLimits(reactEpisode({ prompt: req.prompt }), req.stop ?? [], req.maxTokens).text;
        return {
          choices: [{ index: 0, text, finishReason: 'stop' }],
          usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
          costUsd: 0,
          cachedChoices: 0,
          latencyMs: 0,
        };
      },
    },
  }),
};

async function run(baseURL: string, limit: number, concurrency: number, tag: string, deps: RunDeps = realDeps) {
  const t0 = performance.now();
  const r = await executeRun(
    {
      task: 'hotpotqa',
      method: 'react',
      split: 'offline500',
      limit,
      baseUrl: baseURL,
      model: 'bench-model',
      cache: 'off',
      concurrency,
      wiki: 'snapshot',
      resultsDir: path.join(tmp, tag),
    },
    deps,
    quiet,
  );
  const wall = (performance.now() - t0) / 1000;
  const eps = [...loadEpisodes(path.join(r.dir, 'episodes.jsonl')).records.values()];
  return { wall, eps, summary: r.summary };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const loadAtStart = os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');
const say = (s: string) => console.log(s);
/** Rows of results-run.md: measurement, figure, target. */
const table: [string, string, string][] = [];

const instant = await childOpenAIServer({ script: 'reactEpisode' });
// Warm-up (builds the snapshot database on first use, JIT).
await run(instant.baseURL, 10, 8, 'warm');
for (const c of [1, 8]) {
  const { wall, eps } = await run(instant.baseURL, 500, c, `instant-c${c}`);
  const steps = eps.reduce((a, e) => a + e.steps.length, 0);
  const perStep = median(eps.map((e) => e.latency_ms / Math.max(1, e.steps.length)));
  const errs = eps.filter((e) => e.error).length;
  say(
    `instant server, 500 questions, concurrency ${c}: ${steps} steps (${(steps / eps.length).toFixed(2)}/episode), wall ${wall.toFixed(2)} s, ${((wall * 1000) / steps).toFixed(3)} ms/step wall, median episode ms/step ${perStep.toFixed(3)}, errors ${errs}`,
  );
  table.push([
    c === 1
      ? "through HTTP to the instant test server, concurrency 1, 500 questions (adds the openai client, loopback HTTP and the server's own work on the same cores)"
      : `instant HTTP server, concurrency ${c}, 500 questions`,
    `${((wall * 1000) / steps).toFixed(2)} ms wall/step (median episode ${perStep.toFixed(2)} ms/step)${errs ? `, ${errs} errors` : ''}`,
    '',
  ]);
}
instant.close();
{
  await run('http://127.0.0.1:9/v1', 10, 1, 'direct-warm', directDeps);
  const { wall, eps } = await run('http://127.0.0.1:9/v1', 500, 1, 'direct', directDeps);
  const steps = eps.reduce((a, e) => a + e.steps.length, 0);
  const perStep = median(eps.map((e) => e.latency_ms / Math.max(1, e.steps.length)));
  say(
    `in-process model (no HTTP), 500 questions, concurrency 1: ${steps} steps, wall ${wall.toFixed(2)} s, ${((wall * 1000) / steps).toFixed(3)} ms/step (harness + offline Wikipedia + scoring + fsync'ed append), median episode ms/step ${perStep.toFixed(3)}`,
  );
  table.unshift([
    "harness per step, model in process (runner + WikiEnv over the snapshot + scoring + fsync'ed append), concurrency 1, 500 questions",
    `${((wall * 1000) / steps).toFixed(2)} ms wall/step (median episode ${perStep.toFixed(2)} ms/step)`,
    '≤ 2 ms',
  ]);
  reportRows([
    {
      benchmark: 'Runner harness per ReAct step (incl. offline Wikipedia)',
      target: '≤ 2 ms',
      measured: `${((wall * 1000) / steps).toFixed(2)} ms wall/step`,
      file: 'results-run.md',
    },
  ]);
}

const slow = await childOpenAIServer({ script: 'reactEpisode', latencyMs: 200 });
const rates: Record<number, number> = {};
for (const [c, n] of [
  [1, 40],
  [8, 160],
  [32, 500],
] as const) {
  const { wall, eps } = await run(slow.baseURL, n, c, `slow-c${c}`);
  rates[c] = eps.length / wall;
  const lin = c === 1 ? 1 : rates[c] / (rates[1] * c);
  say(
    `200 ms server, ${n} questions, concurrency ${c}: wall ${wall.toFixed(2)} s, ${rates[c].toFixed(2)} episodes/s, ${lin.toFixed(2)} x linear, errors ${eps.filter((e) => e.error).length}`,
  );
  table.push([
    `200 ms server, concurrency ${c}, ${n} questions`,
    `${rates[c].toFixed(2)} episodes/s${c === 1 ? '' : ` = ${lin.toFixed(2)} × linear`}`,
    c === 1 ? '' : '≥ 0.8 ×',
  ]);
}
slow.close();
fs.rmSync(tmp, { recursive: true, force: true });
const machine = `${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? '?'}), node ${process.version}, ${os.platform()} ${os.release()}`;
say(`machine: ${machine}`);
const lin = (c: number) => rates[c] / (rates[1] * c);
reportRows([
  {
    benchmark: 'Runner, 200 ms server, concurrency 8 / 32',
    target: '≥ 0.8 × linear',
    measured: `${lin(8).toFixed(2)} × / ${lin(32).toFixed(2)} ×`,
    file: 'results-run.md',
  },
]);
writeResultsFile(
  path.join(path.dirname(fileURLToPath(import.meta.url)), 'results-run.md'),
  [
    '# Runner benchmark (`npx tsx bench/run.ts`)',
    '',
    'ReAct on hotpotqa offline500 through the offline Wikipedia snapshot; the OpenAI-compatible test server',
    '(test/servers/openai-server.ts) runs in a child process, scripted to Search → Lookup → Finish (3 steps an',
    `episode; bench/support/scripts.ts). Machine: ${machine}; ${new Date().toISOString().slice(0, 10)}; load average`,
    `before the run ${loadAtStart}, after ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}.`,
    '',
    '| measurement | figure | target |',
    '|---|---:|---:|',
    ...table.map((r) => `| ${r.join(' | ')} |`),
    '',
  ].join('\n'),
);
