// `react-repro run`: one run from flags, or the runs of an experiment file, in order (docs/protocol.md §2-5).
// A run never lies (README "Reliability"): the exit status says how it ended (EXIT below, documented in the
// README), a run with error episodes ends with their count per cause and the exact command that
// retries them, SIGTERM stops like Ctrl-C, and bad or conflicting flags are one-line errors.
import { JsonFields } from '../../util/json-fields.js';
import path from 'node:path';
import type { ArgumentsCamelCase, Argv, CommandModule, Options } from 'yargs';
import { isUserFacing, UserError } from '../../errors.js';
import { defaultResultsDir } from '../../paths.js';
import type { OptionTable } from '../../options.js';
import { allRunOptions, pricesOf, realDeps } from '../../run/deps.js';
import { executeRun, type RunDeps, type RunIO, type RunResult } from '../../run/execute.js';
import { derivedMethodOf } from '../../run/derived-method.js';
import { type Settings } from '../../run/experiment.js';
import { isRunFolder, readManifest } from '../../runlog/store.js';
import { redactedSettingKeys } from '../../run/manifest.js';
import { kebabCase } from '../../run/options.js';
import { statusText, type Spend } from '../../runlog/schema.js';
import { SIGNAL_EXIT, withInterrupts } from '../interrupts.js';
import { CircuitOpenError, DEFAULT_MAX_CONSECUTIVE_FAILURES, sideName } from '../../run/breaker.js';
import { Budget, requireKnownPrices } from '../../run/budget.js';
import { scoresText } from '../scores.js';
import { moneyText, runCostStandings, runTokenStandings, spendText, spendTokensText } from '../../run/meter.js';
import { tokensText } from '../../util/money.js';
import { examplesEpilog, yargsOptions } from '../yargs-options.js';
import { displayStream, forTerminal } from '../../util/terminal-text.js';
import { REDACTED, redactUrlsIn } from '../../util/redact.js';
import { resumableBaseUrl } from '../../envs/http/base-url.js';
import { endpointLines, sumTallies } from '../../run/endpoint-lines.js';

/** Exit statuses of `run` (README "Reliability"). */
export const EXIT = {
  /** Every planned episode is recorded and none is an error. */
  ok: 0,
  /** Stopped: a fatal error (bad key, unknown model) or the circuit breaker; resumable. */
  stopped: 1,
  /** Bad input: a flag, a file, a field (also yargs' own messages). */
  badInput: 2,
  /** The run finished but some episodes are recorded as errors: --retry-errors re-runs them. */
  errors: 3,
  /** Stopped at the --max-cost budget; resumable. */
  budget: 4,
  /** A bug (internal error, with its stack). */
  internal: 70,
  /** The disk refused a write (full, read-only, no permission): DiskError. */
  disk: 74,
  sigint: 130,
  sigterm: 143,
} as const;

/** The flag that hands the command to the bundle's re-run (commands/bundle.ts runFromBundleCommand). */
const FROM_BUNDLE_OPTION: Options = {
  type: 'string',
  describe:
    'Re-run the runs of a bundle (react-repro bundle) with no model and no environment server, and check they are identical; only --results-dir goes with it',
};

/** Flags of this invocation only: never settings of a run (not in manifests or experiment files). */
export const sessionOptions: OptionTable = {
  'dry-run': {
    type: 'boolean',
    describe: 'Print the episodes planned, the estimated model calls, prompt tokens and cost; make no model call, write nothing',
  },
  'max-cost': {
    type: 'number',
    describe:
      "Stop cleanly (resumable, exit 4) before a model call could take this invocation's spend past USD (estimated at the model's prices; a model with no known price needs --price-prompt and --price-completion)",
  },
  'max-consecutive-failures': {
    type: 'number',
    describe: `Stop the run (resumable, exit 1) when the model endpoint or the environment fails this many episodes in a row; 0: never [default: ${DEFAULT_MAX_CONSECUTIVE_FAILURES}]`,
  },
};

