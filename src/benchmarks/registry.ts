// The benchmark registry: a benchmark plug-in registers itself by name; the core looks it up.
// Built-in benchmarks are registered by src/benchmarks/builtin.ts, the one file that lists them.
import { UserError } from '../errors.js';
import { parseLimit, type OptionSpec, type OptionTable, type Settings } from '../options.js';
import type { Benchmark, BenchmarkDefinition, Item, Split } from './types.js';

const factories = new Map<string, () => BenchmarkDefinition<unknown>>();
const instances = new Map<string, Benchmark>();

/**
 * Registers a benchmark under its name; the factory runs on first use (data loads lazily), and what it
 * returns is checked then (getBenchmark): a member the contract no longer reads is refused.
 */
export function registerBenchmark<Options>(name: string, factory: () => BenchmarkDefinition<Options>): void {
  if (factories.has(name)) throw new Error(`benchmark "${name}" is registered twice`);
  factories.set(name, factory);
}

export function benchmarkNames(): string[] {
  return [...factories.keys()];
}

/** The benchmark a run uses when --task is not given: the first one registered. */
export function defaultBenchmarkName(): string {
  const first = factories.keys().next();
  if (first.done) throw new Error('no benchmark is registered');
  return first.value;
}

/**
 * The flags of `bench` (kebab-case) a run of `method` reads: those the method declares
 * (Benchmark.methodFlags) and its environment's (play.flags, given to every method alike); undefined
 * where the benchmark does not say, so that every flag counts and nothing is left out on a guess.
 */
export function flagsReadBy(bench: Pick<Benchmark, 'methodFlags' | 'play'>, method: string): Set<string> | undefined {
  const read = bench.methodFlags?.(method);
  return read ? new Set([...read, ...(bench.play?.flags ?? [])]) : undefined;
}

export function hasBenchmark(name: string): boolean {
  return factories.has(name);
}

/** A benchmark name no benchmark has, as the one-line error says it (`given`: where the name came from). */
export function unknownBenchmark(name: string, given = '--task'): UserError {
  return new UserError(`${given}: unknown benchmark "${name}" (expected one of ${benchmarkNames().join(', ')})`);
}

/** The benchmark by name (one instance per process); UserError naming the known ones otherwise. */
export function getBenchmark(name: string): Benchmark {
  let b = instances.get(name);
  if (b) return b;
  const f = factories.get(name);
  if (!f) throw unknownBenchmark(name);
  const def = f();
  refuseRemovedMembers(def);
  // Fine-tuning data is what a method of `methods` did (export leaves combinations out): a name that
  // is none of them would default `export --format finetune` to nothing.
  const stray = def.finetuneMethods?.find((m) => !def.methods.includes(m));
  if (stray !== undefined)
    throw new UserError(`benchmark "${def.name}": finetuneMethods names "${stray}", not one of its methods (${def.methods.join(', ')})`);
  b = completeBenchmark(def);
  if (b.name !== name) throw new Error(`benchmark registered as "${name}" calls itself "${b.name}"`);
  // A flag another benchmark also declares must have its type (one flag of `run`, one parser type).
  for (const other of instances.values()) checkSharedFlags(other, b);
  instances.set(name, b);
  return b;
}

/**
 * Members an older contract read and this one does not (docs/library.md "Changes for plug-in
 * authors"): a plug-in still declaring one (plain JavaScript, or typed against the old types) would
 * have it ignored without a word, its Table 2 sample or its combination's base runs changed, so it is
 * refused, saying what replaces it.
 */
function refuseRemovedMembers(def: BenchmarkDefinition<unknown>): void {
  const removed = (member: string, instead: string) => new UserError(`benchmark "${def.name}": ${member} is no longer read: ${instead}`);
  const declares = (o: object | undefined, member: string) => o !== undefined && (o as Record<string, unknown>)[member] !== undefined;
  if (declares(def.errorAnalysis, 'isCorrect'))
    throw removed('errorAnalysis.isCorrect', 'declare isCorrect(episode) on the benchmark itself (default: its primary metric equals 1)');
  for (const [name, d] of Object.entries(def.derivedMethods ?? {})) {
    if (declares(d, 'baseSettings'))
      throw removed(
        `derivedMethods.${name}.baseSettings`,
        "a base run runs with the combination's settings and its own method, and describe(options) and combine(item, bases, options) receive the options parseOptions returned",
      );
  }
}

/** The one split a benchmark without splits has: every item, in index order. */
const ALL = 'all';

