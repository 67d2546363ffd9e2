// Builds a tiny random-weight llama-architecture GGUF model that llama.cpp loads, so the embedded
// backend can be tested for real on a machine with no model weights. The tokenizer is GPT-2 style
// byte-level BPE: the 256 byte tokens (in GPT-2's printable byte-to-unicode spelling), a few merges
// and one control token used as BOS and EOS.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeGguf, gguf, type GgufFile, type GgufTensor, type GgufValue } from './gguf-writer.js';
import { mulberry32 } from '../../../src/util/mulberry32.js';

export interface TinyLlamaConfig {
  /** 'gpt2': byte-level BPE; 'spm': llama SentencePiece with <0xNN> byte fallback and "▁" spaces. */
  tokenizer?: 'gpt2' | 'spm';
  /**
   * A token (as spelled in the vocabulary) that greedy decoding always picks: a constant feature that
   * no layer writes to is read only by this token's output row. Lets a test know what comes out.
   */
  forceToken?: string;
  contextLength: number;
  embeddingLength: number;
  blockCount: number;
  feedForwardLength: number;
  headCount: number;
  headCountKv: number;
  seed: number;
}

export const DEFAULT_TINY_LLAMA: TinyLlamaConfig = {
  contextLength: 512,
  embeddingLength: 64,
  blockCount: 2,
  feedForwardLength: 128,
  headCount: 4,
  headCountKv: 2,
  seed: 1234,
};

export { mulberry32 };

/** GPT-2's reversible byte → printable unicode character map used to spell byte-level BPE tokens. */
export function gpt2ByteToUnicode(): string[] {
  const printable: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) printable.push(b);
  for (let b = 0xa1; b <= 0xac; b++) printable.push(b);
  for (let b = 0xae; b <= 0xff; b++) printable.push(b);
  const map: string[] = new Array(256);
  for (const b of printable) map[b] = String.fromCodePoint(b);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    if (map[b] === undefined) map[b] = String.fromCodePoint(256 + extra++);
  }
  return map;
}

/** Merges as "left right" pairs in GPT-2 spelling (Ġ = space). Order = merge priority. */
const MERGES: Array<[string, string]> = [
  ['Ġ', 't'],
  ['h', 'e'],
  ['Ġ', 'a'],
  ['i', 'n'],
  ['Ġt', 'he'],
  ['e', 'r'],
  ['o', 'n'],
  ['Ġ', 's'],
  ['e', 'd'],
  ['Ġ', 'o'],
  ['Ġ', 'w'],
  ['r', 'e'],
  ['Ġ', 'T'],
  ['Ġ', 'A'],
  ['T', 'h'],
  ['Th', 'o'],
];

export interface TinyVocab {
  tokens: string[];
  tokenTypes: number[];
  merges: string[];
  bosEosId: number;
  /** Token ids that decode to one printable ASCII byte, a space or "\n" (candidates for greedy output). */
  textTokenIds: Set<number>;
}

// llama_token_type: 1 normal, 3 control.
const TOKEN_NORMAL = 1;
const TOKEN_CONTROL = 3;

export function buildTinyVocab(): TinyVocab {
  const byteChars = gpt2ByteToUnicode();
  const tokens = [...byteChars];
  const tokenTypes = tokens.map(() => TOKEN_NORMAL);
  const textTokenIds = new Set<number>();
  for (let b = 0; b < 256; b++) if ((b >= 0x20 && b <= 0x7e) || b === 0x0a) textTokenIds.add(b);
  const merges: string[] = [];
  for (const [l, r] of MERGES) {
    if (!tokens.includes(l) || !tokens.includes(r)) throw new Error(`merge ${l} ${r}: parts missing`);
    merges.push(`${l} ${r}`);
    textTokenIds.add(tokens.length);
    tokens.push(l + r);
    tokenTypes.push(TOKEN_NORMAL);
  }
  const bosEosId = tokens.length;
  tokens.push('<|endoftext|>');
  tokenTypes.push(TOKEN_CONTROL);
  return { tokens, tokenTypes, merges, bosEosId, textTokenIds };
}

// llama_token_type: 2 unknown, 6 byte.
const TOKEN_UNKNOWN = 2;
const TOKEN_BYTE = 6;

/** SentencePiece pieces: "▁" marks a space. Scores: longer pieces merge first. */
const SPM_PIECES = ['▁', '▁t', '▁the', 'he', 'in', '▁a', 'er', 'on', '▁s', 'ed', '▁T', 'Th', 'ought'];

