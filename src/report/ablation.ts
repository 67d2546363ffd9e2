// Ablation tables (README "Reports"): runs of one method on the same items that differ in exactly one setting
// (the step limit, the number of exemplars, the sampling temperature, the model...), side by side, on
// the items scored in all of them, with each score's 95% interval and the paired difference to the
// first row.
import type { MetricDef } from '../benchmarks/types.js';
import { canonicalJson } from '../run/run-id.js';
import type { JsonValue } from '../util/json-fields.js';
import { commonScored, differingKeys, effectiveSettings, itemSetKey, restrictRun, settingText, type SettingValues } from './grouping.js';
import type { ReportColumn, ReportRow, ReportTable, RunView } from './model.js';
import type { MethodLabelOf, TitleOf } from './names.js';
import { pairByItem, pairedComparison, seedFromText } from './stats.js';
import { scoreCell } from './scores.js';

/** How the ablation's title names a setting (its flag name otherwise). */
const AXIS_NAMES: Record<string, string> = {
  maxSteps: 'step limit (--max-steps)',
  exemplars: 'number of exemplars (--exemplars)',
  scTemperature: 'sampling temperature (--sc-temperature)',
  samples: 'CoT-SC samples (--samples)',
  model: 'model',
  promptSet: 'prompt set (--prompt-set)',
};

/** A run's settings as ablation axes: its effective settings and its model. */
function axesOf(r: RunView): SettingValues {
  return { ...effectiveSettings(r), model: r.manifest.model };
}

/** Numbers (and numeric strings) ascending, then the rest in text order. */
function valueOrder(a: unknown, b: unknown): number {
  const na = Number(a);
  const nb = Number(b);
  const fa = a !== '' && a !== null && Number.isFinite(na);
  const fb = b !== '' && b !== null && Number.isFinite(nb);
  if (fa && fb) return na - nb;
  if (fa !== fb) return fa ? -1 : 1;
  return settingText(a).localeCompare(settingText(b));
}

export interface AblationFamily {
  axis: string;
  method: string;
  benchmark: string;
  split: string;
  /** One run per value of the axis, in value order. */
  runs: RunView[];
  values: JsonValue[];
  /** The settings all of them share (for the notes). */
  fixed: SettingValues;
}

/** Groups runs into families that differ in exactly one setting (same benchmark, split, item set and method). */
export function ablationFamilies(runs: readonly RunView[]): AblationFamily[] {
  const groups = new Map<string, RunView[]>();
  for (const r of runs) {
    if (r.manifest.kind === 'merge' && r.manifest.shard) continue;
    const k = canonicalJson([r.manifest.task, r.manifest.split, itemSetKey(r.manifest.indices), r.manifest.method]);
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  const out: AblationFamily[] = [];
  for (const rs of groups.values()) {
    if (rs.length < 2) continue;
    const axes = rs.map(axesOf);
    for (const axis of differingKeys(axes)) {
      const families = new Map<string, number[]>();
      axes.forEach((s, i) => {
        const { [axis]: _v, ...rest } = s;
        const key = canonicalJson(rest);
        families.set(key, [...(families.get(key) ?? []), i]);
      });
      for (const members of families.values()) {
        // One run per value (the first one given; equal settings with another run id add nothing here).
        const byValue = new Map<string, number>();
        for (const i of members) {
          const v = canonicalJson(axes[i][axis] ?? null);
          if (!byValue.has(v)) byValue.set(v, i);
        }
        if (byValue.size < 2) continue;
        const idx = [...byValue.values()].sort((a, b) => valueOrder(axes[a][axis], axes[b][axis]));
        const { [axis]: _v, ...fixed } = axes[idx[0]];
        const m = rs[0].manifest;
        out.push({
          axis,
          method: m.method,
          benchmark: m.task,
          split: m.split,
          runs: idx.map((i) => rs[i]),
          values: idx.map((i) => axes[i][axis]),
          fixed,
        });
      }
    }
  }
  return out;
}

export function ablationTables(
  runs: readonly RunView[],
  metricsOf: (benchmark: string) => MetricDef[],
  titleOf: TitleOf,
  methodLabel: MethodLabelOf,
): ReportTable[] {
  return ablationFamilies(runs).map((f, n) => {
    const metrics = metricsOf(f.benchmark);
    const primary = metrics[0];
    const planned = f.runs[0].manifest.indices;
    const common = commonScored(
      planned,
      f.runs.map((r) => r.records),
    );
    const aligned = f.runs.map((r) => restrictRun(r, common));
    const base = aligned[0];
    const columns: ReportColumn[] = [
      ...metrics.map((m) => ({ key: m.key, label: m.label, numeric: true })),
      { key: 'n', label: 'n' },
      { key: 'diff', label: `Δ ${primary.label} vs ${settingText(f.values[0])}`, numeric: true },
      { key: 'run', label: 'Run' },
    ];
    const rows: ReportRow[] = aligned.map((r, i) => {
      const cells: ReportRow['cells'] = {};
      const ci: NonNullable<ReportRow['ci']> = {};
      for (const m of metrics) {
        const s = scoreCell(r.records, m.key, r.manifest.runId);
        cells[m.key] = s.value;
        ci[m.key] = s.ci;
      }
      cells.n = r.records.filter((x) => !x.error).length;
      cells.run = r.manifest.runId;
      if (i === 0) cells.diff = null;
      else {
        const p = pairByItem(r.records, base.records, primary.key);
        const cmp = pairedComparison(p.a, p.b, { seed: seedFromText(`${r.manifest.runId}|${base.manifest.runId}|${primary.key}`) });
        cells.diff = cmp.diff;
        ci.diff = { lo: cmp.lo, hi: cmp.hi };
      }
      return { label: `${f.axis} ${settingText(f.values[i])}`, source: 'ours', ref: r.manifest.runId, cells, ci };
    });
    const left = f.runs
      .map((r) => {
        const errs = r.records.filter((x) => x.error).length;
        const missing = planned.length - r.records.length;
        return errs || missing
          ? `${f.axis} ${settingText(f.values[f.runs.indexOf(r)])}: ${[errs ? `${errs} error${errs > 1 ? 's' : ''}` : '', missing > 0 ? `${missing} not run` : ''].filter(Boolean).join(', ')}`
          : '';
      })
      .filter(Boolean);
    const fixed = Object.entries(f.fixed)
      .map(([k, v]) => `${k} ${settingText(v)}`)
      .join(', ');
    return {
      id: `ablation-${n + 1}`,
      title: `Ablation: ${AXIS_NAMES[f.axis] ?? f.axis}, ${methodLabel(f.benchmark, f.method)} on ${titleOf(f.benchmark)}${f.axis === 'model' ? '' : ` (${settingText(f.fixed.model)})`}`,
      columns,
      rows,
      notes: [
        `Split ${f.split}; n = ${common.length} items scored in all ${f.runs.length} runs (of ${new Set(planned).size} planned${left.length ? `; left out: ${left.join('; ')}` : ''}). The runs differ only in ${f.axis}.`,
        `Other settings: ${fixed || '(none)'}.`,
        'Scores with 95% bootstrap intervals; Δ = this row − the first row on the same items, with its paired-bootstrap 95% interval.',
      ],
    };
  });
}
