// A table of the report as LaTeX floats a researcher can paste into a two-column paper (README
// "Reports"): short caption (caption.ts), the tabular or its stacked tabulars (tabular.ts) in the float
// layout.ts chooses, the notes (notes.ts); a table taller than a page in parts (pagination.ts).
import type { ReportTable } from '../model.js';
import { captionText } from './caption.js';
import { texEscapeBreakable } from './escape.js';
import type { TexUnit } from './height-estimate.js';
import { chooseLayout } from './layout.js';
import { lineColumns } from './line-columns.js';
import { texNotes } from './notes.js';
import { texLength, type TexOptions } from './options.js';
import { packUnits, splitRows } from './pagination.js';
import { texTabular } from './tabular.js';

/** What the float sets before its tabulars when cells wrap: no hyphenation, no break after a hyphen. */
const NO_HYPHENATION = '\\hyphenpenalty=10000 \\exhyphenpenalty=10000';

/**
 * One float (or, for a table taller than a page, one per part): short caption, the tabular in `table`
 * or `table*` (or its tabulars, one under the other, when its columns do not fit side by side), then
 * the notes; label tab:<id>.
 */
export function texTable(t: ReportTable, opts: TexOptions = {}): string {
  const layout = chooseLayout(t, opts);
  const label = t.id.replace(/[^A-Za-z0-9:._-]/g, '-');
  const { floats, tall } = layout.parts
    ? packUnits(t, layout, opts)
    : { floats: splitRows(t, layout, opts).map((rows): TexUnit[] => [{ table: { ...t, rows }, layout }]), tall: false };
  return floats
    .map((units, i) => {
      const caption = captionText(t.title) + (floats.length > 1 ? `, part ${i + 1} of ${floats.length}` : '');
      const last = i === floats.length - 1;
      // Paragraphs in cells or under rows: no hyphenation (set in a group, so the notes keep theirs).
      const noHyphens = units.some((u) => u.layout.wrapPt) || lineColumns(t, opts).length > 0;
      const group = layout.size !== 'normalsize' || noHyphens;
      const tabulars = units.map((u) => {
        const tabular = texTabular(u.table, opts, u.layout);
        return u.layout.scale ? `\\resizebox{\\textwidth}{!}{%\n${tabular}}` : tabular;
      });
      return [
        `\\begin{${layout.env}}[${opts.placement ?? (floats.length > 1 || tall ? 'tp' : 't')}]`,
        '\\centering',
        // A table in parts keeps one number: each continuation takes its first part's.
        i > 0 ? '\\addtocounter{table}{-1}' : null,
        `\\caption{${texEscapeBreakable(caption)}}`,
        `\\label{tab:${label}${i ? `-part${i + 1}` : ''}}`,
        '\\smallskip',
        group ? `{${layout.size === 'normalsize' ? '' : `\\${layout.size}`}` : null,
        layout.tabcolsepPt === 6 ? null : `\\setlength{\\tabcolsep}{${texLength(layout.tabcolsepPt, opts)}}`,
        noHyphens ? NO_HYPHENATION : null,
        tabulars.join('\n\\par\\medskip\n'),
        group ? '}' : null,
        last ? texNotes(t.notes) : null,
        `\\end{${layout.env}}`,
      ]
        .filter((l): l is string => l !== null)
        .join('\n');
    })
    .join('\n\n');
}
