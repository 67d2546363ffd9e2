// A benchmark is a plug-in: one folder under src/benchmarks/ that declares its items and splits, how
// to build its environment, its methods, its scorer and metrics, what the manifest records about its
// environment, and its report tables. The core (src/llm, src/run, src/report, src/cli) works through
// this interface only and never names a benchmark.
import type { Env, Observe } from '../envs/types.js';
import type { Method } from '../methods/types.js';
import type { OptionTable, Settings } from '../options.js';
import type { AnalysedEpisode, AnalysisLabel, EpisodeResult, Item, MetricDef, Split } from '../runlog/schema.js';
export type { AnalysedEpisode, AnalysisLabel, Item, MetricDef, Split } from '../runlog/schema.js';
import type { ReportFigure, ReportTable, RunView } from '../report/model.js';

/** Callbacks a run passes to createEnv (README "Reliability"); a benchmark may ignore them. */
export interface EnvHooks {
  /** Called before each backoff sleep of an environment request (src/envs/http/request.ts RetryEvent). */
  onRetry?(e: { service: string; attempt: number; reason: string; delayMs: number }): void;
}

/** What a run is about to do, for Benchmark.startNotes. */
export interface RunStart<Options = Settings> {
  method: string;
  split: string;
  /** The item indices this run covers. */
  indices: readonly number[];
  /** The benchmark's options, as its parseOptions returned them. */
  options: Options;
}

/** The environment side of a run, built once from the run's options. */
export interface EnvHandle {
  makeEnv(item: Item): Env;
  /** Secret-free fingerprint for the manifest: backend, snapshot sha256, server version, game list hash. */
  describe(): Record<string, unknown>;
  /**
   * The part of describe() that is the run's identity: what the items and observations are, not where
   * the server is, its timeouts or what changes between its restarts. Absent: the whole description.
   */
  identity?(): Record<string, unknown>;
  /** Checks run before the first episode (server reachable, right game list); throws UserError/InfraError. */
  check?(signal?: AbortSignal): Promise<void>;
  /** A pool of servers (src/envs/pool.ts): item index → the member URL that served it (recorded per session). */
  servedBy?(): Record<string, string>;
  close?(): Promise<void>;
}

/**
 * A method computed from other runs of the same items, with no model calls (the QA combinations).
 * Its hooks receive the combination run's options as its benchmark's parseOptions returned them,
 * parsed once (src/run/combination-run.ts).
 */
export interface DerivedMethod<Options = Settings> {
  name: string;
  /**
   * Methods of the base runs, in the order combine() receives their records. A base run is run with
   * the combination's settings, its method the base's.
   */
  bases: string[];
  /** What the combination is: part of its run's identity (its run id) and fidelity. */
  describe(options: Options): Record<string, unknown>;
  /** One item's result from the base runs' results (all present and error-free). */
  combine(item: Item, bases: StoredEpisode[], options: Options): EpisodeResult;
}

/** The part of a stored episode record a derived method reads. */
export interface StoredEpisode {
  answer: string | null;
  traj: string;
  steps: EpisodeResult['steps'];
  metrics: Record<string, number>;
  extra: Record<string, unknown>;
  n_calls: number;
  n_badcalls: number;
}

/**
 * Table 2-style error analysis (paper §3.3): the report samples 50 correct and 50 incorrect scored
 * episodes (correct as BenchmarkTask.isCorrect says) per run of `methods`, a person labels them with
 * `categories`, and the table is drawn beside the published shares (anchors with metric
 * "error_share" and subset = a category key). A benchmark without it is left out of the error
 * analysis.
 */
export interface ErrorAnalysis {
  /** Methods whose runs are sampled unless `report --label-methods` says otherwise, in table order. */
  methods: readonly string[];
  /** The categories a person labels with, in table order: success_* for correct, failure_* for incorrect. */
  categories: readonly AnalysisLabel[];
  /**
   * The categories that apply to one method's trajectories, a subset of `categories` in their order
   * (default: all of them). The label sheet offers only these, `report --labels` refuses any other, and
   * Table 2 leaves the rest empty for that method, as the paper does (CoT never searches: no search
   * result error).
   */
  categoriesOf?(method: string): readonly AnalysisLabel[];
  /** Tags a trajectory can show by itself, in table order (may be empty). */
  tags: readonly AnalysisLabel[];
  /** The keys of `tags` this scored episode shows. */
  autoTags(episode: AnalysedEpisode): string[];
}

/**
 * How `env play` names an item in a script: {"index": 3}, {"game": "..."}, {"session": "fixed_0"}, or
 * any key a benchmark chooses.
 */