/** A definition with the defaults of its optional members filled in (docs/adding-a-benchmark.md). */
export function completeBenchmark(def: BenchmarkDefinition<unknown>): Benchmark {
  const title = def.title ?? def.name;
  const byIndex = (ref: unknown): Item => {
    if (typeof ref !== 'number' || !Number.isInteger(ref))
      throw new UserError(`"index": expected an item index 0..${def.size() - 1}, got ${JSON.stringify(ref)}`);
    return def.item(ref);
  };
  const allSplit = (name: string, opts: { limit?: number } = {}): Split => {
    if (name !== ALL) throw new UserError(`--split ${name}: ${title} has one split, ${ALL}`);
    const indices = Array.from({ length: def.size() }, (_, i) => i);
    return {
      benchmark: def.name,
      name: ALL,
      description: `every ${title} item in index order`,
      indices: indices.slice(0, parseLimit(opts.limit) ?? indices.length),
    };
  };
  const defaultMethod = def.defaultMethod ?? def.methods[0];
  return {
    ...def,
    title,
    describe: def.describe ?? title,
    options: def.options ?? {},
    splitNames: def.splitNames ?? (() => [ALL]),
    defaultSplit: def.defaultSplit ?? (def.splitNames ? def.splitNames()[0] : ALL),
    split: def.split ?? allSplit,
    itemRefKey: def.itemRefKey ?? 'index',
    itemByRef: def.itemByRef ?? byIndex,
    defaultMethod,
    inputFiles: def.inputFiles ?? (() => []),
    observe: def.observe ?? ((_action, step) => step.observation),
    reportTables: def.reportTables ?? (() => []),
  };
}

/** A run's options for this benchmark, parsed once (its parseOptions; without one, the settings themselves). */
export function benchmarkOptions(bench: Pick<Benchmark, 'parseOptions'>, settings: Settings): unknown {
  return bench.parseOptions ? bench.parseOptions(settings) : settings;
}

// A flag several benchmarks declare (--env-url for ALFWorld and WebShop, the Wikipedia flags for
// HotpotQA and FEVER) is one flag of `run`: one parser type for all of them and one rule for how a
// bundle keeps its value (OptionSpec.path, inBundle), so the rule is that they agree in type (and
// choices) and in those two, checked when a benchmark is created; the help text names every
// benchmark that uses the flag and keeps each one's description when they differ.

/** What a benchmark declares, as far as its flags go. */
export interface FlagDeclarer {
  name: string;
  title: string;
  options: OptionTable;
}

const choicesOf = (s: OptionSpec): string => (s.choices ? [...s.choices].sort().join('|') : '');
const typeOf = (s: OptionSpec): string => (s.choices ? `${s.type} (${s.choices.join('|')})` : s.type);

/**
 * UserError (one line naming both benchmarks) when the two declare a flag of one name with different
 * types, or differ in whether it names a file (path) or in how a bundle keeps it (inBundle, the same
 * function): one of the two declarations would be dropped without a word.
 */
export function checkSharedFlags(a: FlagDeclarer, b: FlagDeclarer): void {
  for (const [flag, sa] of Object.entries(a.options)) {
    const sb = b.options[flag];
    if (!sb) continue;
    const both = `--${flag}: benchmarks "${a.name}" and "${b.name}" both declare it`;
    if (sa.type !== sb.type || choicesOf(sa) !== choicesOf(sb))
      throw new UserError(
        `${both}, as ${typeOf(sa)} and ${typeOf(sb)}: a flag shared by benchmarks must have one type (rename one of them)`,
      );
    const alike = 'a flag shared by benchmarks must be declared alike (share one OptionSpec)';
    if (!!sa.path !== !!sb.path) throw new UserError(`${both}, one naming a file (path: true) and one not: ${alike}`);
    if (sa.inBundle !== sb.inBundle) throw new UserError(`${both}, with different inBundle hooks: ${alike}`);
  }
}

/**
 * The benchmarks' flags as one table (checked pairwise first). A shared flag is listed once under a
 * heading naming its benchmarks; differing descriptions are all kept, each after its benchmark's title;
 * differing defaults are left to each benchmark (the run applies its own benchmark's defaults); its
 * type, path and inBundle are the same in every declaration (checkSharedFlags).
 */
export function mergeBenchmarkFlags(benches: readonly FlagDeclarer[]): OptionTable {
  for (let i = 0; i < benches.length; i++) for (let j = i + 1; j < benches.length; j++) checkSharedFlags(benches[i], benches[j]);
  const out: OptionTable = {};
  const flags = [...new Set(benches.flatMap((b) => Object.keys(b.options)))];
  for (const flag of flags) {
    const users = benches.filter((b) => flag in b.options);
    const specs = users.map((b) => b.options[flag]);
    const first = specs[0];
    const { default: _d, ...shape } = first;
    const describes = new Set(specs.map((s) => s.describe));
    const defaults = new Set(specs.map((s) => JSON.stringify(s.default)));
    out[flag] = {
      group: `${users.map((b) => b.title).join(' / ')} options:`,
      ...shape,
      describe: describes.size === 1 ? first.describe : users.map((b, i) => `${b.title}: ${specs[i].describe}`).join('; '),
      ...(defaults.size === 1 && first.default !== undefined ? { default: first.default } : {}),
    };
  }
  return out;
}