export function buildTinySpmVocab(): TinyVocab & { scores: number[] } {
  const tokens = ['<unk>', '<s>', '</s>'];
  const tokenTypes = [TOKEN_UNKNOWN, TOKEN_CONTROL, TOKEN_CONTROL];
  const scores = [0, 0, 0];
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    tokenTypes.push(TOKEN_BYTE);
    scores.push(0);
  }
  const textTokenIds = new Set<number>();
  const add = (piece: string, score: number) => {
    textTokenIds.add(tokens.length);
    tokens.push(piece);
    tokenTypes.push(TOKEN_NORMAL);
    scores.push(score);
  };
  // Single printable ASCII characters (space is "▁", in SPM_PIECES) so text needs no byte fallback.
  for (let b = 0x21; b <= 0x7e; b++) add(String.fromCharCode(b), -1000 - b);
  SPM_PIECES.forEach((p, i) => add(p, -i));
  textTokenIds.add(3 + 0x0a); // "\n" is only reachable through its byte token
  return { tokens, tokenTypes, merges: [], bosEosId: 1, textTokenIds, scores };
}

export function buildTinyLlama(config: TinyLlamaConfig = DEFAULT_TINY_LLAMA): { file: GgufFile; vocab: TinyVocab } {
  const spm = config.tokenizer === 'spm';
  const vocab = spm ? buildTinySpmVocab() : buildTinyVocab();
  const nVocab = vocab.tokens.length;
  const nEmbd = config.embeddingLength;
  const headDim = nEmbd / config.headCount;
  if (!Number.isInteger(headDim)) throw new Error('embeddingLength must be divisible by headCount');
  const nEmbdKv = headDim * config.headCountKv;
  const nFf = config.feedForwardLength;
  const rand = mulberry32(config.seed);

  // Uniform in [-scale, scale]; all values exact in float32.
  const random = (count: number, scale: number): Float32Array => {
    const a = new Float32Array(count);
    for (let i = 0; i < count; i++) a[i] = (rand() * 2 - 1) * scale;
    return a;
  };
  const ones = (count: number): Float32Array => new Float32Array(count).fill(1);
  const proj = (nIn: number, nOut: number): Float32Array => random(nIn * nOut, Math.sqrt(3 / nIn));

  // Output head: rows of non-text tokens (control bytes, bytes >= 0x80, EOS) are zero, so their logit
  // is exactly 0 while text tokens get logits with a spread of several units: greedy output is
  // printable text (and valid UTF-8) instead of random bytes.
  const output = random(nEmbd * nVocab, 1.2);
  for (let t = 0; t < nVocab; t++) {
    if (!vocab.textTokenIds.has(t)) output.fill(0, t * nEmbd, (t + 1) * nEmbd);
  }

  const tokenEmbd = random(nEmbd * nVocab, 1);
  let forced = -1;
  if (config.forceToken !== undefined) {
    forced = vocab.tokens.indexOf(config.forceToken);
    if (forced === -1) throw new Error(`forceToken ${config.forceToken} is not in the vocabulary`);
    // Feature 0: constant 8 in every token embedding; no layer writes to it (below), so after the
    // final RMS norm it stays large, and only the forced token's output row reads it.
    for (let t = 0; t < nVocab; t++) tokenEmbd[t * nEmbd] = 8;
    for (let t = 0; t < nVocab; t++) output[t * nEmbd] = t === forced ? 50 : 0;
  }
  // Zero output feature 0 of a [nIn, nEmbd] projection (row-major, ne0 = nIn contiguous).
  const keepFeature0 = (w: Float32Array, nIn: number): Float32Array => {
    if (forced !== -1) w.fill(0, 0, nIn);
    return w;
  };

  // Shapes in ggml order (ne0 = input features for weight matrices): see llama.cpp's
  // LLM_ARCH_LLAMA tensor creation, e.g. attn_q {n_embd, n_embd_head_k * n_head}.
  const tensors: GgufTensor[] = [
    { name: 'token_embd.weight', dims: [nEmbd, nVocab], data: tokenEmbd },
    { name: 'output_norm.weight', dims: [nEmbd], data: ones(nEmbd) },
    { name: 'output.weight', dims: [nEmbd, nVocab], data: output },
  ];
  for (let b = 0; b < config.blockCount; b++) {
    const p = `blk.${b}.`;
    tensors.push(
      { name: p + 'attn_norm.weight', dims: [nEmbd], data: ones(nEmbd) },
      { name: p + 'attn_q.weight', dims: [nEmbd, nEmbd], data: proj(nEmbd, nEmbd) },
      { name: p + 'attn_k.weight', dims: [nEmbd, nEmbdKv], data: proj(nEmbd, nEmbdKv) },
      { name: p + 'attn_v.weight', dims: [nEmbd, nEmbdKv], data: proj(nEmbd, nEmbdKv) },
      { name: p + 'attn_output.weight', dims: [nEmbd, nEmbd], data: keepFeature0(proj(nEmbd, nEmbd), nEmbd) },
      { name: p + 'ffn_norm.weight', dims: [nEmbd], data: ones(nEmbd) },
      { name: p + 'ffn_gate.weight', dims: [nEmbd, nFf], data: proj(nEmbd, nFf) },
      { name: p + 'ffn_up.weight', dims: [nEmbd, nFf], data: proj(nEmbd, nFf) },
      { name: p + 'ffn_down.weight', dims: [nFf, nEmbd], data: keepFeature0(proj(nFf, nEmbd), nFf) },
    );
  }

  const file: GgufFile = {
    metadata: [
      ['general.architecture', gguf.str('llama')],
      ['general.name', gguf.str('react-repro tiny random llama (test fixture)')],
      ['general.alignment', gguf.u32(32)],
      ['general.file_type', gguf.u32(0)], // all F32
      ['llama.context_length', gguf.u32(config.contextLength)],
      ['llama.embedding_length', gguf.u32(nEmbd)],
      ['llama.block_count', gguf.u32(config.blockCount)],
      ['llama.feed_forward_length', gguf.u32(nFf)],
      ['llama.attention.head_count', gguf.u32(config.headCount)],
      ['llama.attention.head_count_kv', gguf.u32(config.headCountKv)],
      ['llama.rope.dimension_count', gguf.u32(headDim)],
      ['llama.rope.freq_base', gguf.f32(10000)],
      ['llama.attention.layer_norm_rms_epsilon', gguf.f32(1e-5)],
      ['llama.vocab_size', gguf.u32(nVocab)],
      ...tokenizerMetadata(vocab, spm),
    ],
    tensors,
  };
  return { file, vocab };
}

