// Commands load lazily (src/cli/main.ts): `--help` and `data verify` must not import the model layer,
// SQLite or the report code. The bin runs under a module loader hook that writes down every module it
// resolves, and every CommonJS module loaded at exit; the help listing must also stay identical to what the command modules themselves declare.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, cleanEnv, repo, scriptedRespond } from '../run/cli-helpers.js';
import { startOpenAIServer } from '../servers/openai-server.js';
import { startWikiServer } from '../servers/wiki-server.js';
import { commandTable } from '../../src/cli/main.js';

let tmp: string;
let register: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'react-repro-lazy-'));
  const hooks = path.join(tmp, 'hooks.mjs');
  fs.writeFileSync(
    hooks,
    `import fs from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  fs.appendFileSync(file, r.url + '\\n');
  return r;
}
`,
  );
  register = path.join(tmp, 'register.mjs');
  fs.writeFileSync(
    register,
    `import fs from 'node:fs';
import Module, { register } from 'node:module';
import { pathToFileURL } from 'node:url';
register(${JSON.stringify(pathToFileURL(hooks).href)}, { data: { file: process.env.LOAD_LOG } });
// CommonJS modules required through createRequire (src/util/sqlite.ts) do not pass the hook: at exit,
// every module in the CommonJS cache too.
process.on('exit', () => {
  const files = Object.keys(Module._cache).map((f) => pathToFileURL(f).href);
  fs.appendFileSync(process.env.LOAD_LOG, files.map((u) => u + '\\n').join(''));
});
`,
  );
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Runs the bin with the recorder; returns the exit code, stdout and the modules resolved. */
function loaded(args: string[], cacheDir?: string): Promise<{ code: number; stdout: string; stderr: string; modules: string[] }> {
  const log = path.join(tmp, `load-${args.join('-').replace(/[^a-z-]/gi, '')}.txt`);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', pathToFileURL(register).href, bin, ...args],
      { cwd: tmp, env: cleanEnv({ LOAD_LOG: log }, cacheDir), maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        const resolved = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
        const modules = resolved.flatMap(bundledModules);
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr, modules });
      },
    );
  });
}

/**
 * A file of the bundle the bin runs when it is current (dist/cli-bundle/, scripts/bundle-cli.mjs) stands
 * for the compiled modules and packages it holds, as its build listed them in modules.json.
 */
function bundledModules(url: string): string[] {
  const m = /\/dist\/cli-bundle\/([^/]+\.js)$/.exec(url);
  if (!m) return [url];
  const list = JSON.parse(fs.readFileSync(path.join(repo, 'dist', 'cli-bundle', 'modules.json'), 'utf8')) as Record<string, string[]>;
  return (list[m[1]] ?? [url]).map((input) => `${pathToFileURL(repo).href}/${input}`);
}

// Module paths (src/ or dist/, .ts or .js) that only running an experiment or a report needs (the
// benchmark registry itself is a small map that `data` names in its help; the benchmarks are not).
const HEAVY = [
  /\/node_modules\/openai\//,
  /\/node_modules\/better-sqlite3\//,
  /\/node_modules\/node-llama-cpp\//,
  /\/node_modules\/csv-stringify\//,
  /\/(src|dist)\/llm\//,
  /\/(src|dist)\/report\//,
  /\/(src|dist)\/envs\/wikipedia\//,
  /\/(src|dist)\/benchmarks\/(?!registry\.)/,
  /\/(src|dist)\/run\//,
];
const heavyIn = (modules: string[]) => modules.filter((m) => HEAVY.some((re) => re.test(m)));

/**
 * The Node built-ins a run of the bin had loaded when it exited, seen by a CommonJS preload (the
 * recorder above cannot tell: its module.register hooks run in a worker, which loads node:worker_threads
 * and node:assert itself). Run from the checkout, as the README's commands are: yargs looks for a
 * package.json from the working folder up, and where there is none its own check throws node:assert's
 * error (caught by yargs), which loads node:assert.
 */
