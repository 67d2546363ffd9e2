// Progress: a single updating line on a TTY; plain lines every 10 episodes or 10 s otherwise (CI logs).

export interface ProgressState {
  done: number;
  total: number;
  scored: number;
  /** The benchmark's primary metric: its label ("EM", "Success") and its sum over scored episodes. */
  metricLabel: string;
  metricSum: number;
  errors: number;
  tokens: number;
  cost: number;
}

export function formatDuration(sec: number): string {
  if (!Number.isFinite(sec) || sec < 0) return '?';
  const s = Math.round(sec);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : m > 0 ? `${m}m${String(r).padStart(2, '0')}s` : `${r}s`;
}

/** Pure: the text of one progress line. `doneThisSession` and `elapsedSec` give the ETA. */
export function progressLine(label: string, s: ProgressState, doneThisSession: number, elapsedSec: number): string {
  const score = s.scored ? ((100 * s.metricSum) / s.scored).toFixed(1) : '-';
  const remaining = s.total - s.done;
  const eta = doneThisSession > 0 ? formatDuration((elapsedSec / doneThisSession) * remaining) : '?';
  const cost = s.cost > 0 ? ` $${s.cost.toFixed(4)}` : '';
  return `${label} ${s.done}/${s.total} ${s.metricLabel} ${score} errors ${s.errors} tokens ${s.tokens}${cost} ETA ${remaining === 0 ? '0s' : eta}`;
}

export interface ProgressSink {
  write(s: string): void;
  isTTY?: boolean;
}

export class Progress {
  private readonly started = Date.now();
  private lastPrint = 0;
  private lastPrintedDone = -1;
  private session = 0;
  private tty: boolean;

  constructor(
    private readonly label: string,
    readonly state: ProgressState,
    private readonly out: ProgressSink = process.stderr,
    private readonly every = { episodes: 10, ms: 10_000 },
  ) {
    this.tty = Boolean(out.isTTY);
  }

  /** An episode finished in this session. */
  tick(): void {
    this.session++;
    this.render(false);
  }

  render(force: boolean): void {
    const now = Date.now();
    const line = progressLine(this.label, this.state, this.session, (now - this.started) / 1000);
    if (this.tty) {
      this.out.write(`\r\x1b[2K${line}`);
      return;
    }
    const due =
      force ||
      this.state.done - this.lastPrintedDone >= this.every.episodes ||
      now - this.lastPrint >= this.every.ms ||
      this.state.done === this.state.total;
    if (due && this.state.done !== this.lastPrintedDone) {
      this.out.write(line + '\n');
      this.lastPrint = now;
      this.lastPrintedDone = this.state.done;
    }
  }

  finish(): void {
    if (this.tty) {
      this.render(true);
      this.out.write('\n');
    } else this.render(true);
  }
}
