// The benchmarks that ship with react-repro: the one place that lists them. Importing this module
// registers them; the core then finds them by name through the registry.
import { registerBenchmark } from './registry.js';
import { createHotpotQABenchmark } from './hotpotqa/index.js';
import { createFeverBenchmark } from './fever/index.js';
import { createAlfworldBenchmark } from './alfworld/index.js';
import { createWebshopBenchmark } from './webshop/index.js';

registerBenchmark('hotpotqa', createHotpotQABenchmark);
registerBenchmark('fever', createFeverBenchmark);
registerBenchmark('alfworld', createAlfworldBenchmark);
registerBenchmark('webshop', createWebshopBenchmark);

export { getBenchmark, benchmarkNames, registerBenchmark, hasBenchmark } from './registry.js';
