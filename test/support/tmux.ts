// The real CLI in a pseudo-terminal (tmux), as a person sees it: a session of a given size running
// one command, then "EXIT=<status>" on its own row; the screen read back with wrapped rows joined.
// Skipped, saying why, without tmux (.ci/run installs it).
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { bin, cleanEnv } from '../run/cli-helpers.js';

export const tmuxSkipReason = spawnSync('tmux', ['-V']).status === 0 ? null : 'tmux is not installed (apt-get install tmux; .ci/run does)';

const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

export class TmuxServer {
  private readonly socket = `react-repro-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

  /**
   * Starts `react-repro ARGS` in a new session (`cols`×`rows`, cwd `cwd`, the test cache under it).
   * `then`: shell text after the command (`| cat`, `> out.md`). `record`: every byte the pane receives
   * is appended to this file from before the command starts (tmux pipe-pane). `env`: variables set
   * on top (TERM, CI...).
   */
  start(
    session: string,
    args: string[],
    opts: { cwd: string; cols?: number; rows?: number; then?: string; record?: string; env?: Record<string, string> },
  ): void {
    const env = cleanEnv({ TERM: 'xterm-256color' }, path.join(opts.cwd, 'cache'));
    delete env.CI;
    Object.assign(env, opts.env);
    const envArgs = Object.entries(env)
      .filter(([k]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
      .map(([k, v]) => `${k}=${shellQuote(String(v))}`);
    const run = `env -i ${envArgs.join(' ')} ${shellQuote(process.execPath)} ${shellQuote(bin)} ${args.map(shellQuote).join(' ')} ${opts.then ?? ''}`;
    // Recorded: the command waits for a key until the pipe is attached.
    const cmd = `${opts.record ? 'read _; ' : ''}${run}; echo EXIT=$?; sleep 60`;
    const size = ['-x', String(opts.cols ?? 80), '-y', String(opts.rows ?? 40)];
    execFileSync('tmux', ['-L', this.socket, 'new-session', '-d', ...size, '-s', session, '-c', opts.cwd, cmd]);
    if (opts.record) {
      execFileSync('tmux', ['-L', this.socket, 'pipe-pane', '-t', session, `cat >> ${shellQuote(opts.record)}`]);
      this.keys(session, 'Enter');
    }
  }

  /** The screen now; -J joins rows the terminal wrapped, so a line wider than the pane shows as one long row. */
  capture(session: string): string {
    return execFileSync('tmux', ['-L', this.socket, 'capture-pane', '-p', '-J', '-t', session], { encoding: 'utf8' });
  }

  keys(session: string, ...keys: string[]): void {
    execFileSync('tmux', ['-L', this.socket, 'send-keys', '-t', session, ...keys]);
  }

  /** Polls the screen every 100 ms until `done` holds (or `tries` run out); `each` sees every screen. */
  async waitFor(session: string, done: (screen: string) => boolean, each?: (screen: string) => void, tries = 600): Promise<string> {
    let screen = '';
    for (let i = 0; i < tries; i++) {
      screen = this.capture(session);
      each?.(screen);
      if (done(screen)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    return screen;
  }

  kill(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server']);
  }
}
