// LaTeX: every table of the report as a booktabs float that fits a two-column page (tex.ts chooses
// table or table*, the font size and column gap; run ids are left out), figures as tables of points.
import type { ReportContent } from './build.js';
import { expandIntervals, figureTable } from './display.js';
import { renderTexTables } from './tex.js';

export function renderTex(c: ReportContent): string {
  const tables = [...c.tables, ...c.figures.map(figureTable), ...c.sections.flatMap((s) => s.tables), c.runsTable];
  // LaTeX holds at most 18 floats waiting for a place: a long report needs room (or \clearpage between its tables).
  const note = tables.length > 12 ? `% ${tables.length} tables: with more than 18 floats pending LaTeX stops ("Too many unprocessed floats"); \\usepackage{morefloats} or a \\clearpage between them helps.\n` : '';
  return renderTexTables(tables.map(expandIntervals)).replace(/\n/, `\n${note}`);
}
