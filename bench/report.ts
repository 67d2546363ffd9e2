// Report benchmark (npx tsx bench/report.ts [--sizes 3500,35000,140000] [--million]): `react-repro report
// DIR --out report.html` on synthetic results folders the size of the Table 1 folder (3,500 episodes:
// HotpotQA, 7 methods × 500 questions) and of sweeps over models (10× and 40× that: one comparable set
// per model). Per size: wall time and peak RSS of the report process (/usr/bin/time), the page's size,
// and in headless Chromium: the time until the page's trajectory browser is usable (body[data-ready],
// from navigation start), then to scroll to the last episode and open it (its body shown), then a
// search for a phrase only trajectories hold (to its count). --million adds a 1,000,000-episode folder
// (about 1.3 GB of run folders in the temp folder, several minutes), opened in Chromium too. Writes
// bench/results-report.md (keeping its ## Notes), except when BENCH_REPORT_BIN measures another
// checkout (its figures are printed only, to set beside this one's). `--viewer-sweep N` (e.g. 1000000)
// measures the trajectory browser alone instead: a page of N short episodes (the sweep of
// test/report/html-sweep-runs.ts, written in process) opened in headless Chromium: time to ready,
// the renderer's memory, a search and opening the last episode; printed only (for the notes).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mulberry32 } from '../src/util/mulberry32.js';
import { qa, writeRun } from '../test/report/run-folders.js';
import { reportRows, writeResultsFile } from './support/summary.js';
import { sweepRuns } from '../test/report/html-sweep-runs.js';
import { renderHtmlChunks } from '../src/report/html/render.js';
import { ensureBuilt } from './support/build.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// BENCH_REPORT_BIN: another checkout's bin/react-repro.js, to measure it side by side.
const bin = process.env.BENCH_REPORT_BIN ?? path.join(here, '..', 'bin', 'react-repro.js');
// The report runs as a user runs it, compiled (the bin's bundle), unless REACT_REPRO_ENTRY=src: src/
// through tsx holds tsx's compiler too (at 35,000 episodes 147–151 against 108–110 MB peak, 2026-11-29).
// This checkout is built first when it is not current; another checkout's (BENCH_REPORT_BIN) runs its
// dist/ as it is, current or not: build it before measuring it.
const entry = process.env.REACT_REPRO_ENTRY ?? 'dist';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const METHODS = ['standard', 'cot', 'cot-sc', 'act', 'react', 'cot-sc-react', 'react-cot-sc'];
const ITEMS = 500;
const sizesAt = process.argv.indexOf('--sizes');
const SIZES = [
  ...(sizesAt >= 0 ? process.argv[sizesAt + 1]!.split(',').map(Number) : [3_500, 35_000, 140_000]),
  ...(process.argv.includes('--million') ? [1_000_000] : []),
];
/** Only trajectories hold it: the wrong episodes' observation on their last question (bench folders' qa()). */
const TRAJECTORY_PHRASE = `could not find item ${ITEMS - 1}.`;
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
    env: { ...process.env, REACT_REPRO_ENTRY: entry },
    maxBuffer: 1 << 26,
  });
  const seconds = (performance.now() - t0) / 1000;
  const rssKb = Number(/(\d+)\s*$/.exec(fs.readFileSync(rssFile, 'utf8').trim())?.[1] ?? NaN);
  return { seconds, rssMb: rssKb / 1024, ok: r.status === 0, stderr: r.stderr.slice(-400) };
}

/** Debian's Chromium, headless, as every viewer measurement here opens it. */
async function launchChromium(): Promise<import('playwright-core').Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
}

interface Viewer {
  /** Navigation start to body[data-ready]. */
  ready: number;
  /** The renderer's RSS (MB) at ready. */
  rssMb: number;
  /** Scrolled to the end, the last episode opened until its body is shown. */
  last: number;
  /** TRAJECTORY_PHRASE typed until the count of its matches is shown, and that count. */
  search: number;
  matches: number;
}

const seconds = (t0: number) => (performance.now() - t0) / 1000;

function viewerText(v: Viewer | null): string {
  if (v === null) return 'n/a';
  return `ready in ${v.ready.toFixed(1)} s (renderer RSS ${v.rssMb.toFixed(0)} MB), last episode opened in ${v.last.toFixed(1)} s, search found ${v.matches} in ${v.search.toFixed(1)} s`;
}

/** Scrolls the list to its end and opens episode `i` until its body (not "Loading…") is in the page. */
async function openEpisode(page: import('playwright-core').Page, i: number): Promise<void> {
  await page.evaluate(() => {
    const list = document.getElementById('episode-list')!;
    list.scrollTop = list.scrollHeight;
  });
  const row = page.locator(`#episode-list > details[data-episode="${i}"]`);
  await row.waitFor({ timeout: 600_000 });
  await row.locator(':scope > summary').click();
  await row.locator('.episode-body .kv').first().waitFor({ state: 'attached', timeout: 600_000 });
}

