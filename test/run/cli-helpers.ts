// Spawning the real CLI (./bin/react-repro.js) for end-to-end tests, and a prompt-scripted model server.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import type { Fault, RecordedRequest, ServerCompletionRequest } from '../servers/openai-server.js';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const bin = path.join(repo, 'bin/react-repro.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A clean environment: no model settings inherited from the developer's shell. */
export function cleanEnv(extra: Record<string, string> = {}, cacheDir?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^OPENAI_|API_KEY|^REACT_REPRO_/.test(k)) env[k] = v;
  if (cacheDir) env.REACT_REPRO_CACHE_DIR = cacheDir;
  return { ...env, CI: 'true', ...extra };
}

/**
 * The CLI children started by this file's tests and not yet exited. A test that fails before its own
 * kill (a timed-out wait, an assertion) would leave its run alive, holding a test server's connection
 * and a deleted folder; each is killed once its test ends.
 */
const running = new Set<ChildProcess>();
afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

export function startCli(
  args: string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv },
): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [bin, ...args], { cwd: opts.cwd, env: opts.env ?? cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.on('exit', () => running.delete(child));
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<CliResult>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

export function runCli(args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<CliResult> {
  return startCli(args, opts).done;
}

/**
 * A fault hook (startOpenAIServer's `fault`) that leaves completion requests unanswered, the `from`-th
 * and the `count` - 1 after it (all the rest by default): a run is then stopped (killed, interrupted)
 * mid-call where the test wants it, however slow the machine. `reached` resolves when the first arrives.
 */
export function holdCompletions(
  from: number,
  count = Infinity,
): { fault: (req: RecordedRequest) => Fault | undefined; reached: Promise<void> } {
  let completions = 0;
  let reach: () => void = () => {};
  const reached = new Promise<void>((r) => (reach = r));
  return {
    fault: (req) => {
      if (!/\/(chat\/)?completions$/.test(req.path)) return undefined;
      const n = ++completions;
      if (n < from || n >= from + count) return undefined;
      reach();
      return { kind: 'hold' };
    },
    reached,
  };
}

/**
 * Resolves when the held call has reached the server (holdCompletions' `reached`); fails with the CLI's
 * own output if it exits first (a bad flag, a crash), rather than waiting out the test's timeout.
 */
export function heldBeforeExit(reached: Promise<void>, done: Promise<CliResult>): Promise<void> {
  let isReached = false;
  const held = reached.then(() => {
    isReached = true;
  });
  // Settles with the run's exit whatever happened; rejects only when the run ended first (no stray rejection).
  const exited = done.then((r) => {
    if (!isReached)
      throw new Error(`the run exited (${r.code ?? r.signal}) before its held call reached the server: ${r.stderr.slice(-2000)}`);
  });
  return Promise.race([held, exited]);
}

/** Polls until the file has at least n complete lines. */
export async function waitForLines(file: string, n: number, timeoutMs = 30_000): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    if (text.split('\n').length - 1 >= n) return;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${n} lines in ${file}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function runDirs(resultsDir: string): string[] {
  return fs.existsSync(resultsDir)
    ? fs
        .readdirSync(resultsDir)
        .filter((d) => fs.existsSync(path.join(resultsDir, d, 'manifest.json')))
        .sort()
    : [];
}

export function readLines(file: string): any[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/**
 * Answers by what the prompt ends with, the way a model following the exemplars would:
 * ReAct/Act turns search the question's first capitalised word, then finish with "yes";
 * Standard/CoT/CoT-SC answer "yes" (CoT-SC samples alternate yes/no so majorities are not trivial).
 */
export function scriptedRespond(req: ServerCompletionRequest, sample: number): string {
  const p = req.prompt;
  let m = /Thought (\d+):$/.exec(p);
  if (m) {
    const i = Number(m[1]);
    if (i === 1) return ` I need to search Scott Derrickson.\nAction 1: Search[Scott Derrickson]\nObservation 1: made up`;
    return ` The answer is yes.\nAction ${i}: Finish[yes]\nObservation ${i}: made up`;
  }
  m = /Action (\d+):$/.exec(p);
  if (m) return Number(m[1]) === 1 ? ' Search[Scott Derrickson]\n' : ' Finish[yes]\n';
  if (p.endsWith('Answer:')) return ' yes\nQuestion: next';
  if (p.endsWith('Thought:'))
    return ` Let's think step by step. So the answer is ${sample % 3 === 2 ? 'no' : 'yes'}.\nAnswer: ${sample % 3 === 2 ? 'no' : 'yes'}\nQuestion: next`;
  return ' yes';
}

/** scriptedRespond searching an article the test wiki site has (test/servers/wiki-server.ts). */
export function scriptedWikiRespond(req: ServerCompletionRequest, sample: number): string {
  return scriptedRespond(req, sample).replaceAll('Scott Derrickson', 'Colorado orogeny');
}

/** summary.csv without its spent_* and paid_unknown_calls columns (the bill), found by the header, not by position. */
export function withoutSpent(csv: string): string {
  const lines = csv.trimEnd().split('\n');
  const keep = lines[0].split(',').flatMap((c, i) => (c.startsWith('spent_') || c === 'paid_unknown_calls' ? [] : [i]));
  return lines.map((l) => keep.map((i) => l.split(',')[i]).join(',')).join('\n');
}

/** Every file under `dir`, recursively (none when it does not exist). */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.join(d.parentPath, d.name));
}
