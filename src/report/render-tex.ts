// LaTeX: every table of the report as a booktabs float that fits the page asked for (tex/page.ts: by
// default ICML's two 10pt columns; tex/layout.ts chooses table or table*, the font size and column
// gap, and sets columns too many for the page in several tabulars; run ids are left out of the
// paper's tables, the Runs table gives each run's id on a line under its row, and "Published
// elsewhere" each number's source and caveat), each figure as a pgfplots plot (tex-figure.ts) and, on
// request, also as the table of its points. Order: the paper's tables, the figures, the sections'
// tables, the runs.
import type { ReportContent } from './build.js';
import { expandIntervals, figureTable } from './display.js';
import type { ReportTable } from './model.js';
import { texHead } from './tex/document.js';
import { texTable } from './tex/float.js';
import type { TexOptions } from './tex/options.js';
import { pageComment, pageOptions, type TexPage } from './tex/page.js';
import { PGFPLOTS_PREAMBLE, texFigure } from './tex-figure.js';

export interface TexRenderOptions {
  /** Also each figure's points as a table (report --tex-figure-tables). */
  figureTables?: boolean;
  /** The page the tables are laid out for (report --tex-page); default ICML's two 10pt columns. */
  page?: TexPage;
}

export function renderTex(c: ReportContent, opts: TexRenderOptions = {}): string {
  const figures = c.figures.map((f) => texFigure(f)).filter((f): f is string => f !== null);
  // A figure's table heads its row labels with the x axis, as the Markdown report does.
  const figureTabs = opts.figureTables ? c.figures.map((f) => expandIntervals({ ...figureTable(f), rowHeader: f.xLabel })) : [];
  const first = c.tables.map(expandIntervals);
  const rest = [...c.sections.flatMap((s) => s.tables), c.runsTable].map(expandIntervals);
  // Columns the table says go under the row (ReportColumn.underRow: the Runs table's run id, a published
  // number's source and caveat, long texts that broke inside their words in narrow columns).
  const paged = opts.page ? pageOptions(opts.page) : {};
  const optsOf = (t: ReportTable): TexOptions => {
    const lineColumns = t.columns.filter((c) => c.underRow).map((c) => c.key);
    return lineColumns.length ? { ...paged, lineColumns } : paged;
  };
  const all = [...first, ...figureTabs, ...rest];
  const body = [
    ...first.map((t) => texTable(t, optsOf(t))),
    ...figures,
    ...figureTabs.map((t) => texTable(t, optsOf(t))),
    ...rest.map((t) => texTable(t, optsOf(t))),
  ];
  // (A table in parts is a float per part.)
  const floats = body.join('\n').match(/^\\begin\{(table\*?|figure)\}/gm)?.length ?? 0;
  // LaTeX holds at most 18 floats waiting for a place: a long report needs room (or \clearpage between its tables).
  const note =
    floats > 12
      ? [
          `% ${floats} floats: with more than 18 pending LaTeX stops ("Too many unprocessed floats"); \\extrafloats{${Math.max(100, Math.ceil(floats / 50) * 50)}} in the preamble (LaTeX 2015 or later) or a \\clearpage between them helps.`,
        ]
      : [];
  const head = texHead(all, optsOf, figures.length ? [PGFPLOTS_PREAMBLE] : []);
  // The page they were laid out for, after the preamble line (which stays the first: tools read it).
  const laidOut = opts.page ? pageComment(opts.page) : null;
  return [[head, ...(laidOut ? [laidOut] : []), ...note].join('\n'), ...body].join('\n\n') + '\n';
}
