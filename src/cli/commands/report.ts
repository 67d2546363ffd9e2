// `react-repro report`: the paper's tables and figures for the runs given, ours beside the paper
// (md, csv, tex, html), the Table 2 label sheet and labelled table, or a run's trajectories.
import fs from 'node:fs';
import path from 'node:path';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { UserError, errorMessage, errorCode } from '../../errors.js';
import { loadRun, loadRuns, warnLine, type LoadOptions } from '../../report/load.js';
import { renderMarkdown } from '../../report/render-md.js';
import { renderTex, type TexRenderOptions } from '../../report/render-tex.js';
import { DEFAULT_TEX_PAGE, texPage, texPageNames, withPageSize, type TexPage } from '../../report/tex/page.js';
import { renderHtml, renderHtmlStream } from '../../report/render-html.js';
import { checkOutputPath, outputTarget, writeOutputFile } from '../../util/durable.js';
import { renderCsv } from '../../report/render-csv.js';
import { renderTrajectories } from '../../report/trajectories.js';
import { parseIndices } from '../../run/shard.js';
import { isRunFolder, MANIFEST_FILE } from '../../runlog/store.js';
import { defaultResultsDir } from '../../paths.js';
import { buildReport, type ReportContent, type ReportOptions } from '../../report/build.js';
import { benchmarkNames, getBenchmark } from '../../benchmarks/registry.js';
import type { Benchmark } from '../../benchmarks/types.js';
import { labelsToCsv, parseLabelsCsv } from '../../report/error-tags.js';
import { analysisLookup, labelSheetRows, sampleRuns, unanalysedBenchmarks } from '../../report/table2.js';
import { episodeCorrectness } from '../../report/correct.js';
import { groupRuns } from '../../report/grouping.js';
import type { RunView } from '../../report/model.js';
import { displayStream, forTerminal } from '../../util/terminal-text.js';
import { bytesText, countOf, thousands } from '../../util/numbers.js';
import { formatDuration } from '../../run/progress-view.js';
import { statusLine, type StatusLine } from '../status-line.js';
import { examplesEpilog, listPositional } from '../yargs-options.js';

export const FORMATS = ['md', 'csv', 'tex', 'html'] as const;
export type Format = (typeof FORMATS)[number];

/** Extensions that name one of the report's formats: the format, unless --format says otherwise (then an error). */
const EXTENSIONS: Record<string, Format> = {
  '.md': 'md',
  '.markdown': 'md',
  '.csv': 'csv',
  '.tex': 'tex',
  '.html': 'html',
  '.htm': 'html',
};

/**
 * Extensions of document and data formats the report does not write: Markdown under such a name
 * (report.pdf) would be a file no program opens as named, so it needs --format. Any other name
 * (report.txt, r.log, report-v1.2, a FIFO) is written Markdown, or the --format given, as always.
 */
const OTHER_FORMATS = new Set(
  [
    'pdf',
    'doc',
    'docx',
    'odt',
    'rtf',
    'epub',
    'ps',
    'eps',
    'json',
    'jsonl',
    'ndjson',
    'xls',
    'xlsx',
    'ods',
    'png',
    'jpg',
    'jpeg',
    'svg',
    'zip',
    'gz',
  ].map((e) => `.${e}`),
);

const EXTENSION_LIST = Object.keys(EXTENSIONS).join(' ');

/**
 * The output format: --format when given (written to --out whatever its name, unless the name's
 * extension is another format's); otherwise the format of the --out file's extension (EXTENSIONS);
 * otherwise md (stdout, or any other name), except for a name of a format the report does not write
 * (OTHER_FORMATS), which needs --format.
 */
export function resolveFormat(format: string | undefined, out: string | undefined): Format {
  if (format !== undefined && !(FORMATS as readonly string[]).includes(format))
    throw new UserError(`--format: expected md, csv, tex or html, got "${format}"`);
  const ext = out !== undefined ? path.extname(out).toLowerCase() : '';
  const implied = EXTENSIONS[ext];
  if (format !== undefined && implied !== undefined && implied !== format) {
    throw new UserError(`--format ${format} conflicts with --out ${out} (a ${ext} file): give one of them, or make them agree`);
  }
  if (format === undefined && OTHER_FORMATS.has(ext))
    throw new UserError(
      `--out ${out}: the report is not written as ${ext} (it writes md, csv, tex or html: ${EXTENSION_LIST}); give --format md|csv|tex|html to write one to this name`,
    );
  return (format as Format | undefined) ?? implied ?? 'md';
}

/**
 * `--trajectories` prints plain text, one format: a --format other than md (the default, which it
 * has always answered) or an --out named for another format (a report format's or one it does not
 * write) is an error, not a text file under a misleading name. Any other name is written the text.
 */