/** The page's trajectory browser in headless Chromium (null: no Chromium, or it could not open the page). */
async function viewer(file: string): Promise<Viewer | null> {
  if (!fs.existsSync(CHROMIUM)) return null;
  const browser = await launchChromium();
  const t0 = performance.now();
  const done: string[] = [];
  try {
    const page = await browser.newPage();
    await page.goto(pathToFileURL(file).href, { timeout: 1_800_000, waitUntil: 'commit' });
    await page.waitForSelector('body[data-ready="1"]', { timeout: 1_800_000 });
    const ready = seconds(t0);
    const rssMb = rendererRssMb();
    done.push(`ready in ${ready.toFixed(1)} s (renderer RSS ${rssMb.toFixed(0)} MB)`);
    // Every episode is listed at ready (a folder has whole sets of 3,500: 1,001,000 for a million).
    const listed = Number(await page.locator('#episode-count').getAttribute('data-count'));
    const t1 = performance.now();
    await openEpisode(page, listed - 1);
    const last = seconds(t1);
    done.push(`last episode opened in ${last.toFixed(1)} s`);
    // The input handler has run when fill returns: the count is then either the result or gone
    // (a search under way) until the result.
    const t2 = performance.now();
    await page.fill('#filter-search', TRAJECTORY_PHRASE);
    await page.waitForSelector('#episode-count[data-count]', { state: 'attached', timeout: 1_800_000 });
    const search = seconds(t2);
    const matches = Number(await page.locator('#episode-count').getAttribute('data-count'));
    return { ready, rssMb, last, search, matches };
  } catch (err) {
    const at = `${seconds(t0).toFixed(1)} s after navigation start`;
    console.error(`  viewer: ${done.join(', ') || 'not ready'}; then, ${at}: ${String(err).split('\n')[0]}`);
    return null;
  } finally {
    await browser.close();
  }
}

/** Resident memory (MB) of this process's largest Chromium renderer (descendants started with --type=renderer): the page's. */
function rendererRssMb(): number {
  const parent = new Map<number, number>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const ours = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === process.pid) return true;
    return false;
  };
  let kb = 0;
  for (const pid of parent.keys()) {
    if (!ours(pid)) continue;
    try {
      if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')) continue;
      kb = Math.max(kb, Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0));
    } catch {
      // gone meanwhile
    }
  }
  return kb / 1024;
}

/** The sweep page of `n` episodes in Chromium: ready, memory, a search, the last episode opened. */
async function viewerSweep(n: number): Promise<void> {
  const file = path.join(tmp, `sweep-${n}.html`);
  const t0 = performance.now();
  const fd = fs.openSync(file, 'w');
  for (const chunk of renderHtmlChunks({ title: 'Sweep', tables: [], figures: [], runs: sweepRuns(n / 4) })) fs.writeSync(fd, chunk);
  fs.closeSync(fd);
  const written = (performance.now() - t0) / 1000;
  const mb = fs.statSync(file).size / 1e6;
  console.log(`sweep page of ${n} episodes: ${mb.toFixed(1)} MB, written in ${written.toFixed(1)} s (load ${os.loadavg()[0]!.toFixed(1)})`);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const load = os.loadavg()[0]!.toFixed(1);
    const t1 = performance.now();
    await page.goto(pathToFileURL(file).href, { timeout: 1_200_000, waitUntil: 'commit' });
    await page.waitForSelector('body[data-ready="1"]', { timeout: 1_200_000 });
    const ready = (performance.now() - t1) / 1000;
    const heap = async () => {
      const { metrics } = await cdp.send('Performance.getMetrics');
      return (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? NaN) / 1e6;
    };
    const counted = await page.locator('#episode-count').getAttribute('data-count');
    console.log(
      `  ready in ${ready.toFixed(1)} s (load ${load}), ${counted} listed; JS heap ${(await heap()).toFixed(0)} MB, renderer RSS ${rendererRssMb().toFixed(0)} MB`,
    );
    const t2 = performance.now();
    await openEpisode(page, n - 1);
    const last = page.locator(`#episode-list > details[data-episode="${n - 1}"]`);
    console.log(`  scrolled to the end and opened the last episode in ${((performance.now() - t2) / 1000).toFixed(1)} s`);
    await last.locator(':scope > summary').click();
    // A run's last question: one match each. The first search reads every episode; the second, the
    // texts the first kept.
    for (const [attempt, needle] of [
      ['first', `q3-${n / 4 - 1}`],
      ['second', `q2-${n / 4 - 1}`],
    ]) {
      const t3 = performance.now();
      await page.fill('#filter-search', needle!);
      await page.waitForFunction(() => document.getElementById('episode-count')!.dataset.count === '1', undefined, { timeout: 1_200_000 });
      console.log(
        `  search (${attempt}) found its one episode in ${((performance.now() - t3) / 1000).toFixed(1)} s; JS heap ${(await heap()).toFixed(0)} MB, renderer RSS ${rendererRssMb().toFixed(0)} MB (load ${os.loadavg()[0]!.toFixed(1)})`,
      );
      await page.fill('#filter-search', '');
      await page.waitForFunction((all) => document.getElementById('episode-count')!.dataset.count === all, String(n), {
        timeout: 1_200_000,
      });
    }
  } finally {
    await browser.close();
    fs.rmSync(file, { force: true });
  }
}

