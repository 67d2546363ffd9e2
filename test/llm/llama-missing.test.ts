// Start-up errors of the llama.cpp backend that need no model: a missing file, bad options, and
// node-llama-cpp not installed (simulated by making its import fail).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/errors.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'react-repro-llama-missing-'));
const fakeModel = path.join(dir, 'model.gguf');
// A valid GGUF v3 header (no tensors, no metadata): passes the backend's header check.
const header = Buffer.alloc(24);
header.write('GGUF', 0, 'latin1');
header.writeUInt32LE(3, 4);
fs.writeFileSync(fakeModel, header);

afterAll(() => {
  vi.doUnmock('node-llama-cpp');
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('createLlamaModel start-up errors', () => {
  it('names a missing model file', async () => {
    const { createLlamaModel } = await import('../../src/llm/llama.js');
    const err = await createLlamaModel({ modelPath: path.join(dir, 'nope.gguf') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain('nope.gguf');
  });

  it('rejects bad numeric options before loading anything', async () => {
    const { createLlamaModel } = await import('../../src/llm/llama.js');
    await expect(createLlamaModel({ modelPath: fakeModel, contextSize: 0 })).rejects.toThrow(/contextSize/);
    await expect(createLlamaModel({ modelPath: fakeModel, threads: 1.5 })).rejects.toThrow(/threads/);
    await expect(createLlamaModel({ modelPath: fakeModel, seed: 0.5 })).rejects.toThrow(ConfigError);
  });

  it('says to install node-llama-cpp when it cannot be imported', async () => {
    vi.resetModules();
    vi.doMock('node-llama-cpp', () => {
      throw new Error("Cannot find package 'node-llama-cpp' imported from src/llm/llama.ts");
    });
    const { createLlamaModel } = await import('../../src/llm/llama.js');
    const err = await createLlamaModel({ modelPath: fakeModel }).catch((e: unknown) => e);
    // ConfigError of the freshly imported module graph: compare by name and message.
    expect((err as Error).name).toBe('UserError');
    expect((err as Error).constructor.name).toBe('ConfigError');
    expect((err as Error).message).toContain('npm install node-llama-cpp');
  });
});
