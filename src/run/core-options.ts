// The flags every run has whatever its benchmark: the run's own, the model's and the response limits'
// (a benchmark adds its own: Benchmark.options). One list for `run`'s flags, its defaults, the check of
// flags a run does not read and the report's comparison of settings.
import type { OptionTable } from '../options.js';
import { llmCliOptions } from '../llm/config.js';
import { runOptions } from './options.js';
import { responseLimitOptions } from './response-limits.js';

export const coreRunOptions: OptionTable = { ...runOptions, ...llmCliOptions, ...responseLimitOptions };
