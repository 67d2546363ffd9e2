// The sha256 of files hashed on every run, remembered by file identity (src/util/file-sha.ts): a file
// written since (same size, modification time set back) is hashed again; a memo file that is missing,
// foreign or corrupt only means hashing again; the answer is always the file's sha256.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rememberedSha256File, rememberedSha256FileSync } from '../../src/util/file-sha.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'file-sha-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('rememberedSha256File', () => {
  it('answers the sha256, remembers it in the memo file, and rehashes a file rewritten with its old size and mtime', async () => {
    const f = path.join(tmp, 'a.txt');
    const memo = path.join(tmp, 'memo', 'file-sha256.json');
    fs.writeFileSync(f, 'abc');
    expect(await rememberedSha256File(f, memo)).toBe(sha('abc'));
    const stored = JSON.parse(fs.readFileSync(memo, 'utf8')) as Record<string, { sha: string }>;
    expect(stored[path.resolve(f)].sha).toBe(sha('abc'));
    const { atime, mtime } = fs.statSync(f);
    fs.writeFileSync(f, 'xyz'); // same size
    fs.utimesSync(f, atime, mtime); // modification time set back: the change time still moved
    expect(await rememberedSha256File(f, memo)).toBe(sha('xyz'));
    expect(rememberedSha256FileSync(f, memo)).toBe(sha('xyz'));
  });

  it('serves a remembered sha from the memo file without reading the file (identity unchanged)', () => {
    const f = path.join(tmp, 'b.txt');
    const memo = path.join(tmp, 'memo-b.json');
    fs.writeFileSync(f, 'hello');
    expect(rememberedSha256FileSync(f, memo)).toBe(sha('hello'));
    // A memo written by another process, with this identity and a different sha: believed (no read).
    const entry = JSON.parse(fs.readFileSync(memo, 'utf8')) as Record<string, { id: string; sha: string }>;
    entry[path.resolve(f)].sha = 'f'.repeat(64);
    fs.writeFileSync(memo, JSON.stringify(entry));
    const fresh = path.join(tmp, 'memo-b2.json');
    fs.copyFileSync(memo, fresh);
    expect(rememberedSha256FileSync(f, fresh)).toBe('f'.repeat(64));
  });

  it('hashes again when the memo file is corrupt or foreign, and throws for a missing input file', async () => {
    const f = path.join(tmp, 'c.txt');
    fs.writeFileSync(f, 'c');
    for (const [name, text] of [
      ['corrupt.json', '{"trunc'],
      ['array.json', '[1,2]'],
      ['foreign.json', JSON.stringify({ [path.resolve(f)]: { id: 'x', sha: 'not-hex' } })],
    ]) {
      const memo = path.join(tmp, name);
      fs.writeFileSync(memo, text);
      expect(await rememberedSha256File(f, memo)).toBe(sha('c'));
    }
    await expect(rememberedSha256File(path.join(tmp, 'missing.txt'))).rejects.toThrow(/ENOENT/);
    expect(() => rememberedSha256FileSync(path.join(tmp, 'missing.txt'))).toThrow(/ENOENT/);
  });
});
