// Which code bin/react-repro.js runs: the compiled dist/ when it is current, src/ through tsx when a
// source file is newer than its compiled file or has none (a checkout edited without rebuilding), and
// dist/ alone in an installed package (no src/). Checked on a copy of the bin in a miniature package
// whose two entry points say which one ran.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, cleanEnv, repo } from '../run/cli-helpers.js';

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'react-repro-bin-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A package with bin/, src/cli/main.ts, src/util/x.ts and their dist/ twins (and the bundle, with `bundle`). */
function miniPackage(name: string, opts: { src?: boolean; bundle?: boolean } = {}): string {
  const root = path.join(tmp, name);
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  write('package.json', JSON.stringify({ name: 'react-repro', type: 'module' }));
  write('bin/react-repro.js', fs.readFileSync(bin, 'utf8'));
  fs.symlinkSync(path.join(repo, 'node_modules'), path.join(root, 'node_modules'), 'dir'); // tsx
  const main = (which: string) =>
    `export async function main(argv${which === 'src' ? ': string[]' : ''}) { process.stdout.write('${which} ' + argv.join(' ')); return 3; }\n`;
  write('dist/cli/main.js', main('dist'));
  write('dist/util/x.js', 'export {};\n');
  if (opts.bundle) write('dist/cli-bundle/main.js', main('bundle'));
  if (opts.src !== false) {
    write('src/cli/main.ts', main('src'));
    write('src/util/x.ts', 'export {};\n');
  }
  return root;
}

/** Sets a file's modification time (seconds since the epoch). */
function age(root: string, rel: string, t: number): void {
  fs.utimesSync(path.join(root, rel), t, t);
}

function runBin(root: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'bin', 'react-repro.js'), 'a', 'b'],
      { cwd: tmp, env: cleanEnv(env) },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

const T = 1_700_000_000;

