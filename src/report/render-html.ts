// The HTML report: the self-contained page of src/report/html (tables, SVG plots, the runs, and the
// trajectory browser with each run's few-shot prompt once), from the report's content.
import type { ReportContent } from './build.js';
import type { ReportFigure } from './model.js';
import { renderHtmlReport } from './html/render.js';
import { linePlotSvg } from './svg.js';
import { autoTags, type TaggableRecord } from './error-tags.js';
import { primaryMetric } from './table2.js';

/** A figure as an SVG line plot; its first note is the caption (what the points are computed on). */
export function figureSvg(f: ReportFigure): string {
  return linePlotSvg({
    xLabel: f.xLabel,
    yLabel: `${f.yLabel} (%)`,
    series: f.series.map((s) => ({ name: s.name, points: s.points.map(([x, y]) => ({ x, y })) })),
    refs: f.refs,
    caption: f.notes[0],
  });
}

export function renderHtml(c: ReportContent, opts: { generatedNote?: string } = {}): string {
  return renderHtmlReport({
    title: c.title,
    tables: c.tables,
    figures: c.figures.map((f) => ({ title: f.title, svg: figureSvg(f) })),
    sections: c.sections,
    runs: c.runs,
    runsTable: c.runsTable,
    notes: c.notes,
    primaryMetric: primaryMetric,
    // The browser's tag filter offers Table 2's automatic tags on every episode.
    extraTags: (_run, r) => (r.error ? [] : autoTags(r as unknown as TaggableRecord)),
    generatedNote: opts.generatedNote ?? c.summary,
  });
}