import { resolveRunConfigs } from '../../run/resolve-runs.js';
import type { RunConfig } from '../../run/config.js';

export function resultLine(r: RunResult): string {
  const s = r.summary;
  // The recorded episodes' tokens and cost (cache hits included), then what this command paid for
  // (src/run/meter.ts): a run stopped before its first episode still shows the money it spent.
  const price = r.price ?? 'known';
  // At rates that bill nothing, a call without usage is of unknown tokens but known billing: $0.
  const leftOut =
    price === 'free'
      ? 'answered without usage or cut off in flight: billed nothing, tokens not counted'
      : 'of unknown billing: answered without usage or cut off in flight';
  const paid = r.spent
    ? `; this command spent ${spendTokensText(r.spent)}${price === 'unknown' ? '' : `, ${spendText(r.spent, { free: price === 'free' })}`}${r.spent.paid_unknown_calls ? ` (+${r.spent.paid_unknown_calls} call${r.spent.paid_unknown_calls === 1 ? '' : 's'} ${leftOut})` : ''}`
    : '';
  // The episodes' cost is known by the run's rule (summary.cost_known, src/run/meter.ts costKnown), and
  // whole at $0 when all its sessions billed nothing (summary.cost_free); this command's spend by the
  // price this invocation had.
  const recorded = s.cost_known === false ? (price === 'unknown' ? 'unknown' : 'partly') : price === 'free' ? 'free' : 'known';
  const withoutUsage = s.usage_unknown_calls
    ? ` (+${s.usage_unknown_calls} call${s.usage_unknown_calls === 1 ? '' : 's'} answered without usage, not counted)`
    : '';
  const manifest = readManifest(r.dir);
  const money = moneyText(s.cost_usd, recorded, runCostStandings(s).total, { combination: manifest.kind === 'combination' });
  return `${r.runId}: ${s.n_done}/${s.n_planned} episodes, ${scoresText(s, manifest.metrics)}, errors ${s.n_errors}, tokens ${tokensText(s.total_tokens, runTokenStandings(s).total) ?? 'unknown'}, ${money}${withoutUsage}${paid} [${statusText(r.status, r.stoppedBy)}] -> ${r.dir}`;
}

/** Runs every run in order; stops after one that was stopped (fatal, breaker, interrupt, budget). */
export async function runAll(runs: (Settings | RunConfig)[], deps: RunDeps, io: RunIO, out: (line: string) => void): Promise<RunResult[]> {
  const results: RunResult[] = [];
  for (const [i, settings] of runs.entries()) {
    const runIo = runs.length > 1 ? { ...io, position: { k: i + 1, n: runs.length } } : io;
    const res = derivedMethodOf(settings, deps)
      ? // loaded only for a derived method: a plain run does not load its code (test/package/lazy-cli.test.ts)
        await (await import('../../run/combination-run.js')).executeCombination(settings, deps, runIo)
      : await executeRun(settings, deps, runIo);
    results.push(res);
    out(resultLine(res));
    if (res.fatal || res.status === 'interrupted') break;
  }
  return results;
}

/** A word as a POSIX shell reads it back unchanged. */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_/.,:@%+=-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

/** Printed above a command that holds a URL whose credentials are shown as ***. */
const CREDENTIALS_NOTE = 'a URL below had credentials, printed as ***: put them back before running it';
/** Added where a userinfo is printed as ***@: how it goes back (a key once in a query goes there too). */
const USERINFO_HINT = " (***@ stands for the URL's user:KEY@)";

/**
 * The flags a resume of this run must be given again, as its manifest recorded them (with ***): those
 * whose URL had credentials (src/run/manifest.ts redactedSettingKeys; a resume without them is refused).
 * An environment server's URL is shown as a resume takes it: without a query, its credential in the
 * userinfo where an older version recorded it in the query (src/envs/http/base-url.ts resumableBaseUrl).
 */
