// `npm run bench`: every benchmark, one after another, each in its own process (so one's memory and
// JIT state do not colour the next), then bench/RESULTS.md rewritten from the rows they report
// (bench/support/summary.ts) with the machine and the date. Each benchmark also rewrites its own
// results-<name>.md. `npm run bench -- cli run` runs only those and replaces only their rows in
// RESULTS.md; `-- --pages 0` is passed to wiki.ts, `-- --million` to report.ts; `-- --memory` adds the
// long-run memory benchmark (minutes: opt-in).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { replaceRows, type SummaryRow } from './support/summary.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const ALL: { name: string; file?: string; args: string[]; optIn?: string }[] = [
  { name: 'cli', args: [] },
  { name: 'start', args: ['--rounds', '9', '--dist-only'] },
  { name: 'loop', file: 'loop-compare', args: ['--rounds', '3', '--steady', '200'] },
  { name: 'memory', args: [], optIn: '--memory' },
  { name: 'llm', args: [] },
  { name: 'run', args: [] },
  { name: 'wiki', args: [] },
  { name: 'report', args: [] },
];

const argv = process.argv.slice(2);
const named = argv.filter((a) => !a.startsWith('--') && ALL.some((b) => b.name === a));
const pagesAt = argv.indexOf('--pages');
const selected = ALL.filter((b) => (named.length === 0 ? !b.optIn || argv.includes(b.optIn) : named.includes(b.name)));
const summaryFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-all-')), 'rows.jsonl');

function cpuModel(): string {
  try {
    return /model name\s*:\s*(.+)/.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown';
  } catch {
    return os.cpus()[0]?.model ?? 'unknown';
  }
}

const loadBefore = os.loadavg();
const t0 = Date.now();
const failed: string[] = [];
for (const b of selected) {
  const args =
    b.name === 'wiki' && pagesAt >= 0
      ? ['--pages', argv[pagesAt + 1]]
      : b.name === 'report' && argv.includes('--million')
        ? ['--million']
        : b.args;
  process.stderr.write(`\n== bench/${b.file ?? b.name}.ts ${args.join(' ')}\n`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, `${b.file ?? b.name}.ts`), ...args], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_SUMMARY_FILE: summaryFile },
  });
  if (r.status !== 0) failed.push(`${b.name} (exit ${r.status ?? r.signal})`);
}
const rows: SummaryRow[] = fs.existsSync(summaryFile)
  ? fs
      .readFileSync(summaryFile, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
  : [];
fs.rmSync(path.dirname(summaryFile), { recursive: true, force: true });

if (named.length > 0 && named.length < ALL.filter((b) => !b.optIn).length) {
  // A partial run replaces only its own rows, each file's rows stamped with when and under what load.
  const results = path.join(here, 'RESULTS.md');
  const files = selected.filter((b) => !failed.some((f) => f.startsWith(`${b.name} `))).map((b) => `results-${b.name}.md`);
  if (fs.existsSync(results) && files.length) {
    const when = `\`npm run bench -- ${argv.join(' ')}\` on ${new Date().toISOString().slice(0, 16)}Z, load average before ${loadBefore.map((x) => x.toFixed(1)).join(' ')}, after ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`;
    fs.writeFileSync(results, replaceRows(fs.readFileSync(results, 'utf8'), files, rows, when));
    process.stderr.write(`\nran ${selected.map((b) => b.name).join(', ')} only; bench/RESULTS.md: their ${rows.length} rows replaced\n`);
  } else process.stderr.write(`\nran ${selected.map((b) => b.name).join(', ')} only; bench/RESULTS.md not changed\n`);
} else {
  const gib = Math.round(os.totalmem() / 2 ** 30);
  const lines = [
    '# Benchmark results',
    '',
    `Machine: ${os.availableParallelism()} cores (${cpuModel()}), ${gib} GiB, Node ${process.version}, ${os.type()} ${os.release()}; ${new Date().toISOString().slice(0, 10)}.`,
    `Written by \`npm run bench\` (bench/run-all.ts) in ${((Date.now() - t0) / 60000).toFixed(1)} min; load average before ${loadBefore.map((x) => x.toFixed(1)).join(' ')}, after ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}.`,
    'Details, commands and notes in the per-benchmark files.',
    '',
    '| benchmark | target | measured | file |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.benchmark} | ${r.target} | ${r.measured} | [${r.file}](${r.file}) |`),
    '',
    ...(failed.length ? [`Failed: ${failed.join(', ')} (their rows are missing).`, ''] : []),
    `Run them all with \`npm run bench\` (\`-- --memory\` adds the long-run memory benchmark), or one with ${ALL.map((b) => `\`npx tsx bench/${b.file ?? b.name}.ts\``).join(', ')}.`,
    'Timings on a shared machine vary by about ±20%; the per-benchmark files give the spread seen.',
    '',
  ];
  fs.writeFileSync(path.join(here, 'RESULTS.md'), lines.join('\n'));
  process.stderr.write(`\nbench/RESULTS.md: ${rows.length} rows\n`);
}
if (failed.length) {
  process.stderr.write(`failed: ${failed.join(', ')}\n`);
  process.exitCode = 1;
}