const sweepAt = process.argv.indexOf('--viewer-sweep');
if (sweepAt >= 0) {
  await viewerSweep(Number(process.argv[sweepAt + 1]));
  fs.rmSync(tmp, { recursive: true, force: true });
  process.exit();
}

if (!process.env.BENCH_REPORT_BIN && entry === 'dist') ensureBuilt(path.join(here, '..'));
const loadAtStart = os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');
const rows: { n: number; seconds: number; rssMb: number; mb: number; viewer: Viewer | null; load: string; viewerLoad: string }[] = [];
for (const n of SIZES) {
  const root = folder(n);
  const out = path.join(tmp, `report-${n}.html`);
  const load = os.loadavg()[0]!.toFixed(1);
  const r = reportOnce(root, out);
  fs.rmSync(root, { recursive: true, force: true });
  if (!r.ok) {
    console.error(`report of ${n} episodes failed: ${r.stderr}`);
    process.exitCode = 1;
    continue;
  }
  const mb = fs.statSync(out).size / 1e6;
  const viewerLoad = os.loadavg()[0]!.toFixed(1);
  const v = await viewer(out);
  rows.push({ n, seconds: r.seconds, rssMb: r.rssMb, mb, viewer: v, load, viewerLoad });
  console.log(
    `${n} episodes: report ${r.seconds.toFixed(1)} s, peak RSS ${r.rssMb.toFixed(0)} MB, HTML ${mb.toFixed(1)} MB (load average ${load}); viewer ${viewerText(v)} (load average ${viewerLoad})`,
  );
  fs.rmSync(out, { force: true });
}
fs.rmSync(tmp, { recursive: true, force: true });

if (process.env.BENCH_REPORT_BIN) {
  console.log(`(measured ${bin}: bench/results-report.md left as it is)`);
  process.exit();
}
const file = path.join(here, 'results-report.md');
const cell = (v: Viewer | null, f: (v: Viewer) => string) => (v === null ? 'n/a' : f(v));
const fmtRow = (r: (typeof rows)[number]) =>
  `| ${r.n.toLocaleString('en')} | ${r.seconds.toFixed(1)} s | ${r.rssMb.toFixed(0)} MB | ${r.mb.toFixed(1)} MB | ${r.load} | ${cell(r.viewer, (v) => `${v.ready.toFixed(1)} s`)} | ${cell(r.viewer, (v) => `${v.last.toFixed(1)} s`)} | ${cell(r.viewer, (v) => `${v.search.toFixed(1)} s (${v.matches})`)} | ${r.viewerLoad} |`;
writeResultsFile(
  file,
  [
    '# Report benchmark',
    '',
    `\`npx tsx bench/report.ts\` on ${os.availableParallelism()} cores, Node ${process.version}, ${new Date().toISOString().slice(0, 16)}Z; load average at start ${loadAtStart}.`,
    'Synthetic HotpotQA-like run folders (test/report/run-folders.ts): 7 methods × 500 questions per model; 3,500 = the Table 1 folder, larger sizes one comparable set per model.',
    '`react-repro report DIR --out report.html` in its own process (' +
      (entry === 'dist' ? 'the compiled CLI, as the bin runs it' : 'src/ through tsx') +
      '); peak RSS by /usr/bin/time. In headless Chromium: ready = navigation start to the trajectory browser ready; last = scroll to the end and open the last episode until its body shows; search = type a phrase only trajectories hold (`' +
      TRAJECTORY_PHRASE +
      '`) until its count (in brackets) shows.',
    '',
    '| episodes | report time | peak RSS | HTML | load (1 min) | viewer ready | open last | search | load (1 min) |',
    '|---|---|---|---|---|---|---|---|---|',
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
          measured: cell(big.viewer, (v) => `${v.ready.toFixed(1)} s`),
          file: 'results-report.md',
        },
      ]
    : []),
]);