function redactedFlags(runDir: string): string[] {
  if (!isRunFolder(runDir)) return [];
  const { settings } = readManifest(runDir);
  const table = allRunOptions();
  return redactedSettingKeys(settings).flatMap((k) => {
    const v = settings[k];
    const flag = kebabCase(k);
    const value = Array.isArray(v) ? v.join(',') : String(v);
    return [`--${flag}`, shellWord(table[flag]?.envBaseUrl ? resumableBaseUrl(value).url : value)];
  });
}

/**
 * `react-repro run --resume <id> [--retry-errors] [--results-dir DIR]`: the manifest supplies the rest,
 * but for a URL with credentials, which it never recorded (printed with ***: CREDENTIALS_NOTE).
 */
export function resumeCommand(runDir: string, opts: { retryErrors: boolean }): string {
  const parts = ['react-repro', 'run', '--resume', shellWord(path.basename(runDir)), ...redactedFlags(runDir)];
  if (opts.retryErrors) parts.push('--retry-errors');
  const resultsDir = path.dirname(path.resolve(runDir));
  if (resultsDir !== defaultResultsDir()) parts.push('--results-dir', shellWord(resultsDir));
  return parts.join(' ');
}

/**
 * The command that resumes a whole invocation (an experiment file, a combination): its own arguments
 * (re-running it resumes the stopped run and starts the runs it did not reach; complete runs make no
 * calls), URL credentials printed as *** (they never reach a terminal or a log).
 */
export function invocationCommand(args: readonly string[], opts: { retryErrors: boolean }): string {
  const words = args.map((a) => redactUrlsIn(a));
  // Given twice, --retry-errors would be refused as a repeated flag.
  if (opts.retryErrors && !args.some((a) => /^--retry-?errors(=|$)/i.test(a))) words.push('--retry-errors');
  return ['react-repro', ...words.map(shellWord)].join(' ');
}

/** The invocation: its arguments and every run's label (one for a single run), to name the runs a stop left. */
export interface Invocation {
  /** The arguments after `react-repro` (process.argv.slice(2)). */
  args: readonly string[];
  /** One label per run it resolved to, in order ("hotpotqa react"). */
  runs: readonly string[];
}

function oneLine(s: string, max = 240): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** The exit status of an invocation from its runs' results (fatal > signal > budget > errors > ok). */
export function exitCodeOf(results: RunResult[]): number {
  if (results.some((r) => r.fatal)) return EXIT.stopped;
  const stopped = results.find((r) => r.status === 'interrupted');
  if (stopped?.stoppedBy === 'SIGTERM') return EXIT.sigterm;
  if (stopped?.stoppedBy === 'max-cost') return EXIT.budget;
  if (stopped) return EXIT.sigint;
  if (results.some((r) => r.errorCauses.length > 0 || r.status === 'partial')) return EXIT.errors;
  return EXIT.ok;
}

/**
 * The closing lines: the model limits reached, each model endpoint of a fleet that failed an attempt
 * (src/run/endpoint-lines.ts), why the invocation stopped (if it did), then for each run with error episodes
 * their count per cause with the first message of each, and as the very last line the command that
 * retries them (or resumes the stopped run; an experiment stopped before its last run, or a combination
 * stopped in a base run: the whole invocation again, after a line naming what was not made).
 */
