// The HTML report: the self-contained page of src/report/html (tables, SVG plots, the runs, and the
// trajectory browser with each run's few-shot prompt once), from the report's content.
import type { ReportContent } from './build.js';
import type { ReportFigure } from './model.js';
import { renderHtmlChunks, renderHtmlReport, type HtmlReportInput } from './html/render.js';
import { linePlotSvg } from './svg.js';
import { episodeTags } from './table2.js';
import { labellingData } from './html/labelling.js';

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
  return renderHtmlReport(htmlInput(c, opts));
}

/** The same page piece by piece (a report of any size: never one string). */
export function renderHtmlStream(c: ReportContent, opts: { generatedNote?: string } = {}): Generator<string> {
  return renderHtmlChunks(htmlInput(c, opts));
}

function htmlInput(c: ReportContent, opts: { generatedNote?: string }): HtmlReportInput {
  return {
    title: c.title,
    tables: c.tables,
    figures: c.figures.map((f) => ({ title: f.title, svg: figureSvg(f) })),
    sections: c.sections,
    runs: c.runs,
    runsTable: c.runsTable,
    notes: c.notes,
    // Outcome by the record's benchmark's rule (correct.ts); automatic tags by its Benchmark.errorAnalysis.
    isCorrect: c.isCorrect,
    extraTags: (run, r) => episodeTags(c.analysisOf, run, r),
    generatedNote: opts.generatedNote ?? c.summary,
    labelling: labellingData(c.samples, c.methodLabel),
  };
}
