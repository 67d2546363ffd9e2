// Embedded llama.cpp backend (node-llama-cpp v3, CPU): raw text completion of a GGUF model, with
// the same request semantics as the Completions API (docs/protocol.md §3): greedy at temperature 0,
// stop sequences cut out of the text, n samples, maxTokens → finish "length".
//
// node-llama-cpp is an optional dependency of ~670 MB, so it is imported only here, dynamically,
// when a llama model is actually asked for.
//
// Prefix reuse: ReAct re-sends a prompt that only grows by appending (§4), so the model keeps ONE
// context sequence whose KV cache holds the last prompt + completion. Each call keeps the longest
// common token prefix and evaluates only the new suffix. Calls on the model are serialised by a
// mutex (one sequence; on a CPU, parallel sequences would share the same cores anyway). Concurrent
// episodes still share the long instruction + exemplar prefix.
import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Llama, LlamaContext, LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';
import { ConfigError, FatalRunError, InfraError } from '../errors.js';
import { sha256File } from '../util/hash.js';
import { ContextLengthError } from './context-limit.js';
import { checkLlamaRequest, findStop, sampleSeed, usableStops } from './llama-sampling.js';
import type { CompletionChoice, CompletionModel, CompletionRequest, CompletionResult } from './types.js';

export interface LlamaModelOptions {
  modelPath: string;
  /** Tokens the context holds (prompt + completion). Default: min(model's training context, 4096). */
  contextSize?: number;
  /** Seed used when a request carries none (sample i uses seed + i). Default: a fresh random seed per sample. */
  seed?: number;
  /** CPU threads for evaluation. Default: node-llama-cpp's choice (the machine's math cores). */
  threads?: number;
  /** Layers to offload to a GPU. 0 / unset: CPU only (the tested configuration). */
  gpuLayers?: number;
}

/** Counters for the run manifest, benchmarks and tests (cumulative since creation). */
export interface LlamaStats {
  calls: number;
  /** Prompt tokens of all generations (each of the n samples counts its prompt once). */
  promptTokens: number;
  /** Prompt tokens whose KV state was reused from the previous call instead of evaluated. */
  reusedPromptTokens: number;
  /** Prompt tokens actually evaluated (promptTokens - reusedPromptTokens). */
  evaluatedPromptTokens: number;
  /** Tokens sampled by the model (incl. the tokens of a matched stop, excl. end-of-generation). */
  generatedTokens: number;
  /** Every token llama.cpp decoded on this sequence, as counted by node-llama-cpp's TokenMeter. */
  decodedTokens: number;
}

export interface LlamaCompletionModel extends CompletionModel {
  /** The model's tokenizer, as used for prompts (without the BOS token that complete() prepends). */
  tokenize(text: string): number[];
  stats(): LlamaStats;
  close(): Promise<void>;
}

type NodeLlamaCpp = typeof import('node-llama-cpp');

async function importNodeLlamaCpp(): Promise<NodeLlamaCpp> {
  try {
    return await import('node-llama-cpp');
  } catch (e) {
    const why = e instanceof Error ? e.message.split('\n')[0] : String(e);
    throw new ConfigError(`llama model requested but node-llama-cpp could not be loaded (${why}); run \`npm install node-llama-cpp\``);
  }
}

/** A minimal FIFO mutex: one generation at a time on the shared context sequence. */
class Mutex {
  private tail: Promise<void> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

export async function createLlamaModel(opts: LlamaModelOptions): Promise<LlamaCompletionModel> {
  const modelPath = path.resolve(opts.modelPath);
  const basename = path.basename(modelPath);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(modelPath);
  } catch {
    throw new ConfigError(`llama model file not found: ${opts.modelPath} (expected a .gguf file)`);
  }
  if (!stat.isFile()) throw new ConfigError(`llama model path is not a file: ${opts.modelPath} (expected a .gguf file)`);
  for (const [name, v, min] of [
    ['contextSize', opts.contextSize, 16],
    ['threads', opts.threads, 1],
    ['gpuLayers', opts.gpuLayers, 0],
  ] as const) {
    if (v !== undefined && (!Number.isInteger(v) || v < min)) {
      throw new ConfigError(`llama ${name} must be an integer >= ${min}, got ${v}`);
    }
  }
  if (opts.seed !== undefined && !Number.isInteger(opts.seed)) throw new ConfigError(`llama seed must be an integer, got ${opts.seed}`);
  checkGgufHeader(modelPath, opts.modelPath);

  const nlc = await importNodeLlamaCpp();
  const useGpu = (opts.gpuLayers ?? 0) > 0;

