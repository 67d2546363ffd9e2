// `react-repro env play`: step any benchmark's environment by hand from a script file, printing each
// observation exactly as the method's loop sees it before prompt assembly (Benchmark.observe). A
// researcher's way to poke an environment, and a test tool.
import { JsonFields } from '../../util/json-fields.js';
import fs from 'node:fs';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { UserError, errorMessage, errorCode } from '../../errors.js';
import { benchmarkNames, benchmarkOptions, defaultBenchmarkName, getBenchmark } from '../../benchmarks/registry.js';
import type { Benchmark, ItemRefKey } from '../../benchmarks/types.js';
import type { Env } from '../../envs/types.js';
import type { OptionTable, Settings } from '../../options.js';
import { allRunOptions, runDefaults } from '../../run/deps.js';
import { camelCase, givenFlags } from '../../run/options.js';
import { examplesEpilog, yargsOptions } from '../yargs-options.js';
import { SIGNAL_EXIT, withInterrupts } from '../interrupts.js';

export interface PlayScript {
  id: string | number;
  ref: unknown;
  actions: string[];
}

export interface PlayStep {
  action: string;
  observation: string;
  reward: number;
  done: boolean;
}

/** Pure: validates a scripts file's parsed JSON (UserError naming the file and field). */
export function parseScripts(data: unknown, file: string, key: ItemRefKey): PlayScript[] {
  if (!Array.isArray(data) || data.length === 0)
    throw new UserError(`${file}: expected a non-empty JSON list of {"id", "${key}", "actions": [...]}`);
  return data.map((s, i) => {
    const at = `${file}: [${i}]`;
    if (!s || typeof s !== 'object' || Array.isArray(s)) throw new UserError(`${at}: expected an object {"id", "${key}", "actions"}`);
    const o = s as Record<string, unknown>;
    if (typeof o.id !== 'string' && typeof o.id !== 'number') throw new UserError(`${at}.id: expected a string or number`);
    if (!(key in o)) throw new UserError(`${at}: missing "${key}" (this benchmark names its items by "${key}")`);
    const a = o.actions;
    if (!Array.isArray(a) || a.length === 0 || !a.every((x) => typeof x === 'string'))
      throw new UserError(`${at}.actions: expected a non-empty list of strings`);
    if (a[0] !== 'reset')
      throw new UserError(`${at}.actions[0]: expected "reset" (a script starts by resetting the environment), got ${JSON.stringify(a[0])}`);
    return { id: o.id, ref: o[key], actions: a };
  });
}

/** Plays one script on a fresh environment; every action is stepped, with no step limit. */
export async function playScript(bench: Benchmark, env: Env, script: PlayScript, signal?: AbortSignal): Promise<PlayStep[]> {
  const steps: PlayStep[] = [];
  try {
    for (const action of script.actions) {
      if (action === 'reset') {
        const r = await env.reset({ signal });
        steps.push({ action, observation: r.observation, reward: 0, done: false });
        continue;
      }
      const r = await env.step(action, { signal });
      steps.push({ action, observation: bench.observe(action, r), reward: r.reward, done: r.done });
    }
  } finally {
    await env.close?.();
  }
  return steps;
}

/** The flags a benchmark's environment reads (Benchmark.play; else all of its options). */
export function playFlagsOf(b: Benchmark): string[] {
  return [...(b.play?.flags ?? Object.keys(b.options))];
}

/**
 * `env play`'s own flags: --task and every registered benchmark's environment flags (not the model's,
 * the method's or the run's: env play calls no model and records nothing).
 */
export function playOptions(): OptionTable {
  const all = allRunOptions();
  const benches = benchmarkNames().map(getBenchmark);
  const out: OptionTable = { task: all.task };
  for (const b of benches) for (const f of playFlagsOf(b)) if (all[f] && !out[f]) out[f] = all[f]!;
  // A flag benchmarks read with different meanings (--env-url: each benchmark's server) says whose it is.
  for (const f of Object.keys(out)) {
    if (f === 'task') continue;
    const users = benches.filter((b) => playFlagsOf(b).includes(f));
    const texts = new Set<string | undefined>(users.map((b) => b.options[f]?.describe));
    if (users.length > 1 && (texts.size > 1 || texts.has(undefined))) {
      out[f] = {
        ...out[f],
        group: 'Environment servers:',
        describe: `The environment server of ${users.map((b) => b.title).join(', ')} (\`run --help\` says what each expects)`,
      };
    }
  }
  return out;
}

