// The 48-question comparison (npx tsx bench/loop-compare.ts [--rounds N] [--base DIR] [--steady N]
// [--without-extra-ca-certs]): ReAct on the
// first 48 offline500 HotpotQA questions, the model a test OpenAI server in its own process answering
// each call after 100 ms, Wikipedia the stand-in site (test/servers/wiki-server.ts) in its own process,
// reached as the notebook reaches Wikipedia (--wiki live: GET /w/index.php?search=...). Run two ways:
// - ours: `react-repro run --concurrency 16 --wiki live --wiki-url <stand-in>`, the compiled bin as a
//   user runs it (REACT_REPRO_ENTRY=dist: the bundle when it is current);
// - the paper's loop: the released hotpotqa.ipynb webthink loop replicated in Python
//   (bench/support/paper_loop.py, which lists where it departs from the notebook), one question after
//   the other, against the same two servers.
// The two must run the same episodes: every question's final prompt is compared (printed as
// "trajectories equal"). Wall time from spawn to exit and the client's CPU time (user + system,
// /usr/bin/time -v) per model call, two ways: over the whole run (start included), and per call in
// the steady state: (CPU of the 48-question run − CPU of a 4-question run) ÷ (the difference in calls); the runs are interleaved round by round so the shared machine's
// load falls on both alike. `--base DIR` adds the runs of another compiled tree (DIR: its dist/, e.g.
// main's built into a folder under this checkout so it finds node_modules; its bundle when it has
// one) in each round, and its steady-state figures beside ours.
// `--steady N` adds an N-question run of each a round, for a steady-state figure less noisy than 48 − 4.
// `--without-extra-ca-certs`: our runs and --base's without NODE_EXTRA_CA_CERTS (bench/support/extra-ca-certs.ts).
// Writes bench/results-loop.md (keeping its ## Notes) and the rows `npm run bench` puts in RESULTS.md.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { childOpenAIServer, childWikiServer } from './support/child-server.js';
import { ensureBuilt } from './support/build.js';
import { extraCaCerts, extraCaLine, nodeEnv, withoutExtraCa } from './support/extra-ca-certs.js';
import { reportRows, writeResultsFile } from './support/summary.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const bin = path.join(root, 'bin', 'react-repro.js');
const argOf = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const ROUNDS = Number(argOf('rounds') ?? 3);
const LIMIT = Number(argOf('limit') ?? 48);
const SMALL = 4;
/** `--steady N`: also a run of N questions a round, for a steady-state figure with less noise than 48 − 4. */
const STEADY = argOf('steady') ? Number(argOf('steady')) : undefined;
const CONCURRENCY = 16;
const baseDir = argOf('base') ? path.resolve(argOf('base')!) : undefined;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const loadNow = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

ensureBuilt(root);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-loop-'));
const server = await childOpenAIServer({ script: 'reactEpisodeWiki', latencyMs: 100 });
const wiki = await childWikiServer();
const baseEnv = nodeEnv({ ...process.env, REACT_REPRO_CACHE_DIR: path.join(tmp, 'cache'), REACT_REPRO_ENTRY: 'dist' });
let seq = 0;

const sample = spawnSync(process.execPath, [bin, 'data', 'sample', 'hotpotqa', 'offline500'], { env: baseEnv, encoding: 'utf8' });
if (sample.status !== 0) throw new Error(`data sample failed: ${sample.stderr}`);
const allIndices = sample.stdout.trim().split('\n');
const indices = allIndices.slice(0, LIMIT);

interface Run {
  s: number;
  cpuMs: number;
  calls: number;
  errors: number;
  trajs: Map<string, string>;
}

