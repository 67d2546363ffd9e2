// Report benchmark (npx tsx bench/report.ts [--sizes 3500,35000,140000] [--million]): `react-repro report
// DIR --out report.html` on synthetic results folders the size of the Table 1 folder (3,500 episodes:
// HotpotQA, 7 methods × 500 questions) and of sweeps over models (10× and 40× that: one comparable set
// per model). Per size: wall time and peak RSS of the report process (/usr/bin/time), the page's size,
// and the time until the page's trajectory browser is usable in headless Chromium (body[data-ready],
// from navigation start). --million adds a 1,000,000-episode folder (about 1.3 GB of run folders and
// a 0.9 GB page in the temp folder, several minutes): its time and peak RSS, without the viewer (a
// page that size is for a browser with the memory to hold it, not this check). Writes
// bench/results-report.md (keeping its ## Notes), except when BENCH_REPORT_BIN measures another
// checkout (its figures are printed only, to set beside this one's).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mulberry32 } from '../src/util/mulberry32.js';
import { qa, writeRun } from '../test/report/run-folders.js';
import { reportRows, writeResultsFile } from './support/summary.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// BENCH_REPORT_BIN: another checkout's bin/react-repro.js, to measure it side by side.
const bin = process.env.BENCH_REPORT_BIN ?? path.join(here, '..', 'bin', 'react-repro.js');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const METHODS = ['standard', 'cot', 'cot-sc', 'act', 'react', 'cot-sc-react', 'react-cot-sc'];
const ITEMS = 500;
const sizesAt = process.argv.indexOf('--sizes');
const SIZES = [
  ...(sizesAt >= 0 ? process.argv[sizesAt + 1]!.split(',').map(Number) : [3_500, 35_000, 140_000]),
  ...(process.argv.includes('--million') ? [1_000_000] : []),
];
/** Above this many episodes the page is not opened in Chromium. */
const VIEWER_MAX = 200_000;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-report-'));

/** A results folder of `episodes` episodes: 7 methods × 500 questions per model, as many models as it takes. */
function folder(episodes: number): string {
  const root = path.join(tmp, `runs-${episodes}`);
  const models = Math.ceil(episodes / (METHODS.length * ITEMS));
  const rng = mulberry32(episodes);
  const indices = Array.from({ length: ITEMS }, (_, i) => i);
  for (let m = 0; m < models; m++) {
    for (const method of METHODS) {
      const p = [0.25, 0.3, 0.35, 0.3, 0.35, 0.4, 0.4][METHODS.indexOf(method)]! + m * 0.001;
      const records = indices.map((i) => {
        const u = rng();
        return qa(i, u < 0.01 ? 'error' : u < 0.01 + p ? 'right' : u < 0.5 ? 'partial' : 'wrong');
      });
      writeRun(root, { runId: `${method}-m${m}`, method, model: `model-${m}`, indices, records });
    }
  }
  return root;
}

function reportOnce(root: string, out: string): { seconds: number; rssMb: number; ok: boolean; stderr: string } {
  const rssFile = path.join(tmp, 'rss.txt');
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', '-o', rssFile, process.execPath, bin, 'report', root, '--out', out], {
    encoding: 'utf8',
    env: { ...process.env, REACT_REPRO_ENTRY: process.env.REACT_REPRO_ENTRY ?? 'src' },
    maxBuffer: 1 << 26,
  });
  const seconds = (performance.now() - t0) / 1000;
  const rssKb = Number(/(\d+)\s*$/.exec(fs.readFileSync(rssFile, 'utf8').trim())?.[1] ?? NaN);
  return { seconds, rssMb: rssKb / 1024, ok: r.status === 0, stderr: r.stderr.slice(-400) };
}

async function viewerSeconds(file: string): Promise<number | null> {
  if (!fs.existsSync(CHROMIUM)) return null;
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage();
    const t0 = performance.now();
    await page.goto(pathToFileURL(file).href, { timeout: 600_000, waitUntil: 'commit' });
    await page.waitForSelector('body[data-ready="1"]', { timeout: 600_000 });
    return (performance.now() - t0) / 1000;
  } finally {
    await browser.close();
  }
}