describe('bin/react-repro.js entry point', () => {
  it('runs dist/ when every source has a compiled file at least as new, passing argv and the exit code', async () => {
    const root = miniPackage('current');
    // A declaration file, in a folder of its own, compiles to nothing: it is not a source to check.
    fs.mkdirSync(path.join(root, 'src/types'));
    fs.writeFileSync(path.join(root, 'src/types/ambient.d.ts'), 'declare const x: number;\n');
    for (const f of ['src/cli/main.ts', 'src/util/x.ts']) age(root, f, T);
    for (const f of ['dist/cli/main.js', 'dist/util/x.js']) age(root, f, T + 10);
    expect(await runBin(root)).toEqual({ code: 3, stdout: 'dist a b', stderr: '' });
  });

  it('runs src/ through tsx when any source is newer than its compiled file', async () => {
    const root = miniPackage('edited');
    for (const f of ['dist/cli/main.js', 'dist/util/x.js']) age(root, f, T);
    age(root, 'src/cli/main.ts', T - 10);
    age(root, 'src/util/x.ts', T + 10); // edited after the build, though not the entry point
    expect(await runBin(root)).toEqual({ code: 3, stdout: 'src a b', stderr: '' });
  });

  it('runs src/ when a source has no compiled file yet, or dist/ is missing', async () => {
    const added = miniPackage('added');
    fs.writeFileSync(path.join(added, 'src/util/new.ts'), 'export {};\n');
    expect((await runBin(added)).stdout).toBe('src a b');
    const unbuilt = miniPackage('unbuilt');
    fs.rmSync(path.join(unbuilt, 'dist'), { recursive: true });
    expect((await runBin(unbuilt)).stdout).toBe('src a b');
  });

  it('runs dist/ in an installed package (no src/), and says how to build when dist/ is missing', async () => {
    const installed = miniPackage('installed', { src: false });
    expect((await runBin(installed)).stdout).toBe('dist a b');
    fs.rmSync(path.join(installed, 'dist'), { recursive: true });
    const r = await runBin(installed);
    expect(r.code).toBe(70);
    expect(r.stderr).toBe('react-repro: dist/ is missing: run `npm run build` (or `npm ci`, which builds it)\n');
  });

  it('runs the bundle (dist/cli-bundle/main.js) when it is at least as new as every compiled file, else dist/cli/main.js', async () => {
    const root = miniPackage('bundled', { bundle: true });
    for (const f of ['src/cli/main.ts', 'src/util/x.ts']) age(root, f, T);
    for (const f of ['dist/cli/main.js', 'dist/util/x.js']) age(root, f, T + 10);
    age(root, 'dist/cli-bundle/main.js', T + 20);
    expect(await runBin(root)).toEqual({ code: 3, stdout: 'bundle a b', stderr: '' });
    expect((await runBin(root, { REACT_REPRO_ENTRY: 'dist' })).stdout).toBe('bundle a b');
    age(root, 'dist/util/x.js', T + 30); // recompiled after the bundle was made: the bundle is stale
    expect((await runBin(root)).stdout).toBe('dist a b');
    age(root, 'dist/util/x.js', T + 10);
    age(root, 'dist/cli/main.js', T + 30);
    expect((await runBin(root, { REACT_REPRO_ENTRY: 'dist' })).stdout).toBe('dist a b');
  });

  it("with the bundle step's record of its build, the bundle runs while no source or folder is newer than it; anything else goes to the full check", async () => {
    const root = miniPackage('recorded', { bundle: true });
    fs.writeFileSync(path.join(root, 'dist/cli-bundle/compiled-from.json'), JSON.stringify({ compiledFromMs: (T + 10) * 1000 }));
    const sources = ['src/cli/main.ts', 'src/util/x.ts'];
    const folders = ['src', 'src/cli', 'src/util'];
    const built = () => {
      for (const f of [...sources, ...folders]) age(root, f, T);
      for (const f of ['dist/cli/main.js', 'dist/util/x.js']) age(root, f, T + 10);
      age(root, 'dist/cli-bundle/main.js', T + 20);
    };
    built();
    // A compiled file gone since: the full check would run src/ (no compiled twin); the record needs none.
    fs.rmSync(path.join(root, 'dist/util/x.js'));
    expect(await runBin(root)).toEqual({ code: 3, stdout: 'bundle a b', stderr: '' });
    fs.writeFileSync(path.join(root, 'dist/util/x.js'), 'export {};\n');
    built();
    // A source edited since the build: left to the full check, which runs it through tsx.
    age(root, 'src/util/x.ts', T + 30);
    expect((await runBin(root)).stdout).toBe('src a b');
    built();
    // A source added with an old date (copied with its time): its folder is newer than the build.
    fs.writeFileSync(path.join(root, 'src/util/y.ts'), 'export {};\n');
    age(root, 'src/util/y.ts', T);
    age(root, 'src/util', T + 30);
    expect((await runBin(root)).stdout).toBe('src a b');
    fs.rmSync(path.join(root, 'src/util/y.ts'));
    built();
    // tsc run again after the bundle (it rewrites every output): the compiled entry point runs.
    age(root, 'dist/cli/main.js', T + 30);
    age(root, 'dist/util/x.js', T + 30);
    expect((await runBin(root)).stdout).toBe('dist a b');
    // A name ending in .ts that is no file (an editor's lock link to nowhere): the full check judges it.
    built();
    fs.symlinkSync('user@host.1234:1', path.join(root, 'src/util/.#x.ts'));
    age(root, 'src/util', T);
    expect(await runBin(root)).toEqual({ code: 3, stdout: 'src a b', stderr: '' });
    fs.rmSync(path.join(root, 'src/util/.#x.ts'));
    // A record later than the bundle is not this build's: the full check decides.
    built();
    fs.writeFileSync(path.join(root, 'dist/cli-bundle/compiled-from.json'), JSON.stringify({ compiledFromMs: 1e300 }));
    fs.rmSync(path.join(root, 'dist/util/x.js'));
    expect((await runBin(root)).stdout).toBe('src a b');
    fs.writeFileSync(path.join(root, 'dist/util/x.js'), 'export {};\n');
    fs.writeFileSync(path.join(root, 'dist/cli-bundle/compiled-from.json'), JSON.stringify({ compiledFromMs: (T + 10) * 1000 }));
    // No record, or one that is not a time: the full check decides, as before.
    built();
    fs.writeFileSync(path.join(root, 'dist/cli-bundle/compiled-from.json'), '{"compiledFromMs":"soon"}');
    fs.rmSync(path.join(root, 'dist/util/x.js'));
    expect((await runBin(root)).stdout).toBe('src a b');
  });

  it('REACT_REPRO_ENTRY forces one entry point; another value is an error', async () => {
    const root = miniPackage('forced');
    for (const f of ['src/cli/main.ts', 'src/util/x.ts']) age(root, f, T);
    expect((await runBin(root, { REACT_REPRO_ENTRY: 'src' })).stdout).toBe('src a b');
    for (const f of ['src/cli/main.ts', 'src/util/x.ts']) age(root, f, T + 100);
    expect((await runBin(root, { REACT_REPRO_ENTRY: 'dist' })).stdout).toBe('dist a b');
    const bad = await runBin(root, { REACT_REPRO_ENTRY: 'ts' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('react-repro: REACT_REPRO_ENTRY must be dist or src, got "ts"\n');
  });
});