/** UserError for a flag the chosen benchmark's environment does not read. */
export function checkPlayFlags(given: Record<string, unknown>, bench: Benchmark): void {
  const own = new Set(['task', ...playFlagsOf(bench)].map(camelCase));
  const extra = Object.keys(given).filter((k) => !own.has(k));
  if (extra.length) {
    const flags = extra.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ');
    throw new UserError(
      `env play --task ${bench.name}: ${flags} ${extra.length === 1 ? 'is not a flag' : 'are not flags'} of ${bench.title}'s environment (it takes --scripts${playFlagsOf(
        bench,
      )
        .map((f) => `, --${f}`)
        .join('')})`,
    );
  }
}

function actionsHelp(): string {
  const byText = new Map<string, string[]>();
  for (const b of benchmarkNames().map(getBenchmark))
    if (b.play?.actions) byText.set(b.play.actions, [...(byText.get(b.play.actions) ?? []), b.name]);
  const lines = [...byText].map(([text, names]) => `  ${names.join(', ')}: ${text}`);
  return lines.length ? `How actions are written (each is stepped as written, with no step limit):\n${lines.join('\n')}` : '';
}

export const envCommand: CommandModule = {
  command: 'env',
  describe: "Step a benchmark's environment by hand",
  builder: (y: Argv) =>
    y
      .command({
        command: 'play',
        describe: 'Play scripted actions on a benchmark environment and print one JSON line per script',
        builder: (yy: Argv) =>
          yy
            .option('scripts', {
              type: 'string',
              demandOption: true,
              describe: 'JSON list of {"id", "index"|"game"|"session", "actions": ["reset", ...]}',
            })
            .options(yargsOptions(playOptions(), { applyDefaults: false }))
            .epilog(
              examplesEpilog([
                ['$0 env play --task alfworld --env-url http://127.0.0.1:36001 --scripts games.json', 'step ALFWorld games by hand'],
                [
                  '$0 env play --task hotpotqa --scripts wiki.json',
                  'search and look up on the offline Wikipedia (write search[...], not Search[...])',
                ],
              ]),
            )
            .epilog(actionsHelp()),
        handler: async (argv: ArgumentsCamelCase) => {
          const given = givenFlags(argv, playOptions());
          const task = JsonFields.orEmpty(given).get('task');
          const named = getBenchmark(String(task ?? defaultBenchmarkName()));
          checkPlayFlags(given, named);
          const settings: Settings = { ...runDefaults(task), ...given };
          // Parsed once: a bad option value is refused before the scripts are read.
          const options = benchmarkOptions(named, settings);
          const bench = named.forSettings?.(options) ?? named;
          const file = String(argv.scripts);
          let data: unknown;
          try {
            data = JSON.parse(fs.readFileSync(file, 'utf8'));
          } catch (e) {
            const code = errorCode(e);
            throw new UserError(
              `--scripts ${file}: ${code ? `cannot read (${code})` : `not valid JSON (${errorMessage(e).replace(/\s+/g, ' ')})`}`,
            );
          }
          const scripts = parseScripts(data, file, bench.itemRefKey);
          const items = scripts.map((s) => bench.itemByRef(s.ref)); // unknown items fail before any request
          await withInterrupts(async (scope) => {
            const handle = await bench.createEnv(options);
            try {
              await handle.check?.(scope.signal);
              for (let i = 0; i < scripts.length; i++) {
                const steps = await playScript(bench, handle.makeEnv(items[i]), scripts[i], scope.signal);
                process.stdout.write(JSON.stringify({ id: scripts[i].id, steps }) + '\n');
              }
            } catch (e) {
              const sig = scope.stoppedBy();
              if (!sig) throw e;
              process.exitCode = SIGNAL_EXIT[sig];
            } finally {
              await handle.close?.();
            }
          });
        },
      })
      .demandCommand(1, 'Name an env command: play'),
  handler: () => {},
};