  let llama: Llama;
  try {
    // Never build from source and never download anything: use the prebuilt binaries shipped in the
    // npm package (@node-llama-cpp/<platform>) or fail with a clear message.
    llama = await nlc.getLlama({
      gpu: useGpu ? 'auto' : false,
      build: 'never',
      usePrebuiltBinaries: true,
      skipDownload: true,
      progressLogs: false,
      logLevel: nlc.LlamaLogLevel.warn,
      ...(opts.threads !== undefined ? { maxThreads: opts.threads } : {}),
    });
  } catch (e) {
    throw new ConfigError(`node-llama-cpp found no usable llama.cpp binary (${firstLine(e)}); reinstall node-llama-cpp for this platform`);
  }
  if (useGpu && llama.gpu === false) {
    await llama.dispose();
    throw new ConfigError(`llama gpuLayers=${opts.gpuLayers} but node-llama-cpp found no GPU backend; use gpuLayers 0`);
  }

  let model: LlamaModel;
  let sha256: string;
  try {
    [model, sha256] = await Promise.all([llama.loadModel({ modelPath, gpuLayers: opts.gpuLayers ?? 0 }), sha256File(modelPath)]);
  } catch (e) {
    await llama.dispose();
    throw new ConfigError(`cannot load llama model ${basename}: ${firstLine(e)}`);
  }

  let context: LlamaContext;
  try {
    context = await model.createContext({
      contextSize: opts.contextSize ?? Math.min(model.trainContextSize, 4096),
      sequences: 1,
      ...(opts.threads !== undefined ? { threads: opts.threads } : {}),
    });
  } catch (e) {
    await model.dispose();
    await llama.dispose();
    throw new ConfigError(`cannot create a llama context of ${opts.contextSize ?? 'default'} tokens for ${basename}: ${firstLine(e)}`);
  }
  const sequence = context.getSequence();
  const version = await nlc.getModuleVersion().catch(() => 'unknown');
  return new LlamaCppCompletionModel({ llama, model, context, sequence, basename, sha256, opts, version });
}

/**
 * Checks the fixed GGUF header (magic, version 2/3, plausible counts) before node-llama-cpp parses
 * the file: its parser can hang on a file that is not GGUF at all.
 */
function checkGgufHeader(file: string, shown: string): void {
  const head = Buffer.alloc(24);
  let n: number;
  const fd = fs.openSync(file, 'r');
  try {
    n = fs.readSync(fd, head, 0, 24, 0);
  } finally {
    fs.closeSync(fd);
  }
  const bad = (why: string): never => {
    throw new ConfigError(`llama model ${shown} is not a usable GGUF file (${why})`);
  };
  if (n < 24 || head.toString('latin1', 0, 4) !== 'GGUF') bad('no GGUF magic');
  const version = head.readUInt32LE(4);
  if (version !== 2 && version !== 3) bad(`GGUF version ${version}; llama.cpp reads versions 2 and 3`);
  const tensors = head.readBigUInt64LE(8);
  const kvs = head.readBigUInt64LE(16);
  if (tensors > 1_000_000n || kvs > 1_000_000n) bad(`implausible header: ${tensors} tensors, ${kvs} metadata keys`);
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0];
}

interface Parts {
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  sequence: LlamaContextSequence;
  basename: string;
  sha256: string;
  opts: LlamaModelOptions;
  version: string;
}

class LlamaCppCompletionModel implements LlamaCompletionModel {
  readonly model: string;
  private readonly mutex = new Mutex();
  private closed = false;
  private readonly counters = { calls: 0, promptTokens: 0, reusedPromptTokens: 0, evaluatedPromptTokens: 0, generatedTokens: 0 };

  constructor(private readonly p: Parts) {
    this.model = p.basename;
  }

  describe(): Record<string, unknown> {
    return {
      backend: 'llama.cpp',
      engine: `node-llama-cpp@${this.p.version}`,
      modelPath: this.p.basename, // basename only: no local directory names in manifests
      sha256: this.p.sha256,
      contextSize: this.p.context.contextSize,
      threads: this.p.opts.threads ?? null,
      gpuLayers: this.p.opts.gpuLayers ?? 0,
      promptTokenization: 'BOS when the model asks for it; special-token text in the prompt stays plain text',
      samplerOrder: 'llama.cpp: penalties, top-k (off), top-p, temperature, seeded draw; greedy at temperature 0',
      prefixReuse: 'one context sequence, calls serialised',
    };
  }

  identity(): Record<string, unknown> {
    // The file's sha256 names the weights; modelPath (its basename) does not.
    const { modelPath: _path, ...rest } = this.describe();
    return rest;
  }

  tokenize(text: string): number[] {
    return [...this.p.model.tokenize(text, false)];
  }

  stats(): LlamaStats {
    const meter = this.p.sequence.tokenMeter;
    return { ...this.counters, decodedTokens: meter.usedInputTokens + meter.usedOutputTokens };
  }

