// "Published elsewhere": the numbers of the anchors file (data/anchors/published-numbers.json) for the
// benchmarks reported that no table put beside ours: class B and C (another tool, protocol or subset),
// and class-A figures of other models or from a second source. Never in a column of ours (README "Reports").
import type { Anchor, AnchorBook } from './anchors.js';
import { anchorCitation, anchorProvenance } from './anchors.js';
import type { ReportTable } from './model.js';
import type { MethodLabelOf, TitleOf } from './names.js';

/** A metric key as the benchmark names it (FEVER's "em" is "Acc"). */
export type MetricLabelOf = (benchmark: string, metric: string) => string;

function what(a: Anchor, labelOf: MetricLabelOf): string {
  return [labelOf(a.benchmark, a.metric), a.subset, a.stat].filter(Boolean).join(', ');
}

function caveat(a: Anchor): string {
  const parts: string[] = [];
  if (a.conflict) parts.push('conflicts with another source for the same setting');
  if (a.verification.status === 'unverified') parts.push('not re-checked at its source');
  if (a.note) parts.push(a.note);
  return parts.join('; ');
}

export function publishedElsewhereTable(
  book: AnchorBook,
  benchmarks: readonly string[],
  titleOf: TitleOf,
  methodLabel: MethodLabelOf,
  opts: { withErrorShares?: boolean; metricLabel?: MetricLabelOf } = {},
): ReportTable | null {
  const labelOf = opts.metricLabel ?? ((_b: string, m: string) => m);
  const anchors = book.notShown(benchmarks, opts);
  if (anchors.length === 0) return null;
  return {
    id: 'published-elsewhere',
    title: 'Published elsewhere',
    columns: [
      { key: 'benchmark', label: 'Benchmark', identifies: true },
      { key: 'model', label: 'Model', identifies: true },
      { key: 'metric', label: 'Metric' },
      { key: 'value', label: 'Value', numeric: true },
      { key: 'n', label: 'n' },
      { key: 'items', label: 'Items' },
      { key: 'class', label: 'Class' },
      { key: 'source', label: 'Source', underRow: true },
      { key: 'caveat', label: 'Caveat', underRow: true },
    ],
    rows: anchors.map((a) => ({
      label: methodLabel(a.benchmark, a.method),
      ...anchorProvenance(a),
      cells: {
        benchmark: titleOf(a.benchmark),
        model: a.model,
        metric: what(a, labelOf),
        value: a.value,
        n: a.n === null ? null : String(a.n),
        items: a.split,
        class: a.class,
        source: anchorCitation(a),
        caveat: caveat(a) || null,
      },
    })),
    notes: [
      `Numbers published for these benchmarks that are not in a column beside ours. ${(['A', 'B', 'C'] as const).map((c) => `Class ${c}: ${book.set.classes[c]}`).join(' ')}`,
      `Source file: ${book.set.file}; each row cites where the number was read.`,
    ],
  };
}