export type ItemRefKey = string;

/**
 * The task: its items and splits, its scorer and metrics, what a run of it reads and records.
 * `Options` is the benchmark's own typed options: parseOptions reads them once from a run's flat
 * settings (UserError naming the flag), and every later hook receives that value. A benchmark without
 * parseOptions receives the settings themselves.
 */
export interface BenchmarkTask<Options = Settings> {
  name: string;
  /** Display name ("HotpotQA"); default: the name. */
  title?: string;
  /** One line for --help; default: the title. */
  describe?: string;
  /** Primary metric first (the progress line shows it). */
  metrics: MetricDef[];
  /** Option flags this benchmark adds to `run` and `env play` (src/cli turns them into flags); default none. */
  options?: OptionTable;
  /**
   * The typed Options of a run from its settings (flags, experiment file, stored manifest): called once
   * per run or `env play`, before any hook below; UserError naming the flag for a bad value.
   */
  parseOptions?(settings: Settings): Options;
  /**
   * Contradictions between flags given together (on the command line or to runExperiment), which
   * parseOptions cannot tell once defaults and an experiment file are layered in (--env-url with an
   * explicit --wiki snapshot): a UserError naming them. `given` holds only the flags given (camelCase);
   * called once per invocation for each benchmark its runs are of, before any run starts.
   */
  checkGivenFlags?(given: Settings): void;

  size(): number;
  /** Throws UserError when out of range. */
  item(index: number): Item;
  /** Default: one split, "all", every item in index order. */
  splitNames?(): string[];
  defaultSplit?: string;
  /** Throws UserError for an unknown split. The limit is validated by the run (src/run/options.ts). */
  split?(name: string, opts?: { limit?: number }): Split;
  /** `env play`: which key a script uses (default "index"), and the item it names (UserError when unknown). */
  itemRefKey?: ItemRefKey;
  itemByRef?(ref: unknown): Item;
  /**
   * The benchmark as a run with these settings sees it, when its items depend on a setting (ALFWorld's
   * --games FILE); absent or returning itself otherwise. Runs and `env play` use it.
   */
  forSettings?(options: Options): Benchmark;

  /** Scores one episode: a value in [0, 1] for every declared metric. The only scorer. */
  score(item: Item, result: EpisodeResult): Record<string, number>;
  /**
   * Whether a scored episode counts as correct: the trajectory browser's outcome, Table 2's sample of
   * correct and incorrect trajectories, export's successful trajectories and `correct` column all
   * ask src/report/correct.ts, which asks this. Default: the primary metric (the first of `metrics`)
   * equals 1, full marks, so a partial score is never correct.
   */
  isCorrect?(episode: AnalysedEpisode): boolean;
  /** Repo-relative files a run of this method reads (hashed into the manifest); default none. */
  inputFiles?(method: string, options: Options): string[];
  /** The fidelity choices of this benchmark, for the manifest (FEVER sample, step limit, goals check...). */
  fidelity?(options: Options): Record<string, unknown>;
}

/** The agent loops (methods) a benchmark runs, and the methods computed from other runs. */
export interface BenchmarkLoops<Options = Settings> {
  /** Methods that run episodes, e.g. ['standard', 'cot', 'cot-sc', 'act', 'react'] or ['act', 'react']. */
  methods: readonly string[];
  /** Default: the first of `methods`. */
  defaultMethod?: string;
  /**
   * How reports write method names, as the paper does (cot-sc: "CoT-SC"): those of `methods`, of
   * `derivedMethods` and of this benchmark's published numbers (the anchors file's methods, e.g.
   * ALFWorld's butler: "BUTLER"). A method without one is written as its name.
   */
  methodLabels?: Readonly<Record<string, string>>;
  /**
   * Methods (of `methods`) whose trajectories are fine-tuning data by default: `export --format
   * finetune` without --method takes this benchmark's runs of these. Default: the default method.
   */
  finetuneMethods?: readonly string[];
  /** Builds the method (UserError on a bad prompt file). */
  createMethod(name: string, options: Options): Method;
  derivedMethods?: Record<string, DerivedMethod<Options>>;
  /**
   * The flags of this benchmark's `options` that a run of `method` (one of `methods` or of
   * `derivedMethods`) reads besides its environment's (play.flags), named as `options` names them
   * (kebab-case; manifest.json stores the settings camelCase): exactly the flags whose value can
   * change the method's part of the run's identity, i.e. createMethod(...).describe() and runIdTag,
   * or for a derived method its describe() and its base runs' (test/run/identity-flags.test.ts holds
   * every built-in benchmark to this). The report reads a run's settings through it: of the
   * benchmark's flags, a run's variants and ablation notes name only these, and play.flags when
   * the run has an environment (src/report/grouping.ts effectiveSettings); settings that are no flag
   * of the benchmark (the model's, the run's) always count. Undefined for a method it does not
   * know; absent: every recorded setting counts, nothing is left out on a guess.
   */
  methodFlags?(method: string): readonly string[] | undefined;
}

