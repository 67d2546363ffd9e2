// Memory benchmark (npx tsx bench/memory.ts [--limit N] [--base DIR]): peak RSS of a long ReAct run,
// HotpotQA dev (7,405 questions) through the offline Wikipedia, against the test OpenAI server in its
// own process answering at once (bench/support/scripts.ts reactEpisode: Search → Lookup → Finish),
// concurrency 16, cache off. The CLI child's peak RSS is read from /usr/bin/time -v ("Maximum resident
// set size"), and its live heap from V8's --trace-gc: the heap left after each full (Mark-Compact)
// collection, which separates what the run keeps from V8's headroom over it. `--base DIR` runs another
// compiled tree (e.g. main's dist/, built into a folder under this checkout) the same way, right after.
// Target: ≤ 350 MB at 7,405 episodes. Writes bench/results-memory.md (keeping its ## Notes) and the row
// `npm run bench -- --memory` puts in RESULTS.md.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { childOpenAIServer } from './support/child-server.js';
import { reportRows, writeResultsFile } from './support/summary.js';
import { ensureBuilt } from './support/build.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const argOf = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const LIMIT = Number(argOf('limit') ?? 7405);
const baseDir = argOf('base') ? path.resolve(argOf('base')!) : undefined;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-memory-'));
const server = await childOpenAIServer({ script: 'reactEpisode', latencyMs: 0 });
let seq = 0;

/**
 * The heap left after each full collection, in MB, from node's --trace-gc lines
 * ("... 469 ms: Mark-Compact 30.7 (61.1) -> 14.4 (28.1) MB, ..."; "ms: " keeps out --minor-mc's lines).
 */
function liveHeapAfterFullGcs(trace: string): number[] {
  return [...trace.matchAll(/ms: Mark-Compact(?: \(reduce\))? [\d.]+ \([\d.]+\) -> ([\d.]+) \(/g)].map((m) => Number(m[1]));
}

interface MemoryRun {
  rssMB: number;
  s: number;
  episodes: number;
  /** MB left after each full collection, in order. */
  liveMB: number[];
}

async function measureRun(distDir: string, limit: number): Promise<MemoryRun> {
  const results = path.join(tmp, `r${seq++}`);
  const main = pathToFileURL(path.join(distDir, 'cli', 'main.js')).href;
  const args = [
    '-v',
    process.execPath,
    '--trace-gc',
    '--input-type=module',
    '-e',
    `const { main } = await import(${JSON.stringify(main)}); process.exitCode = await main(process.argv.slice(1));`,
  ];
  args.push('run', '--task', 'hotpotqa', '--method', 'react', '--split', 'dev', '--limit', String(limit), '--concurrency', '16');
  args.push('--base-url', server.baseURL, '--model', 'bench-model', '--cache', 'off', '--results-dir', results);
  const t0 = performance.now();
  const child = spawn('/usr/bin/time', args, {
    cwd: tmp,
    env: { ...process.env, REACT_REPRO_CACHE_DIR: path.join(tmp, 'cache') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let trace = '';
  child.stdout.on('data', (d) => (trace += d));
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  const s = (performance.now() - t0) / 1000;
  const kb = /Maximum resident set size \(kbytes\): (\d+)/.exec(err)?.[1];
  if (code !== 0 || !kb) throw new Error(`run exited ${code}: ${err.slice(-2000)}`);
  const [dir] = fs.readdirSync(results);
  const episodes = fs
    .readFileSync(path.join(results, dir, 'episodes.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean).length;
  fs.rmSync(results, { recursive: true, force: true });
  return { rssMB: Number(kb) / 1024, s, episodes, liveMB: liveHeapAfterFullGcs(trace) };
}

const load0 = os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');
ensureBuilt(root); // this tree's dist/ is what is measured: current, as the other benchmarks see to
await measureRun(path.join(root, 'dist'), 2); // builds the offline Wikipedia snapshot (not measured)
const ours = await measureRun(path.join(root, 'dist'), LIMIT);
const base = baseDir ? await measureRun(baseDir, LIMIT) : undefined;
const load1 = os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');
/** "live heap after each full GC 9.0, 14.4, …, 17.1 MB": what the run keeps, apart from V8's headroom. */
const live = (r: MemoryRun) => {
  const mb = r.liveMB.map((x) => x.toFixed(1));
  if (mb.length === 0) return 'no full GC traced';
  const shown = mb.length <= 10 ? mb : [...mb.slice(0, 4), '…', ...mb.slice(-4)];
  return `live heap after each full GC ${shown.join(', ')} MB`;
};
const out = [
  `this tree: ${ours.episodes} episodes, peak RSS ${ours.rssMB.toFixed(0)} MB, ${ours.s.toFixed(1)} s  [target ≤ 350 MB]; ${live(ours)}`,
  ...(base
    ? [`--base ${baseDir}: ${base.episodes} episodes, peak RSS ${base.rssMB.toFixed(0)} MB, ${base.s.toFixed(1)} s; ${live(base)}`]
    : []),
  `load average before ${load0}, after ${load1}`,
];
console.log(out.join('\n'));
server.close();
fs.rmSync(tmp, { recursive: true, force: true });
const file = 'results-memory.md';
writeResultsFile(
  path.join(here, file),
  [
    '# Peak memory of a long run',
    '',
    `\`npx tsx bench/memory.ts --limit ${LIMIT}\` on ${new Date().toISOString().slice(0, 10)}.`,
    '',
    '```',
    ...out,
    '```',
    '',
  ].join('\n'),
);
reportRows([
  {
    benchmark: `Peak RSS of a ${ours.episodes}-episode ReAct run (HotpotQA dev, offline Wikipedia, instant model, concurrency 16)`,
    target: '≤ 350 MB',
    measured: `${ours.rssMB.toFixed(0)} MB, ${ours.s.toFixed(0)} s; ${live(ours)}${base ? ` (--base: ${base.rssMB.toFixed(0)} MB)` : ''}`,
    file,
  },
]);