export function checkTrajectoriesFormat(format: string | undefined, out: string | undefined): void {
  const browser = 'the HTML report has a trajectory browser: react-repro report RUN_DIR --out report.html';
  if (format !== undefined && format !== 'md')
    throw new UserError(`--format ${format}: not with --trajectories, which prints plain text (leave --format out; ${browser})`);
  const ext = out !== undefined ? path.extname(out).toLowerCase() : '';
  const implied = EXTENSIONS[ext];
  if ((implied !== undefined && implied !== 'md') || OTHER_FORMATS.has(ext))
    throw new UserError(`--out ${out}: --trajectories prints plain text, not ${implied ?? ext} (name a .txt or .md file; ${browser})`);
}

export function render(content: ReportContent, format: Format, opts: TexRenderOptions = {}): string {
  switch (format) {
    case 'md':
      return renderMarkdown(content);
    case 'tex':
      return renderTex(content, opts);
    case 'html':
      return renderHtml(content);
    case 'csv':
      return renderCsv(content);
  }
}

/** Reads a labels CSV (report --labels). */
export function readLabels(file: string): ReportOptions['labels'] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UserError(`--labels ${file}: cannot read (${errorCode(e) ?? errorMessage(e)})`);
  }
  // Every registered benchmark's categories, so a message about a label lists those that fit.
  const categories = benchmarkNames().flatMap((n) => getBenchmark(n).errorAnalysis?.categories ?? []);
  return parseLabelsCsv(text, file, { categories });
}

export function renderReport(args: string[], format: string, opts: ReportOptions & LoadOptions = {}): string {
  const content = buildReport(loadRuns(args, { slim: true, ...opts }), benchmarkNames().map(getBenchmark), opts);
  return render(content, resolveFormat(format, undefined));
}

/**
 * Writes the Table 2 label sheet: every run of the analysed methods (--label-methods, else each
 * benchmark's own), 50 correct and 50 incorrect trajectories each (seeded), with automatic tags and
 * empty label and note columns. Refuses to overwrite a file (it may hold a person's labels). Returns a
 * one-line summary.
 */
export function writeLabelSheet(
  loaded: RunView[],
  file: string,
  methods: string[] | undefined,
  benchmarks: Benchmark[] = benchmarkNames().map(getBenchmark),
): string {
  const abs = labelSheetFile(file);
  const { runs } = groupRuns(loaded);
  const analysisOf = analysisLookup(benchmarks);
  const samples = sampleRuns(runs, analysisOf, episodeCorrectness(benchmarks), methods);
  const skipped = unanalysedBenchmarks(runs, analysisOf);
  const skippedText = skipped.length
    ? `; runs of ${skipped.map((n) => benchmarks.find((b) => b.name === n)?.title ?? n).join(', ')} are not analysed (the benchmark declares no error analysis)`
    : '';
  if (samples.length === 0) {
    const which = methods
      ? `of a method analysed (${methods.join(', ')}; see --label-methods)`
      : 'of a method its benchmark analyses (see --label-methods)';
    throw new UserError(`--label-sheet: none of the runs is ${which}${skippedText}`);
  }
  const rows = labelSheetRows(samples);
  writeOutputFile(abs, labelsToCsv(rows, { sheet: true }), { flag: '--label-sheet', what: 'the label sheet' });
  const keys = [...new Set(samples.flatMap((x) => x.analysis.categories.map((c) => c.key)))];
  return `wrote ${rows.length} trajectories of ${samples.length} run(s) to ${file}${skippedText}: fill each row's label with one of its label_choices (${keys.join(', ')}; success_* for a correct trajectory, failure_* for an incorrect one; README "Reports"), or label them in the HTML report's "Label Table 2" section, then \`react-repro report ... --labels ${file}\``;
}

/** Where --label-sheet writes: its folder exists and the file does not (it may hold a person's labels). */
function labelSheetFile(file: string): string {
  const abs = checkOutputPath(file, '--label-sheet');
  if (fs.existsSync(abs))
    throw new UserError(`--label-sheet ${file}: the file exists (it may hold labels); choose a new name or remove it`);
  return abs;
}

/**
 * The page --tex-page and --tex-page-size ask the LaTeX to be laid out for; undefined when neither is
 * given (the default page).
 */
export function texPageOf(name: unknown, size: unknown): TexPage | undefined {
  if (name === undefined && size === undefined) return undefined;
  if (Array.isArray(name) || Array.isArray(size))
    throw new UserError(`--${Array.isArray(name) ? 'tex-page' : 'tex-page-size'}: given more than once`);
  const base = texPage(name === undefined ? DEFAULT_TEX_PAGE : String(name));
  return size === undefined ? base : withPageSize(base, String(size));
}

