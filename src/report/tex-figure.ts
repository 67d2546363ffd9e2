// A report figure (Figure 2: score against the number of CoT-SC samples) as a pgfplots line plot in a
// one-column `figure` float: one line per series, marks that stay apart in black and white, the
// reference lines dashed, the legend under the axis; short caption, notes as a \footnotesize block.
// Preamble: \usepackage{pgfplots} \pgfplotsset{compat=1.16} (TeX Live's pgfplots; Debian:
// texlive-pictures). The points can also be given as a table (report --tex-figure-tables).
import type { ReportFigure } from './model.js';
import { captionText } from './tex/caption.js';
import { texEscape, texEscapeBreakable } from './tex/escape.js';
import { texNotes } from './tex/notes.js';

export const PGFPLOTS_PREAMBLE = '\\usepackage{pgfplots} \\pgfplotsset{compat=1.16}';

const SERIES_STYLE = [
  'solid, mark=*',
  'solid, mark=square*',
  'solid, mark=triangle*, mark size=2.5pt',
  'solid, mark=diamond*',
  'solid, mark=pentagon*',
];
const REF_STYLE = ['dashed', 'densely dotted', 'dashdotted', 'loosely dashed'];

/** A number for pgfplots: plain decimal, at most three places. */
const num = (v: number) => String(Math.round(v * 1000) / 1000);

/** x ticks: every sample count up to 10, else 1 and the multiples of 5. */
function xTicks(xs: number[]): number[] {
  const max = Math.max(...xs);
  if (max <= 10) return xs;
  return [1, ...Array.from({ length: Math.floor(max / 5) }, (_, i) => 5 * (i + 1))];
}

export function texFigure(f: ReportFigure, opts: { placement?: string } = {}): string | null {
  const series = f.series
    .map((s) => ({ ...s, points: s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y)) }))
    .filter((s) => s.points.length);
  if (!series.length) return null;
  const xs = [...new Set(series.flatMap((s) => s.points.map((p) => p[0])))].sort((a, b) => a - b);
  const refs = f.refs.filter((r) => Number.isFinite(r.y));
  const ys = [...series.flatMap((s) => s.points.map((p) => p[1])), ...refs.map((r) => r.y)];
  const lo = Math.max(0, Math.floor(Math.min(...ys) / 5) * 5 - 5);
  const hi = Math.min(100, Math.ceil(Math.max(...ys) / 5) * 5 + 5);
  const [x0, x1] = [xs[0], xs.at(-1)!];
  const entries = series.length + refs.length;
  const axis = [
    'width=0.88\\columnwidth, height=0.6\\columnwidth',
    `xmin=${num(x0 - 0.5)}, xmax=${num(x1 + 0.5)}, ymin=${lo}, ymax=${hi}`,
    `xtick={${xTicks(xs).join(',')}}`,
    `xlabel={${texEscape(f.xLabel)}}, ylabel={${texEscape(f.yLabel)} (\\%)}`,
    'tick label style={font=\\footnotesize}, label style={font=\\small}',
    `legend style={font=\\footnotesize, at={(0.5,-0.3)}, anchor=north, legend columns=${Math.min(2, entries)}, /tikz/every even column/.append style={column sep=0.6em}}`,
  ];
  const plots = [
    ...series.flatMap((s, i) => [
      `\\addplot[${SERIES_STYLE[i % SERIES_STYLE.length]}] coordinates {${s.points.map(([x, y]) => `(${num(x)},${num(y)})`).join(' ')}};`,
      `\\addlegendentry{${texEscape(s.name)}}`,
    ]),
    ...refs.flatMap((r, i) => [
      `\\addplot[${REF_STYLE[i % REF_STYLE.length]}, gray, no markers] coordinates {(${num(x0 - 0.5)},${num(r.y)}) (${num(x1 + 0.5)},${num(r.y)})};`,
      `\\addlegendentry{${texEscape(r.name)}}`,
    ]),
  ];
  const label = f.id.replace(/[^A-Za-z0-9:._-]/g, '-');
  return [
    `\\begin{figure}[${opts.placement ?? 't'}]`,
    '\\centering',
    '\\begin{tikzpicture}',
    `\\begin{axis}[\n  ${axis.join(',\n  ')}\n]`,
    ...plots,
    '\\end{axis}',
    '\\end{tikzpicture}',
    `\\caption{${texEscapeBreakable(captionText(f.title))}}`,
    `\\label{fig:${label}}`,
    texNotes(f.notes),
    '\\end{figure}',
  ]
    .filter((l): l is string => l !== null)
    .join('\n');
}