const loadAtStart = os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');
const rows: { n: number; seconds: number; rssMb: number; mb: number; viewer: number | null; load: string }[] = [];
for (const n of SIZES) {
  const root = folder(n);
  const out = path.join(tmp, `report-${n}.html`);
  const load = os.loadavg()[0]!.toFixed(1);
  const r = reportOnce(root, out);
  if (!r.ok) {
    console.error(`report of ${n} episodes failed: ${r.stderr}`);
    process.exitCode = 1;
    continue;
  }
  const mb = fs.statSync(out).size / 1e6;
  const viewer = n <= VIEWER_MAX ? await viewerSeconds(out) : null;
  rows.push({ n, seconds: r.seconds, rssMb: r.rssMb, mb, viewer, load });
  console.log(
    `${n} episodes: report ${r.seconds.toFixed(1)} s, peak RSS ${r.rssMb.toFixed(0)} MB, HTML ${mb.toFixed(1)} MB, viewer ready in ${viewer === null ? 'n/a' : viewer.toFixed(1) + ' s'} (load average ${load})`,
  );
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(out, { force: true });
}
fs.rmSync(tmp, { recursive: true, force: true });

if (process.env.BENCH_REPORT_BIN) {
  console.log(`(measured ${bin}: bench/results-report.md left as it is)`);
  process.exit();
}
const file = path.join(here, 'results-report.md');
const viewerText = (r: (typeof rows)[number]) =>
  r.viewer !== null ? `${r.viewer.toFixed(1)} s` : r.n > VIEWER_MAX ? 'not opened' : 'n/a (no chromium)';
const fmtRow = (r: (typeof rows)[number]) =>
  `| ${r.n.toLocaleString('en')} | ${r.seconds.toFixed(1)} s | ${r.rssMb.toFixed(0)} MB | ${r.mb.toFixed(1)} MB | ${viewerText(r)} | ${r.load} |`;
writeResultsFile(
  file,
  [
    '# Report benchmark',
    '',
    `\`npx tsx bench/report.ts\` on ${os.availableParallelism()} cores, Node ${process.version}, ${new Date().toISOString().slice(0, 16)}Z; load average at start ${loadAtStart}.`,
    'Synthetic HotpotQA-like run folders (test/report/run-folders.ts): 7 methods × 500 questions per model; 3,500 = the Table 1 folder, larger sizes one comparable set per model.',
    '`react-repro report DIR --out report.html` in its own process (src/ through tsx); peak RSS by /usr/bin/time; viewer = navigation start to the trajectory browser ready in headless Chromium.',
    '',
    '| episodes | report time | peak RSS | HTML | viewer ready | load average (1 min) |',
    '|---|---|---|---|---|---|',
    ...rows.map(fmtRow),
    '',
  ].join('\n'),
);
const at = (n: number) => rows.find((r) => r.n === n);
const big = at(140_000);
const small = at(3_500);
reportRows([
  ...rows.map((r) => ({
    benchmark: `HTML report of ${r.n.toLocaleString('en')} episodes: time, peak RSS, size`,
    // Report building streams run folders: its peak memory should not grow with the episodes.
    target: r.n > 3_500 && small ? `peak RSS close to 3,500's` : '',
    measured: `${r.seconds.toFixed(1)} s, ${r.rssMb.toFixed(0)} MB${r.n > 3_500 && small ? ` (${(r.rssMb / small.rssMb).toFixed(2)} × 3,500's)` : ''}, ${r.mb.toFixed(1)} MB (load ${r.load})`,
    file: 'results-report.md',
  })),
  ...(big
    ? [
        {
          benchmark: 'HTML report of 140,000 episodes: viewer usable in Chromium',
          target: '≤ 20 s',
          measured: big.viewer === null ? 'n/a' : `${big.viewer.toFixed(1)} s`,
          file: 'results-report.md',
        },
      ]
    : []),
]);
