// Node built-ins a run needs only now and then, loaded on first use. Each costs milliseconds to load
// (node:https with node:tls ~5–10 ms, node:http ~3 ms, node:zlib ~2 ms: bench/results-start.md), which a
// run against a plain-http server answering uncompressed (vLLM, llama.cpp, Ollama on a local port)
// would pay in front of its first request for nothing.
import { createRequire } from 'node:module';
import type * as Http from 'node:http';
import type * as Https from 'node:https';
import type * as Zlib from 'node:zlib';

const requireBuiltin = createRequire(import.meta.url);

/** A getter that requires the built-in on its first call. */
function onFirstUse<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireBuiltin(id) as T);
}

/** node:https: for https endpoints. */
export const nodeHttps = onFirstUse<typeof Https>('node:https');

/** node:http: its header checks, for a header they refuse (the error they throw). */
export const nodeHttp = onFirstUse<typeof Http>('node:http');

/** node:zlib: for a compressed answer, a bundle written or read. */
export const nodeZlib = onFirstUse<typeof Zlib>('node:zlib');
