// The one bridge from our option tables (src/options.ts) to yargs: only src/cli knows the parser.
import type { Options, PositionalOptions } from 'yargs';
import type { OptionTable } from '../options.js';

let helpText = true;

/**
 * Whether this invocation may print help. Without it, options are declared with their type, choices
 * and default only: yargs files every description, group and hidden flag into its usage tables as it
 * declares them, a cost paid on every run for text nobody reads (bench/start.ts measures it).
 */
export function setHelpText(wanted: boolean): void {
  helpText = wanted;
}

/** Whether these arguments ask yargs for text built from the descriptions (help, or a help-like mistake). */
export function helpWanted(argv: readonly string[]): boolean {
  return argv.some((a) => a === '--help' || a === '-h' || a === 'help' || a === '--version');
}

/**
 * The table as yargs options. `applyDefaults: false` (run, env play: the command layers its defaults
 * under an experiment file's values itself, src/run/options.ts) gives yargs no default, so that a flag
 * not given stays undefined, but still shows each default in --help, unless the description says it.
 */
export function yargsOptions(table: OptionTable, opts: { applyDefaults?: boolean } = {}): Record<string, Options> {
  const out: Record<string, Options> = {};
  for (const [flag, spec] of Object.entries(table)) {
    const o: Options = { type: spec.type };
    if (helpText) o.describe = spec.describe;
    if (spec.choices) o.choices = [...spec.choices];
    if (spec.default !== undefined && opts.applyDefaults !== false) o.default = spec.default;
    else if (spec.default !== undefined && helpText && !/\bdefault\b/i.test(spec.describe)) o.defaultDescription = String(spec.default);
    if (spec.hidden && helpText) o.hidden = true;
    if (spec.group && helpText) o.group = spec.group;
    out[flag] = o;
  }
  return out;
}

/**
 * A variadic positional (`[runs..]`, `<dirs..>`): yargs gives it a default of [] that --help shows as
 * "[default: []]", beside the default the command applies itself (`shown`, e.g. ./results) or under
 * "[required]". In help the default is left out, and `shown` is given instead; a run of the command
 * keeps yargs' [] (only help is drawn from this).
 */
export function listPositional(describe: string, opts: { shown?: string; required?: boolean } = {}): PositionalOptions {
  return {
    type: 'string',
    array: true,
    describe,
    ...(opts.required ? { demandOption: true } : {}),
    ...(helpText ? { default: undefined, ...(opts.shown ? { defaultDescription: opts.shown } : {}) } : {}),
  };
}

/** The width help is laid out in: the terminal's, at most 110 columns (110 when not a terminal). */
export function helpWidth(): number {
  return Math.min(110, process.stdout.columns || 110);
}

/**
 * A command's words as a POSIX shell splits them, quotes kept (a quoted word is never split), each
 * flag with its value as one piece (`--model M`) so that a line is never broken between them.
 */
function shellPieces(command: string): string[] {
  const words = command.match(/(?:[^\s'"]+|'[^']*'|"(?:[^"\\]|\\.)*")+/g) ?? [];
  const pieces: string[] = [];
  for (const w of words) {
    const last = pieces.at(-1);
    if (last !== undefined && /^--[\w-]+$/.test(last) && !w.startsWith('-') && w !== '|') pieces[pieces.length - 1] = `${last} ${w}`;
    else pieces.push(w);
  }
  return pieces;
}

/** `words` joined by spaces on lines of at most `width` columns, greedily (a longer word alone on its line). */
function fillLines(words: readonly string[], width: number): string[] {
  const lines: string[] = [];
  for (const w of words) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + 1 + w.length <= width) lines[lines.length - 1] = `${last} ${w}`;
    else lines.push(w);
  }
  return lines;
}

/**
 * The help's examples, laid out so that each pastes into a shell as it is shown: yargs' own layout
 * puts a command in a column of half the width and breaks it over lines that a shell reads as several
 * commands. Each example is its description as `#` comment lines, then the command, continued with
 * ` \` where it is wider than the help (`width`, as yargs is given it). Added with .epilog().
 */
export function examplesEpilog(examples: ReadonlyArray<readonly [command: string, what: string]>, width = helpWidth()): string {
  const out = ['Examples:'];
  for (const [command, what] of examples) {
    for (const l of fillLines(what.split(/\s+/), width - 4)) out.push(`  # ${l}`);
    // A flag and its value share a line unless together they are wider than one.
    const pieces = shellPieces(command.replaceAll('$0', 'react-repro')).flatMap((p) => (p.length > width - 8 ? p.split(/ (.*)/s, 2) : [p]));
    const lines = fillLines(pieces, width - 8);
    lines.forEach((l, i) => out.push(`${i === 0 ? '    ' : '      '}${l}${i < lines.length - 1 ? ' \\' : ''}`));
  }
  return out.join('\n');
}