/** The environment factory: what a run and `env play` step, and how a step reads as an observation. */
export interface EnvironmentFactory<Options = Settings> {
  /**
   * Builds the environment for a run or `env play`; validates the benchmark's options first. `hooks`
   * lets a run count the environment's retries as they happen.
   */
  createEnv(options: Options, hooks?: EnvHooks): Promise<EnvHandle>;
  /** The observation text of a step (src/envs/types.ts Observe); `env play` prints exactly this. Default: the step's observation. */
  observe?: Observe;
  /**
   * `env play`: the flags its environment reads (all that env play takes besides --task and
   * --scripts; absent: every flag of `options`), and how an action is written there, where the
   * loop's own rewriting of the model's text does not apply.
   */
  play?: { flags: readonly string[]; actions: string };
  /**
   * A short tag for run ids (after the method) naming a setting that tells runs apart at a glance,
   * e.g. a non-default prompt set; undefined for the default, so default runs keep their ids.
   */
  runIdTag?(method: string, options: Options): string | undefined;
}

/** What the run's closing lines and the report draw from a benchmark's runs; every hook optional. */
export interface ReportHooks<Options = Settings> {
  /** Lines to print after a run's summary (e.g. WebShop's goals check); its records are slim (src/runlog/slim-record.ts: no trajectory text). */
  summaryNotes?(runs: RunView): string[];
  /**
   * One-line notices to print before a run starts (e.g. FEVER on an offline snapshot that lacks the
   * evidence pages of the split); must not write anything.
   */
  startNotes?(run: RunStart<Options>): string[];
  /**
   * The paper-style tables of this benchmark (ours beside the paper's numbers). It receives every run
   * being reported and uses those it knows; tables with the same id from two benchmarks (HotpotQA and
   * FEVER share Table 1) are drawn once. Default: none.
   */
  reportTables?(runs: RunView[]): ReportTable[];
  /** The paper-style figures (Figure 2), same conventions. */
  reportFigures?(runs: RunView[]): ReportFigure[];
  /**
   * The paired comparisons worth a test (the paper's claims, e.g. ReAct against Act), each [first,
   * second]: the report compares first − second on the same items wherever a comparable set of this
   * benchmark's runs has both, in this order. Default: none.
   */
  comparisons?: readonly (readonly [string, string])[];
  /** Table 2-style error analysis (sampling, labels, automatic tags); absent = not analysed. */
  errorAnalysis?: ErrorAnalysis;
}

/**
 * What a benchmark plug-in declares (docs/adding-a-benchmark.md): the task, its loops, its
 * environment factory and its report hooks. Nine members are required; the registry fills in the
 * defaults of the rest (completeBenchmark) so the core always sees a whole `Benchmark`.
 */
export type BenchmarkDefinition<Options = Settings> = BenchmarkTask<Options> &
  BenchmarkLoops<Options> &
  EnvironmentFactory<Options> &
  ReportHooks<Options>;

type Defaulted =
  | 'title'
  | 'describe'
  | 'options'
  | 'splitNames'
  | 'defaultSplit'
  | 'split'
  | 'itemRefKey'
  | 'itemByRef'
  | 'defaultMethod'
  | 'inputFiles'
  | 'observe'
  | 'reportTables';

/**
 * A benchmark as the core uses it: a definition with its defaults filled in, its Options erased (the
 * core passes what parseOptions returned to the hooks, never looking inside). The hooks are declared
 * as methods, so a BenchmarkDefinition<WebshopOptions> is assignable to it.
 */
export type Benchmark = CompleteBenchmark<unknown>;

/** A definition with every defaulted member present, its Options still typed (what a plug-in's factory may return). */
export type CompleteBenchmark<Options> = BenchmarkDefinition<Options> & Required<Pick<BenchmarkDefinition<Options>, Defaulted>>;

/** A whole definition with a parser of its own typed Options (WebShop, ALFWorld). */
export type ParsedBenchmark<Options> = CompleteBenchmark<Options> & Required<Pick<BenchmarkDefinition<Options>, 'parseOptions'>>;
