// data/manifest.json and verifyVendored: the shipped tree verifies; a changed byte or a missing file
// is reported by path.
import { afterAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UserError } from '../../src/errors.js';
import { manifestSha, readManifest, verifyVendored } from '../../src/data/manifest.js';
import { repoRoot } from '../../src/paths.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'react-repro-manifest-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('vendored data manifest', () => {
  it('lists the task data with sha256, and the shipped tree matches it', async () => {
    const files = readManifest();
    const paths = files.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'data/hotpotqa/hotpot_dev_v1_simplified.json',
        'data/fever/paper_dev.jsonl',
        'envs/wikipedia/hotpotqa-2017/covered_dev_indices.json',
      ]),
    );
    expect(manifestSha('data/hotpotqa/hotpot_dev_v1_simplified.json')).toBe('05001dcdeb2b2b2243a88f23daaf8de9237494cd387e13bc25854d3e031101d3');
    expect(manifestSha('data/fever/paper_dev.jsonl')).toBe('41158707810008747946bf23471e82df53e77a513524b9e3ec1c2e674ef5ef8c');
    expect(await verifyVendored(files)).toEqual([]);
  });

  it('reports a changed byte and a missing file by path', async () => {
    const files = readManifest().filter((f) => f.bytes < 3_000_000);
    for (const f of files) {
      fs.mkdirSync(path.dirname(path.join(tmp, f.path)), { recursive: true });
      fs.copyFileSync(path.join(repoRoot, f.path), path.join(tmp, f.path));
    }
    expect(await verifyVendored(files, tmp)).toEqual([]);
    const changed = path.join(tmp, 'data/fever/paper_dev.jsonl');
    const buf = fs.readFileSync(changed);
    buf[1000] ^= 1;
    fs.writeFileSync(changed, buf);
    fs.rmSync(path.join(tmp, 'prompts/fever.json'));
    const problems = await verifyVendored(files, tmp);
    expect(problems.map((p) => [p.path, p.problem])).toEqual([
      ['prompts/fever.json', 'missing'],
      ['data/fever/paper_dev.jsonl', 'changed'],
    ]);
  });

  it('rejects a malformed manifest with one line naming the file and field', () => {
    const write = (name: string, body: unknown) => {
      const f = path.join(tmp, name);
      fs.writeFileSync(f, typeof body === 'string' ? body : JSON.stringify(body));
      return f;
    };
    const cases: [string, unknown, RegExp][] = [
      ['m1.json', '{"files": [', /m1\.json: cannot read the data manifest/],
      ['m2.json', { files: {} }, /m2\.json: field "files" must be an array/],
      ['m3.json', { files: [{ sha256: 'a'.repeat(64) }] }, /m3\.json: files\[0\]\.path must be a non-empty string/],
      ['m4.json', { files: [{ path: '../x', sha256: 'a'.repeat(64) }] }, /m4\.json: files\[0\]\.path must be relative/],
      ['m5.json', { files: [{ path: 'x', sha256: 'abc' }] }, /m5\.json: files\[0\]\.sha256 must be 64 lowercase hex digits/],
    ];
    for (const [name, body, re] of cases) {
      expect(() => readManifest(write(name, body))).toThrow(UserError);
      expect(() => readManifest(write(name, body))).toThrow(re);
    }
    expect(() => readManifest(path.join(tmp, 'absent.json'))).toThrow(/absent\.json: cannot read the data manifest/);
  });
});