  async complete(req: CompletionRequest, opts?: { signal?: AbortSignal }): Promise<CompletionResult> {
    checkLlamaRequest(req);
    const started = performance.now();
    const signal = opts?.signal;
    return this.mutex.run(async () => {
      if (this.closed) throw new InfraError('llama.cpp model is closed', 'llm');
      signal?.throwIfAborted();
      const promptTokens = this.promptTokens(req.prompt);
      if (promptTokens.length === 0) {
        throw new FatalRunError('llama.cpp backend: empty prompt and the model has no BOS token to start from');
      }
      const contextSize = this.p.context.contextSize;
      if (promptTokens.length >= contextSize) {
        // The embedded model's own context window: an outcome of the episode, like a server's refusal.
        const message = `prompt has ${promptTokens.length} tokens but the llama context holds ${contextSize}; raise contextSize`;
        throw new ContextLengthError(message, { family: 'llama.cpp', window: contextSize, promptTokens: promptTokens.length, message });
      }
      const base = req.seed ?? this.p.opts.seed;
      const choices: CompletionChoice[] = [];
      let completionTokens = 0;
      for (let i = 0; i < req.n; i++) {
        const seed = base !== undefined ? sampleSeed(base, i) : randomInt(0, 2 ** 32);
        const g = await this.generate(promptTokens, req, seed, signal);
        choices.push({ index: i, text: g.text, finishReason: g.finishReason });
        completionTokens += g.tokens;
      }
      this.counters.calls++;
      return {
        choices,
        // Like the Completions API: the prompt counts once for n samples.
        usage: { promptTokens: promptTokens.length, completionTokens, totalTokens: promptTokens.length + completionTokens },
        costUsd: 0,
        cachedChoices: 0,
        latencyMs: performance.now() - started,
      };
    });
  }

  async close(): Promise<void> {
    await this.mutex.run(async () => {
      if (this.closed) return;
      this.closed = true;
      await this.p.context.dispose();
      await this.p.model.dispose();
      await this.p.llama.dispose();
    });
  }

  /** BOS (when the vocabulary asks for it, as llama.cpp's own tokenizer does) + the prompt's tokens. */
  private promptTokens(prompt: string): Token[] {
    const m = this.p.model;
    const tokens = m.tokenize(prompt, false);
    const bos = m.tokens.bos;
    return m.tokens.shouldPrependBosToken && bos !== null ? [bos, ...tokens] : [...tokens];
  }

  private async generate(
    promptTokens: Token[],
    req: CompletionRequest,
    seed: number,
    signal: AbortSignal | undefined,
  ): Promise<{ text: string; finishReason: string; tokens: number }> {
    const { model, sequence, context } = this.p;
    // Keep the longest common prefix of the cached state (without the last prompt token: its logits
    // are needed, so it is always evaluated) and evaluate only the rest.
    await sequence.adaptStateToTokens(promptTokens.slice(0, -1), false);
    const reused = sequence.nextTokenIndex;
    this.counters.promptTokens += promptTokens.length;
    this.counters.reusedPromptTokens += reused;
    this.counters.evaluatedPromptTokens += promptTokens.length - reused;
    if (req.maxTokens === 0) return { text: '', finishReason: 'length', tokens: 0 };

    const stops = usableStops(req.stop);
    const generated: Token[] = [];
    const penalise = req.frequencyPenalty !== 0 || req.presencePenalty !== 0;
    const iterator = sequence.evaluate(promptTokens.slice(reused), {
      temperature: req.temperature, // 0 → greedy (argmax) in node-llama-cpp's sampler
      topK: 0, // no top-k: the Completions API has none
      topP: req.topP,
      minP: 0,
      seed,
      // OpenAI-style additive penalties over the tokens generated so far; multiplicative repeat
      // penalty off (penalty 1).
      ...(penalise
        ? {
            repeatPenalty: {
              punishTokens: () => generated,
              maxPunishTokens: Math.max(1, req.maxTokens),
              penalty: 1,
              frequencyPenalty: req.frequencyPenalty,
              presencePenalty: req.presencePenalty,
            },
          }
        : {}),
      yieldEogToken: true,
    });
    let text = '';
    let finishReason = 'length';
    try {
      for await (const token of iterator) {
        if (model.isEogToken(token)) {
          finishReason = 'stop';
          break;
        }
        generated.push(token);
        // With the prompt's last tokens as context, so a SentencePiece model's leading space (and a
        // UTF-8 sequence split across the prompt boundary) comes out as the continuation it is.
        text = model.detokenize(generated, false, promptTokens);
        const cut = findStop(text, stops);
        if (cut !== -1) {
          text = text.slice(0, cut);
          finishReason = 'stop';
          break;
        }
        if (generated.length >= req.maxTokens) break;
        // No room to evaluate this token: stop rather than let node-llama-cpp shift the context
        // (dropping the start of the prompt would silently change the task).
        if (sequence.nextTokenIndex >= context.contextSize - 1) break;
        if (signal?.aborted) break;
      }
    } catch (e) {
      throw new InfraError(`llama.cpp generation failed: ${firstLine(e)}`, 'llm', { cause: e });
    }
    signal?.throwIfAborted();
    this.counters.generatedTokens += generated.length;
    return { text, finishReason, tokens: generated.length };
  }
}