function listOf(v: unknown): string[] {
  return String(v)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export const reportCommand: CommandModule = {
  command: 'report [runs..]',
  describe:
    "The paper's tables and figures (ours beside the paper's numbers) from run folders or a results folder; or --trajectories of a run",
  builder: (y: Argv) =>
    y
      .positional('runs', listPositional('Run folders, or a folder of runs', { shown: './results' }))
      .option('format', {
        type: 'string',
        choices: [...FORMATS],
        describe: `Output format [default: from the --out extension (${EXTENSION_LIST}), else md; an --out named for a format the report does not write (.pdf, .docx, .json...) needs --format, and a --format that contradicts the extension is an error]`,
      })
      .option('out', { type: 'string', describe: 'Write to this file instead of stdout (its folder must exist)' })
      .option('labels', {
        type: 'string',
        describe: "A labelled Table 2 sheet (CSV from --label-sheet): adds Table 2 with the paper's numbers beside ours",
      })
      .option('label-sheet', {
        type: 'string',
        describe:
          'Also write the Table 2 sample (50 correct + 50 incorrect trajectories per run, seeded) with automatic tags and empty label columns to this CSV',
      })
      .option('label-methods', {
        type: 'string',
        describe:
          "Methods whose runs Table 2 samples (comma list) [default: each benchmark's own, e.g. react,cot for HotpotQA and FEVER, as the paper]",
      })
      .option('tex-figure-tables', {
        type: 'boolean',
        describe: "With --format tex: also each figure's points as a table (the figures are pgfplots plots either way)",
      })
      .option('tex-page', {
        type: 'string',
        describe: `With --format tex: the page the tables are laid out for (widths, height, type size): ${texPageNames().join(', ')} [default: ${DEFAULT_TEX_PAGE}: two 3.25in columns in 6.75in, 10pt; acl (also emnlp, naacl): two 7.7cm columns in 16cm, 11pt; iclr, neurips: one 5.5in column, 10pt]`,
      })
      .option('tex-page-size', {
        type: 'string',
        describe:
          'With --format tex: change the --tex-page page, e.g. columnwidth=3.3in,textwidth=7in,textheight=9.25in,font=10pt (lengths in pt, bp, in, cm, mm or pc; font 10pt, 11pt or 12pt)',
      })
      .option('trajectories', {
        type: 'string',
        describe:
          'Print the trajectories (traj) of this run folder instead, as plain text (to stdout or --out); with it, a --format other than md, or an --out ending in .csv .tex .html or .htm, is an error',
      })
      .option('indices', { type: 'string', describe: 'With --trajectories: only these item indices (comma list)' })
      .epilog(
        examplesEpilog([
          ['$0 report results --out report.html', 'the whole results folder as one self-contained web page (format from the extension)'],
          [
            '$0 report results --format tex --out tables.tex',
            'booktabs tables and pgfplots figures for a two-column paper (preamble: booktabs, pgfplots)',
          ],
          ['$0 report results --out tables.tex --tex-page acl', 'the same, laid out for an ACL/EMNLP paper (two 7.7cm columns, 11pt)'],
          ['$0 report results --label-sheet labels.csv', 'write the Table 2 sample to label; then: report results --labels labels.csv'],
          // RUN_ID, not <run-id>: a shell reads "<" as a redirection
          ['$0 report --trajectories results/RUN_ID --indices 3522', "read one trajectory (3522: offline500's first question)"],
        ]),
      ),
  handler: (argv: ArgumentsCamelCase) => {
    const out = argv.out !== undefined ? String(argv.out) : undefined;
    const asked = argv.format !== undefined ? String(argv.format) : undefined;
    // Checked before anything is read or written: a refused name leaves no file behind.
    if (argv.trajectories !== undefined) checkTrajectoriesFormat(asked, out);
    const format = argv.trajectories !== undefined ? 'md' : resolveFormat(asked, out);
    const outFile = out !== undefined ? checkOutputPath(out, '--out') : undefined;
    let text: string;
    if (argv.trajectories !== undefined) {
      for (const f of ['labels', 'labelSheet', 'labelMethods', 'texFigureTables', 'texPage', 'texPageSize'] as const)
        if (argv[f] !== undefined) throw new UserError(`--${f.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: not with --trajectories`);
      const dir = path.resolve(String(argv.trajectories));
      if (!isRunFolder(dir)) throw new UserError(`--trajectories: ${argv.trajectories} is not a run folder (no ${MANIFEST_FILE})`);
      // model answers and observations are data: no control sequence reaches a terminal
      text = forTerminal(renderTrajectories(loadRun(dir), argv.indices !== undefined ? parseIndices(String(argv.indices)) : undefined));
    } else {
      if (argv.indices !== undefined) throw new UserError('--indices: only with --trajectories');
      const runs = (argv.runs as string[] | undefined)?.length ? (argv.runs as string[]).map(String) : [defaultResultsDir()];
      const labelMethods = argv.labelMethods !== undefined ? listOf(argv.labelMethods) : undefined;
      if (labelMethods !== undefined && labelMethods.length === 0)
        throw new UserError('--label-methods: expected a comma list of methods, e.g. react,cot');
      const labels = argv.labels !== undefined ? readLabels(String(argv.labels)) : undefined;
      if (argv.texFigureTables !== undefined && format !== 'tex')
        throw new UserError('--tex-figure-tables: only with --format tex (or an --out file ending in .tex)');
      for (const f of ['texPage', 'texPageSize'] as const)
        if (argv[f] !== undefined && format !== 'tex')
          throw new UserError(
            `--${f === 'texPage' ? 'tex-page' : 'tex-page-size'}: only with --format tex (or an --out file ending in .tex)`,
          );
      const page = texPageOf(argv.texPage, argv.texPageSize);
      // Checked again as it is written; here so that a mistake does not wait for every folder to be read.
      if (argv.labelSheet !== undefined) labelSheetFile(String(argv.labelSheet));
      // On a terminal, the stage and how far it is; only when the report goes to a file, not over a
      // report on that terminal or in a pager reading it (nor through --out /dev/stdout or a pipe).
      const status = statusLine(displayStream(process.stderr), {
        enabled: outFile !== undefined ? outputTarget(outFile, '--out').kind === 'replace' : stdoutIsFile(),
      });
      try {
        const started = Date.now();
        let episodes = 0;
        // Slim records: trajectories are read back from the run folders as the page is written.
        const loaded = loadRuns(runs, {
          slim: true,
          warn: (line) => (status.clear(), warnLine(line)),
          onFolder: (done, of, n) => {
            episodes = n;
            status.show(`report: reading run folders: ${thousands(done)} of ${thousands(of)} (${countOf(n, 'episode')})`, done === of);
          },
        });
        if (argv.labelSheet !== undefined) {
          status.show('report: writing the label sheet…', true);
          const said = writeLabelSheet(loaded, String(argv.labelSheet), labelMethods);
          status.clear();
          process.stderr.write(`react-repro: ${said}\n`);
        }
        status.show(`report: tables and statistics of ${countOf(loaded.length, 'run')} (${countOf(episodes, 'episode')})…`, true);
        const content = buildReport(loaded, benchmarkNames().map(getBenchmark), { labels, ...(labelMethods ? { labelMethods } : {}) });
        // Written piece by piece: a sweep's page is larger than one string may be.
        const chunks = counted(
          format === 'html'
            ? renderHtmlStream(content)
            : [render(content, format, { figureTables: argv.texFigureTables === true, ...(page ? { page } : {}) })],
          status,
        );
        if (outFile !== undefined) writeOutputFile(outFile, chunks, { flag: '--out', what: 'the report' });
        else for (const c of chunks) process.stdout.write(c);
        status.clear();
        if (status.enabled && outFile !== undefined) {
          const took = formatDuration(Math.round((Date.now() - started) / 1000));
          const what = `${countOf(loaded.length, 'run')}, ${countOf(episodes, 'episode')}, ${bytesText(chunks.bytes())}`;
          process.stderr.write(`react-repro: wrote ${forTerminal(out!, { oneLine: true })}: ${what} in ${took}\n`);
        }
        return;
      } finally {
        status.clear(); // an error's message starts on a clean line
      }
    }
    if (outFile !== undefined) writeOutputFile(outFile, text, { flag: '--out', what: 'the trajectories' });
    else process.stdout.write(text);
  },
};

/** True when standard output is a regular file (`report ... > tables.md`). */
function stdoutIsFile(): boolean {
  try {
    return fs.fstatSync(1).isFile();
  } catch {
    return false;
  }
}

/** The report's pieces as they pass, their size so far on the status line. */
function counted(chunks: Iterable<string>, status: StatusLine): Iterable<string> & { bytes(): number } {
  let bytes = 0;
  return {
    bytes: () => bytes,
    *[Symbol.iterator]() {
      for (const c of chunks) {
        bytes += Buffer.byteLength(c);
        status.show(`report: writing the report: ${bytesText(bytes)}`);
        yield c;
      }
    },
  };
}
