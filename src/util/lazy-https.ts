// node:https, loaded on first use. With node:tls under it, it costs ~5–10 ms to load (bench/results-start.md),
// which a run against a plain-http server (vLLM, llama.cpp, Ollama on a local port) would pay in front
// of its first request for nothing.
import { createRequire } from 'node:module';
import type * as Https from 'node:https';

const requireBuiltin = createRequire(import.meta.url);
let loaded: typeof Https | undefined;

export function nodeHttps(): typeof Https {
  return (loaded ??= requireBuiltin('node:https') as typeof Https);
}
