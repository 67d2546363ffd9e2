// A run's scores on one line, labelled as its benchmark declared them ("EM 30.0, F1 41.2").
import type { MetricDef } from '../benchmarks/types.js';
import { fmt } from '../report/format.js';
import type { RunSummary } from '../runlog/schema.js';

export function scoresText(s: RunSummary, metrics?: MetricDef[]): string {
  const defs = metrics ?? Object.keys(s.metrics).map((key) => ({ key, label: key.toUpperCase() }));
  return defs.map((m) => `${m.label} ${fmt(s.metrics[m.key])}`).join(', ');
}
