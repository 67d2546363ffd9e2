// Columns too many for the page even wrapped (README "Reports"): set as several tabulars stacked in
// the float, each repeating the row labels, rather than one tabular scaled down to an illegible size
// (Table 1 with six column groups came out at 3.5pt).
import type { ReportColumn, ReportTable } from '../model.js';
import { fitColumns, wideTries } from './fit-columns.js';
import type { TexLayout } from './layout.js';
import { lineColumns, type LineSpec } from './line-columns.js';
import type { TexOptions } from './options.js';
import { estimateWidthPt } from './width-estimate.js';

/**
 * The columns in the pieces a part may take: a column group whole, a score with its interval (the
 * "95% CI" column after it); `split`: a group in its pieces too.
 */
function columnUnits(cols: ReportColumn[], split = false): ReportColumn[][] {
  const units: ReportColumn[][] = [];
  for (const c of cols) {
    const last = units.at(-1);
    const prev = last?.at(-1);
    const sameGroup = !split && c.group !== undefined && prev?.group === c.group;
    const itsInterval = prev !== undefined && c.key === `${prev.key}.ci`;
    if (last && (sameGroup || itsInterval)) last.push(c);
    else units.push([c]);
  }
  return units;
}

/**
 * Columns too many for the page side by side, in the fewest tabulars that each fit across both columns
 * (one under the other, each with the row labels and the columns that identify rows), as even as they
 * can be; null when one column group (or one column) alone is too wide.
 */
export function chunkColumns(t: ReportTable, cols: ReportColumn[], opts: TexOptions, text: number): TexLayout | null {
  const lines: LineSpec = { columns: lineColumns(t, opts), maxPt: text };
  // Columns that tell rows apart with their labels (Table 1's Model: "CoT" of model a and of model b)
  // come first in every part.
  const lead = cols.filter((c) => c.identifies);
  const rest = cols.filter((c) => !c.identifies);
  const fits = (part: ReportColumn[]) => fitColumns(t, part, opts, wideTries(text), text);
  const fitsAlone = (u: ReportColumn[]) => fits([...lead, ...u]);
  let units = columnUnits(rest);
  if (units.some((u) => !fitsAlone(u))) units = columnUnits(rest, true);
  if (units.length < 2 || units.some((u) => !fitsAlone(u))) return null;
  const m = units.length;
  const slice = (i: number, j: number) => [...lead, ...units.slice(i, j).flat()];
  // Of the partitions into the fewest parts, the one with (in this order) the fewest parts whose text
  // columns must wrap, the fewest cuts between two like units (two scores, two text columns of no
  // group: a cut between text and scores, or between two column groups, keeps what is read together),
  // and the narrowest widest part.
  const kind = (u: ReportColumn[]) => `${u[0].numeric ? 'n' : 't'}|${u[0].group ?? ''}`;
  const cut = (i: number) => (i > 0 && i < m && kind(units[i - 1]) === kind(units[i]) ? 1 : 0);
  type Cost = [wraps: number, cuts: number, width: number];
  const less = (a: Cost, b: Cost) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
  const memo = new Map<string, Cost | null>();
  const span = (i: number, j: number): Cost | null => {
    const key = `${i}:${j}`;
    if (!memo.has(key)) {
      const part = slice(i, j);
      const l = fits(part);
      memo.set(key, l && [l.wrapPt ? 1 : 0, cut(i), estimateWidthPt(t, part, 'footnotesize', 3, {}, lines)]);
    }
    return memo.get(key)!;
  };
  // How far a part starting at unit i may reach: adding columns never narrows a part, so past the first
  // span that does not fit none does (measured once, not for every pair of cuts).
  const reach = units.map((_, i) => {
    let j = i + 1;
    while (j < m && span(i, j + 1)) j++;
    return j;
  });
  // The fewest parts there can be: as many as filling each part as far as it reaches takes.
  let fewest = 0;
  for (let i = 0; i < m; i = reach[i]) fewest++;
  // best[p][j]: the least cost of setting the first j units in p parts (null: cannot).
  for (let k = Math.max(2, fewest); k <= m; k++) {
    const best: (Cost | null)[][] = [[[0, 0, 0], ...Array<null>(m).fill(null)]];
    const from: number[][] = [[]];
    for (let p = 1; p <= k; p++) {
      best.push(Array<Cost | null>(m + 1).fill(null));
      from.push(Array<number>(m + 1).fill(-1));
      for (let j = p; j <= m; j++)
        for (let i = p - 1; i < j; i++) {
          if (j > reach[i]) continue;
          const before = best[p - 1][i];
          const s = before && span(i, j);
          if (!before || !s) continue;
          const c: Cost = [before[0] + s[0], before[1] + s[1], Math.max(before[2], s[2])];
          const cur = best[p][j];
          if (!cur || less(c, cur) < 0) {
            best[p][j] = c;
            from[p][j] = i;
          }
        }
    }
    if (!best[k][m]) continue;
    const bounds: [number, number][] = [];
    for (let p = k, j = m; p > 0; p--) {
      const i = from[p][j];
      bounds.unshift([i, j]);
      j = i;
    }
    const parts = bounds.map(([i, j]) => slice(i, j));
    // The largest type every part fits at without wrapping; else \footnotesize, each part wrapping as it needs.
    const common = wideTries(text).find(([, size, sep, limit]) => parts.every((p) => estimateWidthPt(t, p, size, sep, {}, lines) <= limit));
    const layouts = parts.map((p) =>
      common
        ? {
            env: 'table*' as const,
            size: common[1],
            tabcolsepPt: common[2],
            widthPt: estimateWidthPt(t, p, common[1], common[2], {}, lines),
            scale: false,
          }
        : fits(p)!,
    );
    const [size, sep] = common ? [common[1], common[2]] : (['footnotesize', 3] as const);
    return {
      env: 'table*',
      size,
      tabcolsepPt: sep,
      widthPt: Math.max(...layouts.map((l) => l.widthPt)),
      scale: false,
      parts: parts.map((p, i) => ({ keys: p.map((c) => c.key), layout: { ...layouts[i], size, tabcolsepPt: sep } })),
    };
  }
  return null;
}