/** Runs a command under /usr/bin/time -v: wall seconds, CPU ms (user + system), stderr. */
async function timed(argv: string[], env: NodeJS.ProcessEnv): Promise<{ s: number; cpuMs: number; err: string }> {
  const t0 = performance.now();
  const child = spawn('/usr/bin/time', ['-v', ...argv], { cwd: tmp, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  const s = (performance.now() - t0) / 1000;
  const user = /User time \(seconds\): ([\d.]+)/.exec(err)?.[1];
  const sys = /System time \(seconds\): ([\d.]+)/.exec(err)?.[1];
  if (code !== 0 || !user || !sys) throw new Error(`${argv.slice(0, 3).join(' ')} exited ${code}: ${err.slice(-2000)}`);
  return { s, cpuMs: (Number(user) + Number(sys)) * 1000, err };
}

/** Another compiled tree's entry: its bundle when it has one (as our bin runs ours), else dist/cli/main.js. */
const baseEntry = (distDir: string) => {
  const bundle = path.join(distDir, 'cli-bundle', 'main.js');
  return fs.existsSync(bundle) ? bundle : path.join(distDir, 'cli', 'main.js');
};

/** Our CLI: the bin (compiled, bundled when current) or another compiled tree's (baseEntry). */
async function ours(concurrency: number, limit = LIMIT, distDir?: string): Promise<Run> {
  const results = path.join(tmp, `r${seq++}`);
  const head = distDir
    ? [
        '--input-type=module',
        '-e',
        `const { main } = await import(${JSON.stringify(pathToFileURL(baseEntry(distDir)).href)}); process.exitCode = await main(process.argv.slice(1));`,
      ]
    : [bin];
  const args = [process.execPath, ...head, 'run', '--task', 'hotpotqa', '--method', 'react', '--split', 'offline500'];
  args.push('--limit', String(limit), '--concurrency', String(concurrency), '--wiki', 'live', '--wiki-url', wiki.url);
  args.push('--base-url', server.baseURL, '--model', 'bench-model', '--cache', 'off', '--results-dir', results);
  const t = await timed(args, baseEnv);
  const [dir] = fs.readdirSync(results);
  const eps = fs
    .readFileSync(path.join(results, dir, 'episodes.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { idx: number; n_calls: number; error: unknown; traj: string });
  fs.rmSync(results, { recursive: true, force: true });
  return {
    s: t.s,
    cpuMs: t.cpuMs,
    calls: eps.reduce((a, e) => a + e.n_calls, 0),
    errors: eps.filter((e) => e.error).length,
    trajs: new Map(eps.map((e) => [String(e.idx), e.traj])),
  };
}

/**
 * The Python that runs the paper's loop: $PAPER_LOOP_PYTHON, else the first of `python3` and
 * /usr/bin/python3 that has both requests and bs4 (Debian: python3-bs4 python3-requests), else `python3`
 * with requests alone (the replica then parses with its bs4 stand-in; the output says which ran).
 */
const python =
  process.env.PAPER_LOOP_PYTHON ??
  ['python3', '/usr/bin/python3'].find((py) => spawnSync(py, ['-c', 'import bs4, requests']).status === 0) ??
  'python3';
let parser = '';

/** The notebook's loop in Python (bench/support/paper_loop.py), one question after the other. */
async function paper(limit = LIMIT): Promise<Run> {
  const trajFile = path.join(tmp, `p${seq++}.json`);
  const script = path.join(here, 'support', 'paper_loop.py');
  const t = await timed([python, script, root, server.baseURL, wiki.url, 'bench-model', ...allIndices.slice(0, limit)], {
    ...process.env,
    PAPER_LOOP_TRAJS: trajFile,
  });
  const totals = JSON.parse(t.err.split('\n').find((l) => l.startsWith('{"episodes"')) ?? '{}') as {
    episodes?: number;
    calls?: number;
    parser?: string;
  };
  parser = totals.parser ?? 'unknown';
  if (totals.episodes !== limit || !totals.calls) throw new Error(`paper loop: ${t.err.slice(-1000)}`);
  const trajs = new Map(Object.entries(JSON.parse(fs.readFileSync(trajFile, 'utf8')) as Record<string, string>));
  return { s: t.s, cpuMs: t.cpuMs, calls: totals.calls, errors: 0, trajs };
}

const load0 = loadNow();
await ours(CONCURRENCY, 2); // warms the page cache and the bundle's files (not measured)
await paper(2);
const o: Run[] = [];
const p: Run[] = [];
const b: Run[] = [];
const oSmall: Run[] = [];
const pSmall: Run[] = [];
const bSmall: Run[] = [];
const oSteady: Run[] = [];
const pSteady: Run[] = [];
const bSteady: Run[] = [];
for (let r = 0; r < ROUNDS; r++) {
  o.push(await ours(CONCURRENCY));
  p.push(await paper());
  if (baseDir) b.push(await ours(CONCURRENCY, LIMIT, baseDir));
  oSmall.push(await ours(CONCURRENCY, SMALL));
  pSmall.push(await paper(SMALL));
  if (baseDir) bSmall.push(await ours(CONCURRENCY, SMALL, baseDir));
  if (STEADY) {
    oSteady.push(await ours(CONCURRENCY, STEADY));
    pSteady.push(await paper(STEADY));
    if (baseDir) bSteady.push(await ours(CONCURRENCY, STEADY, baseDir));
  }
}
const load1 = loadNow();
server.close();
wiki.close();
fs.rmSync(tmp, { recursive: true, force: true });

const same = indices.filter((i) => o[0].trajs.get(i) !== undefined && o[0].trajs.get(i) === p[0].trajs.get(i)).length;
const perCall = (xs: Run[]) => median(xs.map((x) => x.cpuMs / x.calls));
/** Steady-state CPU per call: the extra CPU of the long run over the short one, per extra call. */
const marginal = (long: Run[], short: Run[]) => median(long.map((x, i) => (x.cpuMs - short[i].cpuMs) / (x.calls - short[i].calls)));
const line = (label: string, xs: Run[]) =>
  `${label}: wall median ${median(xs.map((x) => x.s)).toFixed(2)} s (${xs.map((x) => x.s.toFixed(2)).join(', ')}); client CPU ${median(xs.map((x) => x.cpuMs)).toFixed(0)} ms = ${perCall(xs).toFixed(2)} ms/call; calls ${xs[0].calls}, errors ${xs.reduce((a, x) => a + x.errors, 0)}`;
const ratios = o.map((x, i) => p[i].s / x.s);
const cpuRatio = perCall(o) / perCall(p);
const marginalRatio = marginal(o, oSmall) / marginal(p, pSmall);
const floor = ((o[0].calls / LIMIT) * Math.ceil(LIMIT / CONCURRENCY) * 0.1).toFixed(1);
const out = [
  `load average before ${load0}, after ${load1} (${os.availableParallelism()} cores); ${ROUNDS} rounds interleaved`,
  extraCaLine(),
  `trajectories equal (ours vs the paper's loop, final prompts): ${same} / ${indices.length}`,
  line(`ours, --concurrency ${CONCURRENCY}`, o),
  line(`the paper's loop (bench/support/paper_loop.py; ${python}, HTML by ${parser})`, p),
  ...(baseDir ? [line(`--base ${baseDir}, --concurrency ${CONCURRENCY}`, b)] : []),
  `ratio paper's loop / ours, per round: ${ratios.map((x) => x.toFixed(1)).join(', ')}; median ${median(ratios).toFixed(1)} ×  [target ≥ 12 ×; model floor ${floor} s + start]`,
  `client CPU per call, start included, ours / paper's loop: ${cpuRatio.toFixed(2)} ×  [target ≤ 0.5 ×]`,
  `client CPU per call in the steady state (${LIMIT} − ${SMALL} questions), ours / paper's loop: ${marginal(o, oSmall).toFixed(2)} / ${marginal(p, pSmall).toFixed(2)} ms = ${marginalRatio.toFixed(2)} ×  [target ≤ 0.5 ×]`,
];
if (STEADY) {
  const r = marginal(oSteady, oSmall) / marginal(pSteady, pSmall);
  out.push(
    `client CPU per call in the steady state (${STEADY} − ${SMALL} questions), ours / paper's loop: ${marginal(oSteady, oSmall).toFixed(2)} / ${marginal(pSteady, pSmall).toFixed(2)} ms = ${r.toFixed(2)} ×  [target ≤ 0.5 ×]`,
  );
}
if (baseDir) {
  // the same figures of the other tree, measured in the same rounds
  const steady = STEADY
    ? `, (${STEADY} − ${SMALL}) ${marginal(bSteady, bSmall).toFixed(2)} vs ${marginal(oSteady, oSmall).toFixed(2)} ms`
    : '';
  out.push(
    `client CPU per call in the steady state, --base vs ours: (${LIMIT} − ${SMALL}) ${marginal(b, bSmall).toFixed(2)} vs ${marginal(o, oSmall).toFixed(2)} ms${steady}`,
  );
}
console.log(out.join('\n'));

const file = 'results-loop.md';
writeResultsFile(
  path.join(here, file),
  [
    "# The 48-question comparison against the paper's loop",
    '',
    `\`npx tsx bench/loop-compare.ts --rounds ${ROUNDS}${baseDir ? ' --base DIR' : ''}${STEADY ? ` --steady ${STEADY}` : ''}${withoutExtraCa ? ' --without-extra-ca-certs' : ''}\` on ${new Date().toISOString().slice(0, 10)}.`,
    '',
    '```',
    ...out,
    '```',
    '',
  ].join('\n'),
);
reportRows([
  {
    benchmark: `${LIMIT} HotpotQA questions, 100 ms model, --wiki live stand-in: ours at --concurrency ${CONCURRENCY} vs the paper's loop (Python replica), median of ${ROUNDS}`,
    target: '≥ 12 ×',
    measured: `${median(ratios).toFixed(1)} × (${withoutExtraCa && extraCaCerts ? 'NODE_EXTRA_CA_CERTS removed; ' : ''}${median(o.map((x) => x.s)).toFixed(2)} s vs ${median(p.map((x) => x.s)).toFixed(2)} s; trajectories equal ${same}/${indices.length}; load ${load0} → ${load1})`,
    file,
  },
  {
    benchmark: `Client CPU per model call, ours at --concurrency 16 / the paper's loop: steady state (${LIMIT} − ${SMALL} questions${STEADY ? `; ${STEADY} − ${SMALL}` : ''}); start included`,
    target: '≤ 0.5 ×',
    measured:
      `${marginalRatio.toFixed(2)} × (${marginal(o, oSmall).toFixed(2)} vs ${marginal(p, pSmall).toFixed(2)} ms/call)` +
      (STEADY
        ? `; ${(marginal(oSteady, oSmall) / marginal(pSteady, pSmall)).toFixed(2)} × (${marginal(oSteady, oSmall).toFixed(2)} vs ${marginal(pSteady, pSmall).toFixed(2)} ms/call)`
        : '') +
      `; ${cpuRatio.toFixed(2)} × (${perCall(o).toFixed(2)} vs ${perCall(p).toFixed(2)} ms/call)`,
    file,
  },
]);
