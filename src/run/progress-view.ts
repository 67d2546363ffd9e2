// What the progress display shows, as text: pure functions from the counters (ProgressState, declared
// here with the renderer's interface so the three progress files import in one direction) to a
// plain log line or to the few rows of a terminal block fitted to its width. Counting lives in
// progress.ts and drawing in progress-tty.ts; a new counter is a new field in ProgressState and a
// new segment here.
import { formatScore, meanPercent, thousands } from '../util/numbers.js';
import { tokensText, usdText } from '../util/money.js';
import { costStanding, tokenStanding } from './meter.js';

export interface ProgressState {
  done: number;
  total: number;
  scored: number;
  /** The benchmark's primary metric: its label ("EM", "Success") and its values over scored episodes. */
  metricLabel: string;
  metricValues: number[];
  errors: number;
  /** Error episodes per cause ('llm', 'env', 'internal'). */
  errorsBySource: Record<string, number>;
  /** Requests retried in this session (model and environment). */
  retries: number;
  tokens: number;
  cost: number;
  /** Calls answered without usage, which tokens and cost leave out (the cost is then a lower bound). */
  usageUnknownCalls?: number;
  /** Further named counts to show (e.g. episodes ended by a model limit), each shown once non-zero. */
  counts?: Record<string, number>;
}

export interface ProgressSink {
  write(s: string): void;
  isTTY?: boolean;
  /** Terminal width (a TTY stream's `columns`). */
  columns?: number;
  rows?: number;
}

/** Draws the views: plain lines (below) or a terminal block (progress-tty.ts). */
export interface ProgressRenderer {
  /** The run starts: print its id once. */
  start(view: ProgressView): void;
  /** Something changed (force: show it now). */
  update(view: ProgressView, force: boolean): void;
  /** Prints other lines (notes, warnings) without breaking the display. */
  interject(print: () => void): void;
  /** The run ended (interrupted: Ctrl-C/SIGTERM; the display leaves a clean line and stops). */
  finish(view: ProgressView, interrupted: boolean): void;
}

/** Which run this is: the full id (printed once), a short label (on every update), "run k of n". */
export interface ProgressLabel {
  id: string;
  /** e.g. "hotpotqa react" (the id's task and method). */
  short: string;
  /** For an experiment file: this run's position among its runs. */
  position?: { k: number; n: number };
  /** A combination's base run: the combination it is run for ("hotpotqa cot-sc-react"). */
  baseOf?: string;
}

export interface ProgressView {
  label: ProgressLabel;
  state: ProgressState;
  elapsedSec: number;
  /** Seconds left at this session's pace (null: no episode done yet). */
  etaSec: number | null;
}

export function formatDuration(sec: number): string {
  if (!Number.isFinite(sec) || sec < 0) return '?';
  const s = Math.round(sec);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : m > 0 ? `${m}m${String(r).padStart(2, '0')}s` : `${r}s`;
}

/** "errors 3 (llm 2, env 1)"; "errors 0". Causes in a fixed order: llm, env, internal, then others. */
export function errorsText(total: number, bySource: Record<string, number>): string {
  const order = ['llm', 'env', 'internal'];
  const keys = Object.keys(bySource)
    .filter((k) => bySource[k] > 0)
    .sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99) || a.localeCompare(b));
  return keys.length ? `errors ${total} (${keys.map((k) => `${k} ${bySource[k]}`).join(', ')})` : `errors ${total}`;
}

export function etaText(v: Pick<ProgressView, 'state' | 'etaSec'>): string {
  return v.state.total - v.state.done <= 0 ? '0s' : v.etaSec === null ? '?' : formatDuration(v.etaSec);
}

const percentDone = (s: ProgressState): number => (s.total > 0 ? Math.floor((100 * s.done) / s.total) : 100);

/**
 * The counters, one segment each, in the order shown: score so far, errors by cause, retries,
 * then any extra outcome counts, tokens and money. (Elapsed and ETA are placed by the layouts.)
 */
export function statSegments(s: ProgressState): string[] {
  const out = [
    `${s.metricLabel} ${formatScore(meanPercent(s.metricValues))}`,
    errorsText(s.errors, s.errorsBySource),
    `retries ${thousands(s.retries)}`,
  ];
  for (const [name, n] of Object.entries(s.counts ?? {})) if (n > 0) out.push(`${name} ${thousands(n)}`);
  // As every output states its figures (src/run/meter.ts tokenStanding, costStanding): "tokens ≥ 1,234"
  // and "≥ $0.1229" when calls are left out, "tokens unknown" when none was counted.
  const counts = { tokens: s.tokens, uncountedCalls: s.usageUnknownCalls ?? 0 };
  out.push(`tokens ${tokensText(s.tokens, tokenStanding(counts)) ?? 'unknown'}`);
  // Only a cost above $0 is shown, and such a cost was billed by rates that are not free.
  const cost = usdText(s.cost, costStanding({ priced: true, free: false, ...counts }));
  if (s.cost > 0 && cost) out.push(cost);
  return out;
}

