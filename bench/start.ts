// Start-to-first-request benchmark (npx tsx bench/start.ts [--rounds N]): wall time from spawning
// `react-repro run` (the bin running the compiled bundle, and src/ through tsx) to the first model request arriving at the
// test OpenAI server, which runs in its own process (as a real server would) and stamps each arrival
// with the shared epoch clock (performance.timeOrigin + now, sub-millisecond in both processes).
// Runs are interleaved with a `node -e 0` reference so the shared machine's load falls on all alike.
// Target: ≤ 0.25 s compiled. `--base DIR` adds a row for another compiled tree (e.g. main's dist/, built
// into a folder under this checkout so it finds node_modules; its bundle when it has one), side by side.
// Writes bench/results-start.md (keeping its ## Notes) and the rows `npm run bench` puts in RESULTS.md.
// --without-extra-ca-certs: every Node process measured runs without NODE_EXTRA_CA_CERTS
// (bench/support/extra-ca-certs.ts says why); with it kept, `node -e 0` without it is measured too.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureBuilt } from './support/build.js';
import { reportRows, writeResultsFile } from './support/summary.js';
import { extraCaCerts, extraCaLine, nodeEnv, nodeStartMs, withoutExtraCa } from './support/extra-ca-certs.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const bin = path.join(root, 'bin', 'react-repro.js');
const argN = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const ROUNDS = argN('rounds', 9);
const baseAt = process.argv.indexOf('--base');
const baseDir = baseAt > 0 ? path.resolve(process.argv[baseAt + 1]) : undefined;
const now = () => performance.timeOrigin + performance.now();
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The test server in a child process, printing `REQ <epoch ms>` when each request arrives. */
async function stampingServer(): Promise<{ baseURL: string; arrivals: number[]; close: () => void }> {
  const serverModule = pathToFileURL(path.join(root, 'test/servers/openai-server.ts')).href;
  const scriptsModule = pathToFileURL(path.join(here, 'support/scripts.ts')).href;
  const code = `
    const { startOpenAIServer } = await import(${JSON.stringify(serverModule)});
    const scripts = await import(${JSON.stringify(scriptsModule)});
    const s = await startOpenAIServer({ respond: scripts.reactEpisode, fault: () => {
      process.stdout.write('REQ ' + (performance.timeOrigin + performance.now()) + '\\n'); return undefined; } });
    process.stdout.write('URL ' + s.baseURL + '\\n');
    process.stdin.on('end', () => s.close().then(() => process.exit(0)));
    process.stdin.resume();`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  const arrivals: number[] = [];
  let buf = '';
  const baseURL = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.startsWith('URL ')) resolve(line.slice(4));
        else if (line.startsWith('REQ ')) arrivals.push(Number(line.slice(4)));
      }
    });
    child.on('exit', (c) => reject(new Error(`bench server exited with ${c}`)));
  });
  return { baseURL, arrivals, close: () => child.stdin.end() };
}

ensureBuilt(root);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-start-'));
const server = await stampingServer();
const env = (entry: 'dist' | 'src'): NodeJS.ProcessEnv =>
  nodeEnv({
    ...process.env,
    REACT_REPRO_ENTRY: entry,
    REACT_REPRO_CACHE_DIR: path.join(tmp, 'cache'),
  });
let seq = 0;

/** Another compiled tree's entry: its bundle when it has one (as our bin runs ours), else dist/cli/main.js. */
const baseEntry = (distDir: string) => {
  const bundle = path.join(distDir, 'cli-bundle', 'main.js');
  return fs.existsSync(bundle) ? bundle : path.join(distDir, 'cli', 'main.js');
};