export function closingLines(results: RunResult[], invocation?: Invocation, spent?: Spend): string[] {
  const lines: string[] = [];
  const last = results.at(-1);
  let resume: string | undefined;
  const stopped = last !== undefined && (last.fatal !== undefined || last.status === 'interrupted');
  // Resuming only the stopped run would end with [complete] and exit 0 while later runs never ran.
  const unreached = stopped && invocation ? invocation.runs.slice(results.length) : [];
  // A combination stopped in a base run: resuming that base would not make the other base or the combination.
  const leftInRun = stopped ? (last.notReached ?? []) : [];
  // Model limits first: outcomes of scored episodes, not errors (nothing to retry).
  for (const r of results) lines.push(...(r.limitLines ?? []));
  // A fleet member that failed (its calls retried on the others): the figures are right, the server idle or broken.
  lines.push(...endpointLines(sumTallies(results.map((r) => r.endpoints))));
  if (last?.fatal) {
    lines.push(oneLine(last.fatal.message, 600));
    if (last.fatal instanceof CircuitOpenError) {
      lines.push(
        `fix the ${sideName(last.fatal.source)}, then resume (the episodes in flight were dropped; the failed ones are recorded as errors)`,
      );
    }
  } else if (last?.status === 'interrupted') {
    if (last.stoppedBy === 'max-cost' && last.budgetStop) {
      // The stop's figures are those of the moment it stopped; the calls then in flight were answered
      // and paid for after it, so the invocation's whole spend (its one meter: every run's session,
      // a combination's base runs included) follows.
      const unknown = spent?.paid_unknown_calls
        ? ` (+${spent.paid_unknown_calls} call${spent.paid_unknown_calls === 1 ? '' : 's'} of unknown billing)`
        : '';
      lines.push(
        last.budgetStop.message +
          (spent
            ? `; with the calls then in flight, this command spent ${spendText(spent, { unknown: 'an unknown amount' })} in all${unknown}`
            : ''),
      );
    } else lines.push(`interrupted (${last.stoppedBy ?? 'SIGINT'}): the episodes in flight were dropped`);
  }
  const notReached: string[] = [];
  if (stopped && (unreached.length || leftInRun.length) && invocation) {
    resume = invocationCommand(invocation.args, { retryErrors: last.errorCauses.length > 0 });
    const n = invocation.runs.length;
    if (leftInRun.length)
      notReached.push(
        `${last.runId} is a base run of ${leftInRun.at(-1)}: ${leftInRun.join(', ')} ${leftInRun.length === 1 ? 'was' : 'were'} not made; the command below resumes ${last.runId} and makes ${leftInRun.length === 1 ? 'it' : 'them'} (complete runs make no calls)`,
      );
    if (unreached.length)
      notReached.push(
        `the experiment stopped in run ${results.length} of ${n}: ${unreached.length} of its ${n} runs ${unreached.length === 1 ? 'was' : 'were'} not reached (${unreached.join(', ')}); the command below resumes run ${results.length} and runs ${unreached.length === 1 ? 'it' : 'them'} (complete runs make no calls)`,
      );
  } else if (stopped) resume = resumeCommand(last.dir, { retryErrors: last.errorCauses.length > 0 });
  const withErrors = results.filter((r) => r.errorCauses.length > 0);
  const retry: string[] = [];
  for (const r of withErrors) {
    const total = r.errorCauses.reduce((a, c) => a + c.count, 0);
    lines.push(`${r.runId}: ${total} episode${total === 1 ? ' is' : 's are'} recorded as errors:`);
    for (const c of r.errorCauses) lines.push(`  ${c.source} ${c.count} (first: ${oneLine(c.first)})`);
    if (r.retryRuns?.length) {
      for (const b of r.retryRuns) retry.push(resumeCommand(b.dir, { retryErrors: true }));
    } else if (r !== last || !resume) retry.push(resumeCommand(r.dir, { retryErrors: true }));
  }
  if (resume) retry.push(resume);
  const cmds = [...new Set(retry)];
  if (cmds.length) {
    const what = last?.fatal || last?.status === 'interrupted' ? 'resume' : 're-run the error episodes';
    if (withErrors.some((r) => r.retryRuns?.length))
      lines.push("the combination errors are its base runs' errors: retry those, then run the combination again");
    // above every command, so it stands above the one it is about (URL credentials are printed as ***)
    if (cmds.some((c) => c.includes(REDACTED)))
      lines.push(CREDENTIALS_NOTE + (cmds.some((c) => c.includes(`://${REDACTED}@`)) ? USERINFO_HINT : ''));
    for (const c of cmds.slice(0, -1)) lines.push(`${what} with: ${c}`);
    lines.push(...notReached);
    lines.push(`${what} with: ${cmds.at(-1)}`);
  }
  return lines;
}

