// Node built-ins a run needs only now and then, loaded on first use. Each costs milliseconds to load
// (node:https with node:tls ~5–10 ms, node:http ~3 ms, node:zlib ~2 ms: bench/results-start.md), which a
// run against a plain-http server answering uncompressed (vLLM, llama.cpp, Ollama on a local port)
// would pay in front of its first request for nothing.
import { createRequire } from 'node:module';
import type * as Http from 'node:http';
import type * as Https from 'node:https';
import type * as Zlib from 'node:zlib';

const requireBuiltin = createRequire(import.meta.url);
let https: typeof Https | undefined;
let http: typeof Http | undefined;
let zlib: typeof Zlib | undefined;

/** node:https: for https endpoints. */
export function nodeHttps(): typeof Https {
  return (https ??= requireBuiltin('node:https') as typeof Https);
}

/** node:http: its header checks, for a header they refuse (the error they throw). */
export function nodeHttp(): typeof Http {
  return (http ??= requireBuiltin('node:http') as typeof Http);
}

/** node:zlib: for a compressed answer, a bundle written or read. */
export function nodeZlib(): typeof Zlib {
  return (zlib ??= requireBuiltin('node:zlib') as typeof Zlib);
}