/** Spawns a one-question run; resolves with ms from spawn to the first request's arrival. */
async function firstRequestMs(entry: 'dist' | 'src' | 'base'): Promise<number> {
  const results = path.join(tmp, `r${seq++}`);
  const launcher = (dir: string) => [
    '--input-type=module',
    '-e',
    `const { main } = await import(${JSON.stringify(pathToFileURL(baseEntry(dir)).href)}); process.exitCode = await main(process.argv.slice(1));`,
  ];
  // Ours through the bin as a user runs it (the compiled bundle when current: REACT_REPRO_ENTRY=dist skips
  // only the bin's few-millisecond staleness check); --base through its bundle (baseEntry; no bin there).
  const head = entry === 'base' ? launcher(baseDir!) : [bin];
  const args = [...head, 'run', '--task', 'hotpotqa', '--method', 'react', '--split', 'offline500', '--limit', '1'];
  args.push('--base-url', server.baseURL, '--model', 'bench-model', '--cache', 'off', '--results-dir', results);
  const before = server.arrivals.length;
  const t0 = now();
  const child = spawn(process.execPath, args, {
    cwd: tmp,
    env: env(entry === 'src' ? 'src' : 'dist'),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  if (code !== 0) throw new Error(`run exited ${code}: ${err.slice(-2000)}`);
  await new Promise((r) => setTimeout(r, 20)); // the server's stdout line may trail the child's exit
  if (server.arrivals.length <= before) throw new Error('no request reached the server');
  return server.arrivals[before] - t0;
}

const load0 = os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');
await firstRequestMs('dist'); // builds the offline Wikipedia snapshot in the temporary cache (not measured)
const t = { ref: [] as number[], dist: [] as number[], src: [] as number[] };
// With the variable kept, Node's start without it is measured in the same rounds, for reference.
const refWithoutCa: number[] = [];
const measureWithoutCa = extraCaCerts !== undefined && !withoutExtraCa;
const withSrc = !process.argv.includes('--dist-only');
const base: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  t.ref.push(nodeStartMs());
  if (measureWithoutCa) refWithoutCa.push(nodeStartMs({ withoutCa: true }));
  t.dist.push(await firstRequestMs('dist'));
  if (baseDir) base.push(await firstRequestMs('base'));
  if (withSrc) t.src.push(await firstRequestMs('src'));
}
server.close();
fs.rmSync(tmp, { recursive: true, force: true });
const fmt = (xs: number[]) => `median ${median(xs).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})`;
const load1 = os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');
const out = [
  `load average before ${load0}, after ${load1} (${os.availableParallelism()} cores); ${ROUNDS} rounds interleaved`,
  extraCaLine(),
  `node -e 0 (reference): ${fmt(t.ref)}`,
  ...(measureWithoutCa ? [`node -e 0 without NODE_EXTRA_CA_CERTS (reference): ${fmt(refWithoutCa)}`] : []),
  `start to first request, the bin (compiled bundle): ${fmt(t.dist)}  [target ≤ 250 ms]`,
  ...(baseDir
    ? [`start to first request, --base ${baseDir}: ${fmt(base)}; ratio of medians ${(median(base) / median(t.dist)).toFixed(2)} ×`]
    : []),
  ...(withSrc ? [`start to first request, through tsx (src/): ${fmt(t.src)}`] : []),
];
console.log(out.join('\n'));
const file = 'results-start.md';
writeResultsFile(
  path.join(here, file),
  [
    '# Start to the first model request',
    '',
    `\`npx tsx bench/start.ts --rounds ${ROUNDS}${withSrc ? '' : ' --dist-only'}${baseDir ? ' --base DIR' : ''}${withoutExtraCa ? ' --without-extra-ca-certs' : ''}\` on ${new Date().toISOString().slice(0, 10)}.`,
    '',
    '```',
    ...out,
    '```',
    '',
  ].join('\n'),
);
reportRows([
  {
    benchmark: `Start to the first model request (spawn of \`react-repro run\` → request at the server), compiled, median of ${ROUNDS}`,
    target: '≤ 250 ms',
    measured: `${median(t.dist).toFixed(0)} ms (${!extraCaCerts ? '' : withoutExtraCa ? 'NODE_EXTRA_CA_CERTS removed; ' : 'NODE_EXTRA_CA_CERTS set; '}node -e 0: ${median(t.ref).toFixed(0)} ms${baseDir ? `; --base: ${median(base).toFixed(0)} ms` : ''}; load ${load0} → ${load1})`,
    file,
  },
]);