/** The raw text given for a flag on the command line (for messages about values yargs made NaN). */
function rawFlagValue(flag: string): string | undefined {
  const args = process.argv;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === `--${flag}`) return args[i + 1];
    if (args[i].startsWith(`--${flag}=`)) return args[i].slice(flag.length + 3);
  }
  return undefined;
}

/** yargs turns a number flag given a word into NaN: name the flag and the word instead. */
export function checkNumberFlags(argv: Record<string, unknown>, table: OptionTable): void {
  for (const [flag, spec] of Object.entries(table)) {
    if (spec.type !== 'number') continue;
    const v = argv[flag.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())];
    const values = Array.isArray(v) ? v : [v];
    if (values.some((x) => typeof x === 'number' && Number.isNaN(x))) {
      const raw = rawFlagValue(flag);
      throw new UserError(
        `--${flag}: expected a number${flag === 'limit' ? ' (a positive integer)' : ''}, got ${raw !== undefined ? JSON.stringify(raw) : 'something that is not a number'}`,
      );
    }
  }
}

/** Flags that may be given more than once (the values add up): --base-url lists several servers. */
const REPEATABLE = new Set(['base-url']);

/**
 * A single-valued flag given twice is a conflict (yargs quietly turns `--limit 12 --limit 1` into
 * 13): name it and both values.
 */
export function checkRepeatedFlags(args: readonly string[], table: OptionTable): void {
  const seen = new Map<string, string[]>();
  for (let i = 0; i < args.length; i++) {
    const m = /^--([a-zA-Z][\w-]*?)(?:=(.*))?$/.exec(args[i]);
    if (!m) continue;
    const flag = m[1].replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    const spec = table[flag];
    if (!spec || REPEATABLE.has(flag)) continue;
    const next = args[i + 1];
    const value = m[2] ?? (spec.type === 'boolean' || next === undefined || next.startsWith('--') ? 'true' : next);
    seen.set(flag, [...(seen.get(flag) ?? []), value]);
  }
  for (const [flag, values] of seen) {
    if (values.length > 1)
      throw new UserError(`--${flag} is given ${values.length} times (${values.map((v) => JSON.stringify(v)).join(', ')}): give it once`);
  }
}

interface SessionFlags {
  dryRun: boolean;
  maxCost?: number;
  /** Absent when not given: the run then uses the one its last session was given, or the default. */
  maxConsecutiveFailures?: number;
}

export function sessionFlags(argv: Record<string, unknown>): SessionFlags {
  const f = JsonFields.orEmpty(argv);
  const maxCost = f.get('maxCost');
  if (maxCost !== undefined && (typeof maxCost !== 'number' || !Number.isFinite(maxCost) || maxCost < 0)) {
    throw new UserError(`--max-cost: expected an amount in USD >= 0, got ${JSON.stringify(maxCost)}`);
  }
  const n = f.get('maxConsecutiveFailures');
  if (n !== undefined && (typeof n !== 'number' || !Number.isInteger(n) || n < 0)) {
    throw new UserError(`--max-consecutive-failures: expected a whole number >= 0 (0: never stop), got ${JSON.stringify(n)}`);
  }
  return {
    dryRun: f.get('dryRun') === true,
    ...(maxCost !== undefined ? { maxCost } : {}),
    ...(n !== undefined ? { maxConsecutiveFailures: n } : {}),
  };
}