/** Where the run stands in the command: "run 6 of 7", and for a combination's base run what it is run for. */
function positionText(l: ProgressLabel): string {
  const parts = l.position && l.position.n > 1 ? [`run ${l.position.k} of ${l.position.n}`] : [];
  if (l.baseOf) parts.push(`base of ${l.baseOf}`);
  return parts.join(', ');
}

/**
 * The line printed once when a run starts: its full id (the folder name under the results folder),
 * never cut; with a width, the "run k of n: " prefix is left out when it would not fit beside the id.
 */
export function startLine(l: ProgressLabel, width?: number): string {
  const pos = positionText(l);
  const line = `${pos ? `${pos}: ` : 'run: '}${l.id}`;
  return width !== undefined && line.length > width ? l.id : line;
}

/** One plain line for logs (no TTY): everything, no bar. */
export function plainLine(v: ProgressView): string {
  const s = v.state;
  const pos = positionText(v.label);
  return [
    `${pos ? `[${pos}] ` : ''}${v.label.short} ${s.done}/${s.total} (${percentDone(s)}%)`,
    ...statSegments(s),
    `elapsed ${formatDuration(v.elapsedSec)}`,
    `ETA ${etaText(v)}`,
  ].join(' ');
}

/** Cuts a line to at most `width` columns, marking the cut with "…" (the display is ASCII plus bar glyphs of width 1). */
export function fitWidth(line: string, width: number): string {
  const chars = [...line];
  if (chars.length <= width) return line;
  return width <= 1 ? chars.slice(0, Math.max(0, width)).join('') : chars.slice(0, width - 1).join('') + '…';
}

/** A bar of `width` cells, filled for the fraction done. */
export function bar(fraction: number, width: number): string {
  const f = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
  const full = Math.floor(f * width);
  return '█'.repeat(full) + '░'.repeat(Math.max(0, width - full));
}

/** Greedy: segments joined by " · " on as few rows as fit `width` (a segment too long for a row is cut). */
export function packSegments(segments: readonly string[], width: number, sep = ' · '): string[] {
  const rows: string[] = [];
  let cur = '';
  for (const seg of segments) {
    if (cur === '') cur = seg;
    else if (cur.length + sep.length + seg.length <= width) cur += sep + seg;
    else {
      rows.push(cur);
      cur = seg;
    }
  }
  if (cur !== '') rows.push(cur);
  return rows.map((r) => fitWidth(r, width));
}

/** The fewest columns worth giving the label on the bar row ("hotp…"); fewer and it is left out. */
const MIN_LABEL = 5;

/**
 * The terminal block: a first row with the run, a bar, done/total, percentage and ETA; then the
 * counters packed on one or two rows. Every row is at most `columns - 1` wide (writing the last column
 * makes some terminals wrap), so a redraw never scrolls.
 */
export function ttyLines(v: ProgressView, columns: number): string[] {
  const width = Math.max(20, columns) - 1;
  const s = v.state;
  const pos = positionText(v.label);
  const head = `${pos ? `${pos} · ` : ''}${v.label.short}`;
  const tail = `${s.done}/${s.total} ${String(percentDone(s)).padStart(3)}% · ETA ${etaText(v)}`;
  // The bar takes what is left of the row, between 10 and 40 cells; the label is cut first. Too narrow
  // for a few letters of the label, the row leaves it out (the id is printed above) and the bar shrinks,
  // so done/total and the ETA are never cut.
  const fraction = s.total > 0 ? s.done / s.total : 1;
  const barWidth = Math.max(10, Math.min(40, width - head.length - tail.length - 2));
  const room = width - barWidth - tail.length - 2;
  const narrowBar = Math.min(40, width - tail.length - 1);
  const first =
    room >= MIN_LABEL
      ? `${fitWidth(head, room)} ${bar(fraction, barWidth)} ${tail}`
      : narrowBar >= 3
        ? `${bar(fraction, narrowBar)} ${tail}`
        : tail;
  const stats = packSegments([...statSegments(s), `elapsed ${formatDuration(v.elapsedSec)}`], width);
  // At most two rows of counters: whatever does not fit is cut with "…" rather than scrolling.
  const rows = stats.length > 2 ? [stats[0], fitWidth(stats.slice(1).join(' · '), width)] : stats;
  return [fitWidth(first, width), ...rows];
}
