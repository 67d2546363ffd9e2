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
