// `react-repro data ...` run as a child process through ./bin/react-repro.js, as users run it.
import { afterAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readManifest } from '../../src/data/manifest.js';
import { repoRoot } from '../../src/paths.js';

const bin = path.join(repoRoot, 'bin', 'react-repro.js');
const samples = JSON.parse(fs.readFileSync(path.join(repoRoot, 'test', 'fixtures', 'python-random', 'paper-samples.json'), 'utf8'));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'react-repro-cli-data-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}
function run(...args: string[]): Promise<Result> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: tmp, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
/** One line on stderr, "react-repro: ...", no stack trace, non-zero exit. */
function expectOneLineError(r: Result, re: RegExp): void {
  expect(r.code).not.toBe(0);
  expect(r.stdout).toBe('');
  const lines = r.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('npm warn'));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^react-repro: /);
  expect(lines[0]).toMatch(re);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}
/** A tree whose data/manifest.json is cut short: a malformed data file read by the CLI. */
function brokenRoot(): string {
  const root = path.join(tmp, 'broken');
  fs.mkdirSync(path.join(root, 'data'), { recursive: true });
  fs.writeFileSync(
    path.join(root, 'data', 'manifest.json'),
    fs.readFileSync(path.join(repoRoot, 'data', 'manifest.json'), 'utf8').slice(0, 300),
  );
  return root;
}
const lines = (n: number[]) => n.map((i) => `${i}\n`).join('');

// Each child process pays tsx start-up (~1.5 s CPU), so the cases are few and grouped.
describe('react-repro data', () => {
  it("sample hotpotqa react500 prints CPython's indices", async () => {
    const r = await run('data', 'sample', 'hotpotqa', 'react500');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(lines(samples['hotpotqa/react500']));
  });

  it("sample fever react500 and react500-fixed print CPython's indices", async () => {
    const [a, b] = await Promise.all([
      run('data', 'sample', 'fever', 'react500'),
      run('data', 'sample', 'fever', 'react500-fixed', '--limit', '7'),
    ]);
    expect(a.stdout).toBe(lines(samples['fever/react500']));
    expect(b.stdout).toBe(lines(samples['fever/react500-fixed'].slice(0, 7)));
    expect([a.code, b.code]).toEqual([0, 0]);
  });

  it('splits lists every split with its size and description; show prints JSON', async () => {
    const [s, show] = await Promise.all([run('data', 'splits'), run('data', 'show', 'fever', '1')]);
    expect(s.code).toBe(0);
    expect(s.stdout).toMatch(/^hotpotqa \(7405 items/m);
    expect(s.stdout).toMatch(/^ {2}react500 +500 {2}the paper's 500-question sample/m);
    expect(s.stdout).toMatch(/^ {2}offline +1906 /m);
    expect(s.stdout).toMatch(/^ {2}react500-fixed +500 /m);
    expect(JSON.parse(show.stdout)).toEqual({
      index: 1,
      id: 'Tilda Swinton is a vegan.',
      input: 'Tilda Swinton is a vegan.',
      gold: 'NOT ENOUGH INFO',
      meta: { id: 194462, verifiable: 'NOT VERIFIABLE' },
    });
  });

  it('verify passes on the shipped tree, one OK line per file', async () => {
    const r = await run('data', 'verify');
    expect(r.code).toBe(0);
    const files = readManifest();
    expect(r.stdout.split('\n').filter(Boolean)).toEqual(files.map((f) => `OK       ${f.path}`));
  });

  it('verify --root on a copy with one byte changed fails naming the file', async () => {
    const root = path.join(tmp, 'tree');
    for (const f of readManifest()) {
      fs.mkdirSync(path.dirname(path.join(root, f.path)), { recursive: true });
      fs.copyFileSync(path.join(repoRoot, f.path), path.join(root, f.path));
    }
    fs.mkdirSync(path.join(root, 'data'), { recursive: true });
    fs.copyFileSync(path.join(repoRoot, 'data', 'manifest.json'), path.join(root, 'data', 'manifest.json'));
    const target = path.join(root, 'prompts', 'prompts_naive.json');
    const buf = fs.readFileSync(target);
    buf[buf.length - 2] ^= 0x20;
    fs.writeFileSync(target, buf);
    const r = await run('data', 'verify', '--root', root);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toMatch(/^CHANGED {2}prompts\/prompts_naive\.json \(sha256 [0-9a-f]{64}, manifest says f35e8c17/m);
    expect(r.stdout).toMatch(/^OK {7}data\/fever\/paper_dev\.jsonl$/m);
    expect(r.stderr.trim()).toBe(
      'react-repro: data verify: 1 of 13 files differ from data/manifest.json: prompts/prompts_naive.json (changed)'.replace(
        '13',
        String(readManifest().length),
      ),
    );
  });

  it('bad task, split, limit or index: one line, non-zero exit, no stack', async () => {
    const cases: [string[], RegExp][] = [
      [['data', 'sample', 'squad', 'dev'], /^react-repro: data sample: unknown benchmark "squad" \(expected one of hotpotqa, fever/],
      [['data', 'splits', 'squad'], /^react-repro: data splits: unknown benchmark "squad" \(expected one of hotpotqa, fever/],
      [['data', 'show', 'squad', '3'], /^react-repro: data show: unknown benchmark "squad" \(expected one of hotpotqa, fever/],
      [['data', 'sample', 'hotpotqa', 'test'], /unknown split "test" for task hotpotqa; known splits: dev, react500, offline, offline500/],
      [['data', 'sample', 'hotpotqa', 'react500', '--limit', '0'], /--limit: expected a positive integer, got "0"/],
      [['data', 'sample', 'fever', 'react500', '--limit', '-3'], /--limit: expected a positive integer, got "-3"/],
      [['data', 'sample', 'hotpotqa'], /Not enough non-option arguments/],
      [['data', 'show', 'hotpotqa', '7405'], /hotpotqa: index 7405 is out of range/],
      [['data', 'verify', '--root', brokenRoot()], /broken[\\/]data[\\/]manifest\.json: cannot read the data manifest \(.*JSON/],
    ];
    for (const [args, re] of cases) expectOneLineError(await run(...args), re);
  }, 120_000);

  it('subcommands have --help', async () => {
    const rs = await Promise.all([run('data', '--help'), run('data', 'sample', '--help')]);
    for (const r of rs) expect(r.code).toBe(0);
    expect(rs[0].stdout).toMatch(/data verify +Check every file/);
    expect(rs[0].stdout).toMatch(/data sample <task> <split>/);
    expect(rs[0].stdout).toMatch(/data splits \[task\]/);
    expect(rs[0].stdout).toMatch(/data show <task> <index>/);
    expect(rs[1].stdout).toMatch(/^react-repro data sample <task> <split>/);
    expect(rs[1].stdout).toMatch(/--limit/);
  });
});
