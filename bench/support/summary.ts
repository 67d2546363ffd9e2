// The rows each benchmark contributes to bench/RESULTS.md. bench/run-all.ts (npm run bench) runs
// every benchmark in its own process with BENCH_SUMMARY_FILE set and writes RESULTS.md from the rows;
// a benchmark run alone (npx tsx bench/<name>.ts) only writes its own results file.
import fs from 'node:fs';

export interface SummaryRow {
  /** What was measured, with its conditions ("LLM client + cache: cache hit, median"). */
  benchmark: string;
  target: string;
  measured: string;
  /** The per-benchmark results file, relative to bench/ ("results-llm.md"). */
  file: string;
}

export function reportRows(rows: SummaryRow[]): void {
  const file = process.env.BENCH_SUMMARY_FILE;
  if (file) fs.appendFileSync(file, rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
}

/**
 * Writes a benchmark's results file: the generated part, then the file's hand-written `## Notes`
 * section (from that heading to the end) carried over from the previous version, if it has one.
 */
export function writeResultsFile(file: string, generated: string): void {
  const old = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const at = old.search(/^## Notes\b/m);
  fs.writeFileSync(file, at < 0 ? generated : `${generated.replace(/\n*$/, '\n\n')}${old.slice(at)}`);
}

/**
 * RESULTS.md after a run of some benchmarks only (`npm run bench -- report`): the table rows of those
 * benchmarks' results files replaced by the new rows (in place, the others kept as they are), and one
 * line per file saying when and under what load its rows were measured. Pure.
 */
export function replaceRows(results: string, files: readonly string[], rows: readonly SummaryRow[], when: string): string {
  const lines = results.split('\n');
  const ours = (l: string) => files.some((f) => l.startsWith('| ') && l.endsWith(`| [${f}](${f}) |`));
  const fresh = rows.map((r) => `| ${r.benchmark} | ${r.target} | ${r.measured} | [${r.file}](${r.file}) |`);
  let at = lines.findIndex(ours);
  if (at < 0) {
    // No rows of these files yet: after the first table's last row.
    const head = lines.findIndex((l) => l.startsWith('|---'));
    at = head < 0 ? lines.length : head + 1;
    while (at < lines.length && lines[at]!.startsWith('| ')) at++;
  }
  const kept = lines.filter((l, i) => i < at || !ours(l));
  kept.splice(at, 0, ...fresh);
  const stamp = (f: string) => `Rows from ${f}: ${when}.`;
  for (const f of files) {
    const old = kept.findIndex((l) => l.startsWith(`Rows from ${f}:`));
    if (old >= 0) kept[old] = stamp(f);
    else {
      const details = kept.findIndex((l) => l.startsWith('Details, commands and notes'));
      kept.splice(details < 0 ? 1 : details + 1, 0, stamp(f));
    }
  }
  return kept.join('\n');
}
