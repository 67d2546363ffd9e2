// Paired comparisons of two methods on the same items (README "Reports"): the difference in points with its
// paired-bootstrap 95% interval and p-value, and for 0/1 metrics the exact McNemar test. Run per
// cohort (grouping.ts), on the items scored in both runs, for the pairs the cohort's benchmark
// declares worth a test (Benchmark.comparisons).
import type { Benchmark, MetricDef } from '../benchmarks/types.js';
import { cohortSentence, type Cohort } from './grouping.js';
import type { ReportRow, ReportTable, RunView } from './model.js';
import { cohortTitle, type MethodLabelOf, type TitleOf } from './names.js';
import { formatP } from '../util/numbers.js';
import { pairByItem, pairedComparison, seedFromText } from './stats.js';

/** The method pairs a benchmark declares worth a test, [first, second], by its name (none for one not given). */
export type ComparisonsOf = (benchmark: string) => NonNullable<Benchmark['comparisons']>;

export function comparisonsLookup(benchmarks: readonly Pick<Benchmark, 'name' | 'comparisons'>[]): ComparisonsOf {
  const byName = new Map(benchmarks.map((b) => [b.name, b.comparisons ?? []]));
  return (name) => byName.get(name) ?? [];
}

/** Runs of methods a and b to compare: same variant name, or every run of one side against a single run of the other. */
function pairsOf(as: RunView[], bs: RunView[]): [RunView, RunView][] {
  if (as.length === 1) return bs.map((b) => [as[0], b]);
  if (bs.length === 1) return as.map((a) => [a, bs[0]]);
  return as.flatMap((a) => bs.filter((b) => b.variant === a.variant).map((b): [RunView, RunView] => [a, b]));
}

/** Metrics to compare on: every declared one, except one that equals an earlier one on every item (FEVER's F1 = Acc). */
function distinctMetrics(metrics: readonly MetricDef[], runs: RunView[]): MetricDef[] {
  const same = (a: string, b: string) => runs.every((r) => r.records.every((x) => x.error || x.metrics[a] === x.metrics[b]));
  return metrics.filter((m, i) => !metrics.slice(0, i).some((p) => same(p.key, m.key)));
}

export function comparisonTables(
  cohorts: readonly Cohort[],
  aligned: readonly RunView[],
  metricsOf: (benchmark: string) => MetricDef[],
  comparisonsOf: ComparisonsOf,
  titleOf: TitleOf,
  methodLabel: MethodLabelOf,
): ReportTable[] {
  const label = (r: RunView) => methodLabel(r.manifest.task, r.manifest.method) + (r.variant ? ` (${r.variant})` : '');
  const tables: ReportTable[] = [];
  cohorts.forEach((c) => {
    const runs = aligned.filter((r) => r.cohort?.key === c.key);
    const byMethod = (m: string) => runs.filter((r) => r.manifest.method === m);
    const rows: ReportRow[] = [];
    for (const [ma, mb] of comparisonsOf(c.benchmark)) {
      for (const [a, b] of pairsOf(byMethod(ma), byMethod(mb))) {
        for (const m of distinctMetrics(metricsOf(c.benchmark), [a, b])) {
          const p = pairByItem(a.records, b.records, m.key);
          const cmp = pairedComparison(p.a, p.b, { seed: seedFromText(`${a.manifest.runId}|${b.manifest.runId}|${m.key}`) });
          rows.push({
            label: `${label(a)} − ${label(b)}`,
            source: 'ours',
            ref: `${a.manifest.runId} ${b.manifest.runId}`,
            cells: {
              metric: m.label,
              n: cmp.n,
              a: cmp.a,
              b: cmp.b,
              diff: cmp.diff,
              p: formatP(cmp.p),
              mcnemar: cmp.mcnemar ? `${cmp.mcnemar.onlyA}/${cmp.mcnemar.onlyB}, p ${formatP(cmp.mcnemar.p)}` : '—',
            },
            ci: { diff: { lo: cmp.lo, hi: cmp.hi } },
          });
        }
      }
    }
    if (rows.length === 0) return;
    tables.push({
      id: `comparisons-${tables.length + 1}`,
      title: `Comparisons: ${cohortTitle(c, titleOf)}`,
      columns: [
        { key: 'metric', label: 'Metric' },
        { key: 'n', label: 'n' },
        { key: 'a', label: 'First', numeric: true },
        { key: 'b', label: 'Second', numeric: true },
        { key: 'diff', label: 'Difference', numeric: true },
        { key: 'p', label: 'p (bootstrap)' },
        { key: 'mcnemar', label: 'McNemar (only first / only second)' },
      ],
      rows,
      notes: [
        `Split ${c.split}; ${cohortSentence(c, (id) => label(runs.find((r) => r.manifest.runId === id)!))}. Each pair is compared on the items scored in both.`,
        'Difference = first − second in points; 95% CI and p from a paired bootstrap (10,000 resamples of the items, seeded); McNemar: items only the first got right / only the second, exact two-sided p.',
      ],
    });
  });
  return tables;
}
