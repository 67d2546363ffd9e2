// bench/support/summary.ts replaceRows: a run of some benchmarks only (`npm run bench -- report`)
// replaces their rows of bench/RESULTS.md in place and stamps when they were measured; every other
// row and hand-written section stays as it was.
import { describe, expect, it } from 'vitest';
import { replaceRows } from '../../bench/support/summary.js';

const RESULTS = [
  '# Benchmark results',
  '',
  'Machine: 2 cores.',
  'Details, commands and notes in the per-benchmark files.',
  '',
  '| benchmark | target | measured | file |',
  '|---|---|---|---|',
  '| CLI start | ≤ 4 × | 186 ms | [results-cli.md](results-cli.md) |',
  '| report 3,500 |  | 3.3 s | [results-report.md](results-report.md) |',
  '| report 140,000 |  | 45.4 s | [results-report.md](results-report.md) |',
  '| wiki build | ≥ 20,000 pages/s | 38,472 pages/s | [results-wiki.md](results-wiki.md) |',
  '',
  '## Start (by hand)',
  '',
  '| benchmark | target | measured | command |',
  '|---|---|---|---|',
  '| start | ≤ 0.25 s | 1.29 s | `npx tsx bench/start.ts` |',
  '',
].join('\n');

const row = (benchmark: string, measured: string) => ({ benchmark, target: '', measured, file: 'results-report.md' });

describe('replaceRows', () => {
  it("replaces one file's rows in place, stamps them, and keeps everything else", () => {
    const out = replaceRows(RESULTS, ['results-report.md'], [row('report 3,500', '2.0 s'), row('report 1,000,000', '300 s')], 'then');
    const lines = out.split('\n');
    expect(lines.slice(8, 12)).toEqual([
      '| CLI start | ≤ 4 × | 186 ms | [results-cli.md](results-cli.md) |',
      '| report 3,500 |  | 2.0 s | [results-report.md](results-report.md) |',
      '| report 1,000,000 |  | 300 s | [results-report.md](results-report.md) |',
      '| wiki build | ≥ 20,000 pages/s | 38,472 pages/s | [results-wiki.md](results-wiki.md) |',
    ]);
    expect(out).not.toContain('45.4 s');
    expect(lines[4]).toBe('Rows from results-report.md: then.');
    expect(out).toContain('## Start (by hand)\n\n| benchmark | target | measured | command |');
    // A second run replaces the stamp, not adds one.
    const again = replaceRows(out, ['results-report.md'], [row('report 3,500', '2.1 s')], 'later');
    expect(again.match(/Rows from results-report.md/g)).toHaveLength(1);
    expect(again).toContain('Rows from results-report.md: later.');
    expect(again).toContain('| report 3,500 |  | 2.1 s |');
    expect(again).not.toContain('300 s');
  });

  it("adds a file's first rows at the end of the first table", () => {
    const out = replaceRows(RESULTS, ['results-new.md'], [{ benchmark: 'new', target: '', measured: '1', file: 'results-new.md' }], 'now');
    const lines = out.split('\n');
    const at = lines.indexOf('| new |  | 1 | [results-new.md](results-new.md) |');
    expect(lines[at - 1]).toContain('results-wiki.md');
    expect(lines[at + 1]).toBe('');
  });
});