function builtinsOfRun(args: string[], cacheDir: string): Promise<{ code: number; stderr: string; builtins: string[] }> {
  const out = path.join(tmp, 'builtins.txt');
  const preload = path.join(tmp, 'builtins.cjs');
  fs.writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));\n`,
  );
  fs.rmSync(out, { force: true });
  // NODE_OPTIONS (an --import of tsx, a debugger's bootloader) would load modules of its own.
  const env = cleanEnv({}, cacheDir);
  delete env.NODE_OPTIONS;
  return new Promise((resolve) => {
    // Run from a folder with no package.json above it, where yargs' version guess once loaded node:assert.
    execFile(process.execPath, ['--require', preload, bin, ...args], { cwd: tmp, env }, (err, _stdout, stderr) => {
      const list = fs.existsSync(out) ? fs.readFileSync(out, 'utf8').split('\n') : [];
      const builtins = list.flatMap((m) => (m.startsWith('NativeModule ') ? [m.slice('NativeModule '.length)] : []));
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stderr, builtins });
    });
  });
}

/** Whether the bin runs the compiled bundle: every src/**.ts older than its dist/ file (bin/react-repro.js). */
function bundleIsCurrent(): boolean {
  const bundle = fs.statSync(path.join(repo, 'dist', 'cli-bundle', 'main.js'), { throwIfNoEntry: false });
  if (!bundle) return false;
  const src = path.join(repo, 'src');
  return fs
    .readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .every((f) => {
      const out = fs.statSync(path.join(repo, 'dist', f.replace(/\.ts$/, '.js')), { throwIfNoEntry: false });
      return out !== undefined && out.mtimeMs >= fs.statSync(path.join(src, f)).mtimeMs && bundle.mtimeMs >= out.mtimeMs;
    });
}

describe('lazy command loading', () => {
  it('the top-level help lists each command exactly as its module declares it', async () => {
    for (const entry of commandTable) {
      const mod = await entry.load();
      expect({ name: entry.name, command: mod.command, describe: mod.describe }).toEqual({
        name: entry.name,
        command: entry.command,
        describe: entry.describe,
      });
    }
  });

  it('every command module under src/cli/commands is in the table', async () => {
    const dir = path.join(repo, 'src', 'cli', 'commands');
    const declared: string[] = [];
    for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const mod = await import(pathToFileURL(path.join(dir, f)).href);
      for (const v of Object.values(mod)) {
        const c = v as { command?: unknown; handler?: unknown };
        if (c && typeof c === 'object' && typeof c.command === 'string' && typeof c.handler === 'function') declared.push(c.command);
      }
    }
    expect(declared.sort()).toEqual(commandTable.map((e) => e.command).sort());
  });

  it('--help imports no model, SQLite, report, run or benchmark code', async () => {
    const r = await loaded(['--help']);
    expect(r.code).toBe(0);
    for (const e of commandTable) expect(r.stdout).toContain(`react-repro ${e.command}`);
    expect(r.modules.some((m) => /\/cli\/main\.(js|ts)$/.test(m))).toBe(true);
    expect(heavyIn(r.modules)).toEqual([]);
  });

  it('data verify imports none of them either', async () => {
    const r = await loaded(['data', 'verify']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^OK {7}data\/manifest|^OK /m);
    expect(r.modules.some((m) => /\/cli\/commands\/data\.(js|ts)$/.test(m))).toBe(true);
    expect(heavyIn(r.modules)).toEqual([]);
  });

  it('the recorder does see them when a command needs them (run --help)', async () => {
    const r = await loaded(['run', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--base-url');
    const heavy = heavyIn(r.modules);
    expect(heavy.some((m) => /\/(src|dist)\/llm\//.test(m))).toBe(true);
    expect(heavy.some((m) => /\/(src|dist)\/benchmarks\//.test(m))).toBe(true);
  });

  it('and SQLite, required through createRequire, when a command opens a database (wiki info)', async () => {
    const r = await loaded(['wiki', 'info'], path.join(tmp, 'cache'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^pages \d+$/m);
    expect(heavyIn(r.modules).some((m) => /\/node_modules\/better-sqlite3\//.test(m))).toBe(true);
  });

  // A plain run loads neither what --from-bundle, --dry-run and derived methods run on nor the report's reading of run folders:
  // each is imported when asked for (src/cli/commands/run.ts): a run loads only the code it uses
  // (bench/results-start.md measured no difference in start time; the check is of the code's shape).
  it('a plain run loads no bundle, dry-run, combination or report-folder code', async () => {
    const model = await startOpenAIServer({ respond: scriptedRespond });
    try {
      const args = ['run', '--task', 'fever', '--method', 'cot', '--limit', '1', '--base-url', model.baseURL, '--model', 'm'];
      const r = await loaded([...args, '--cache', 'off', '--results-dir', path.join(tmp, 'results-plain')], path.join(tmp, 'cache-plain'));
      expect(r.code, r.stderr).toBe(0);
      expect(r.modules.some((m) => /\/run\/execute\.(js|ts)$/.test(m))).toBe(true);
      const occasional =
        /\/(src|dist)\/(run\/(from-bundle|bundle|bundle-select|dry-run|dry-run-estimate|window-check|combination-run)|util\/tar|report\/(load|run-status|episode-reader)|cli\/commands\/bundle)\.(js|ts)$/;
      expect(r.modules.filter((m) => occasional.test(m))).toEqual([]);
    } finally {
      await model.close();
    }
  });

  // Built-ins a run needs only now and then (src/util/lazy-builtins.ts, the yargs stand-in in
  // scripts/bundle-cli.mjs) and the Wikipedia snapshot builder (readline, worker_threads) would load in
  // front of the first request for nothing (bench/results-start.md). Checked on the compiled bundle, what
  // a user runs (CI builds it; from src/, tsx's own loader thread loads worker_threads and assert).
  const bundleCurrent = bundleIsCurrent();
  if (!bundleCurrent) console.warn('lazy-cli: dist/ is older than src/ (run `npm run build`): the bundled run check is skipped');
  it.skipIf(!bundleCurrent)(
    'a run of the bundle on a plain-http model and live Wikipedia loads no http, https, zlib, assert, readline or worker_threads',
    async () => {
      const model = await startOpenAIServer({ respond: scriptedRespond });
      const wiki = await startWikiServer();
      try {
        const args = ['run', '--task', 'hotpotqa', '--method', 'react', '--limit', '2', '--wiki', 'live', '--wiki-url', wiki.url];
        const rest = ['--base-url', model.baseURL, '--model', 'm', '--cache', 'off', '--results-dir', path.join(tmp, 'results-builtins')];
        const r = await builtinsOfRun([...args, ...rest], path.join(tmp, 'cache-builtins'));
        expect(r.code, r.stderr).toBe(0);
        expect(wiki.requests.length).toBeGreaterThan(0);
        expect(r.builtins).toContain('net'); // the preload sees Node's modules
        const occasional = ['http', 'https', 'zlib', 'assert', 'readline', 'worker_threads'];
        expect(r.builtins.filter((b) => occasional.includes(b))).toEqual([]);
      } finally {
        await model.close();
        await wiki.close();
      }
    },
  );

  it('an unknown command is one line naming the closest one, without loading any command', async () => {
    const r = await loaded(['rn']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('react-repro: Did you mean run? (see --help)');
    expect(r.modules.filter((m) => /\/cli\/commands\//.test(m))).toEqual([]);
  });
});