export const runCommand: CommandModule = {
  command: 'run [experiment]',
  describe: 'Run a method on a task split, or every run of an experiment file (experiments/<name>.json)',
  builder: (y: Argv) =>
    y
      .positional('experiment', {
        type: 'string',
        describe: 'Experiment file: {"defaults": {...}, "runs": [...]} with camelCase flag names; flags override it',
      })
      .options(yargsOptions(allRunOptions(), { applyDefaults: false }))
      .options(yargsOptions(sessionOptions))
      .option('from-bundle', FROM_BUNDLE_OPTION)
      .epilog(
        examplesEpilog([
          [
            '$0 run --task hotpotqa --method react --limit 5 --base-url http://127.0.0.1:8000/v1 --model M',
            'ReAct on the first 5 offline HotpotQA questions',
          ],
          [
            '$0 run experiments/table1-hotpotqa.json --model gpt-3.5-turbo-instruct --dry-run',
            'what all Table 1 methods on HotpotQA would cost',
          ],
          ['$0 run --resume RUN_ID --retry-errors', 're-run the episodes of a run recorded as errors (the manifest supplies the settings)'],
          [
            '$0 run --task alfworld --method react --env-url http://127.0.0.1:36001 --indices 0,1,2 --base-url URL --model M',
            'ReAct on three ALFWorld games',
          ],
        ]),
      )
      .epilog(
        '\nExit status: 0 complete without errors; 1 stopped (fatal error or circuit breaker; resumable); 2 bad input; ' +
          '3 finished with error episodes (--retry-errors re-runs them); 4 stopped at --max-cost (resumable); 70 internal error; 74 disk error; 130 SIGINT; 141 output pipe closed by its reader; 143 SIGTERM',
      ),
  handler: async (argv: ArgumentsCamelCase) => {
    const raw = argv as Record<string, unknown>;
    // The bundle command's and the dry run's code load only when asked for (test/package/lazy-cli.test.ts).
    if (raw.fromBundle !== undefined) return (await import('./bundle.js')).runFromBundleCommand(raw);
    checkRepeatedFlags(process.argv.slice(2), { ...allRunOptions(), ...sessionOptions });
    checkNumberFlags(raw, { ...allRunOptions(), ...sessionOptions });
    const session = sessionFlags(raw);
    const runs = resolveRunConfigs(raw, (l) => process.stderr.write(`react-repro: ${l}\n`));
    if (session.maxCost !== undefined) requireKnownPrices(runs.map((r) => pricesOf(r.model)));
    if (session.dryRun) {
      const { dryRunLines, dryRunTotalLines, planDryRun } = await import('../../run/dry-run.js');
      const plans = [];
      for (const s of runs) {
        const plan = await planDryRun(s, realDeps);
        plans.push(plan);
        for (const line of dryRunLines(plan, session.maxCost)) process.stdout.write(line + '\n');
      }
      for (const line of dryRunTotalLines(plans)) process.stdout.write(line + '\n');
      process.stdout.write('dry run: no model was called and nothing was written\n');
      return;
    }
    await withInterrupts(async (scope) => {
      try {
        const io: RunIO = {
          // a dumb terminal or CI gets the plain lines of a log
          progress: displayStream(process.stderr),
          // server and model text reaches these lines (error causes): no control sequence goes through
          log: (l) => process.stderr.write(`react-repro: ${forTerminal(l, { oneLine: true })}\n`),
          signal: scope.signal,
          ...(session.maxConsecutiveFailures !== undefined ? { maxConsecutiveFailures: session.maxConsecutiveFailures } : {}),
          ...(session.maxCost !== undefined ? { budget: new Budget(session.maxCost) } : {}),
        };
        const results = await runAll(runs, realDeps, io, (l) => process.stdout.write(l + '\n'));
        const invocation = { args: process.argv.slice(2), runs: runs.map((c) => [c.task, c.method].filter(Boolean).join(' ')) };
        for (const l of closingLines(results, invocation, io.budget?.meter.spent)) io.log(l);
        const code = exitCodeOf(results);
        if (code !== 0) process.exitCode = code;
      } catch (e) {
        // A signal before the episodes started (model list, environment check): a clean stop, not a bug.
        const sig = scope.stoppedBy();
        if (sig && !isUserFacing(e)) {
          process.stderr.write(`react-repro: interrupted (${sig}) before any episode ran\n`);
          process.exitCode = SIGNAL_EXIT[sig];
          return;
        }
        throw e;
      }
    }, 'stopping: in-flight episodes are dropped');
  },
};
