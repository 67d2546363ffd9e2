// What a caller may ask of the LaTeX tables (README "Reports"), and the page they are set for by default:
// the usual two-column paper.

/** Widths of the standard two-column layouts (pt; 1in = 72.27pt): e.g. ACL/ICLR-style 3.25in / 6.75in. */
export const COLUMN_WIDTH_PT = 3.25 * 72.27;
export const TEXT_WIDTH_PT = 6.75 * 72.27;

/** Text height of the usual two-column page (9in), pt. */
export const TEXT_HEIGHT_PT = 9 * 72.27;

export interface TexOptions {
  /** Column keys to leave out, besides run ids. */
  omitColumns?: string[];
  /** Float placement; default "t". */
  placement?: string;
  /** Target widths in pt (defaults: 3.25in column, 6.75in text). */
  columnWidthPt?: number;
  textWidthPt?: number;
  /** Text height in pt (default 9in): a table taller than a float may be is set in parts. */
  textHeightPt?: number;
  /**
   * Columns set on a line of their own under each row ("Run: <run id>", "Source: ..."), across the
   * tabular, rather than as columns: a long identifier kept whole, a long text as a paragraph the
   * width of the table. A line whose cell is empty is left out.
   */
  lineColumns?: string[];
}
