// What a caller may ask of the LaTeX tables (README "Reports"), and the page they are set for by default:
// ICML's two columns at 10pt (page.ts has the other templates' pages, report --tex-page).

/** Widths of the default page (pt; 1in = 72.27pt): ICML's 3.25in columns in 6.75in of text (icml2024.sty). */
export const COLUMN_WIDTH_PT = 3.25 * 72.27;
export const TEXT_WIDTH_PT = 6.75 * 72.27;

/** Text height of the default page (9in), pt. */
export const TEXT_HEIGHT_PT = 9 * 72.27;

export interface TexOptions {
  /** Column keys to leave out, besides run ids. */
  omitColumns?: string[];
  /** Float placement; default "t". */
  placement?: string;
  /**
   * Target widths in pt at 10pt type (defaults: 3.25in column, 6.75in text); a page in larger type
   * gives them divided by lengthScale (page.ts pageOptions).
   */
  columnWidthPt?: number;
  textWidthPt?: number;
  /** Text height in pt (default 9in): a table taller than a float may be is set in parts. */
  textHeightPt?: number;
  /**
   * How much larger than 10pt the page's type is (11pt: 1.095): the lengths written into the LaTeX
   * (paragraph boxes, column gaps) are the layout's times this. Default 1.
   */
  lengthScale?: number;
  /**
   * Columns set on a line of their own under each row ("Run: <run id>", "Source: ..."), across the
   * tabular, rather than as columns: a long identifier kept whole, a long text as a paragraph the
   * width of the table. A line whose cell is empty is left out.
   */
  lineColumns?: string[];
}

/** A length of the layout (pt at 10pt type) as written for the page: unchanged at 10pt. */
export function texLength(pt: number, opts: TexOptions): string {
  const s = opts.lengthScale ?? 1;
  return s === 1 ? `${pt}pt` : `${Math.round(pt * s * 100) / 100}pt`;
}