function tokenizerMetadata(vocab: TinyVocab & { scores?: number[] }, spm: boolean): Array<[string, GgufValue]> {
  const common: Array<[string, GgufValue]> = [
    ['tokenizer.ggml.tokens', gguf.arr('STRING', vocab.tokens)],
    ['tokenizer.ggml.token_type', gguf.arr('INT32', vocab.tokenTypes)],
  ];
  if (spm) {
    return [
      ['tokenizer.ggml.model', gguf.str('llama')],
      ...common,
      ['tokenizer.ggml.scores', gguf.arr('FLOAT32', vocab.scores ?? [])],
      ['tokenizer.ggml.bos_token_id', gguf.u32(1)],
      ['tokenizer.ggml.eos_token_id', gguf.u32(2)],
      ['tokenizer.ggml.unknown_token_id', gguf.u32(0)],
      ['tokenizer.ggml.add_bos_token', gguf.bool(true)],
      ['tokenizer.ggml.add_eos_token', gguf.bool(false)],
      ['tokenizer.ggml.add_space_prefix', gguf.bool(true)],
    ];
  }
  return [
    ['tokenizer.ggml.model', gguf.str('gpt2')],
    ['tokenizer.ggml.pre', gguf.str('default')],
    ...common,
    ['tokenizer.ggml.merges', gguf.arr('STRING', vocab.merges)],
    ['tokenizer.ggml.bos_token_id', gguf.u32(vocab.bosEosId)],
    ['tokenizer.ggml.eos_token_id', gguf.u32(vocab.bosEosId)],
    ['tokenizer.ggml.add_bos_token', gguf.bool(true)],
    ['tokenizer.ggml.add_eos_token', gguf.bool(false)],
  ];
}

/** Writes the tiny model to `dir` (a fresh temp dir by default) and returns its path. */
export function writeTinyLlamaGguf(
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'react-repro-gguf-')),
  config: TinyLlamaConfig = DEFAULT_TINY_LLAMA,
): { modelPath: string; dir: string; vocab: TinyVocab; config: TinyLlamaConfig } {
  if (os.endianness() !== 'LE') throw new Error('the GGUF writer assumes a little-endian host');
  const { file, vocab } = buildTinyLlama(config);
  const modelPath = path.join(dir, config.tokenizer === 'spm' ? 'tiny-llama-spm.gguf' : 'tiny-llama.gguf');
  fs.writeFileSync(modelPath, encodeGguf(file));
  return { modelPath, dir, vocab, config };
}
