// The last step of `npm run build`: the compiled CLI (dist/cli/main.js and everything it imports, the
// openai and yargs packages included) bundled by esbuild into dist/cli-bundle/, which bin/react-repro.js
// runs when it is current. Loading ~400 ES modules one by one (resolve, read, compile each) took about
// half of the time from start to the first model request; a few bundled files load in a fraction of it
// (bench/start.ts, bench/RESULTS.md). Dynamic imports stay separate chunks, so each command still loads
// only its own code. Native and optional packages (better-sqlite3, node-llama-cpp) stay external.
// Without esbuild (a devDependency) the build skips this step: the bin runs
// dist/cli/main.js as before, and the library (dist/index.js) is never bundled.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist', 'cli-bundle');

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  process.stderr.write('bundle-cli: esbuild is not installed; the bin will run dist/cli/main.js unbundled\n');
  process.exit(0);
}

// string-width (imported by yargs, cliui and wrap-ansi, for laying out help text and the terminal
// progress block) builds an Intl.Segmenter and Unicode-property regular expressions (\p{RGI_Emoji})
// as its module loads: 25–55 ms measured here, on every command start, though a run never measures a
// string. Each `import stringWidth from 'string-width'` gets a stand-in that requires the real module
// on its first call; esbuild initialises a required module only then.
const lazyStringWidth = {
  name: 'lazy-string-width',
  setup(build) {
    build.onResolve({ filter: /^string-width$/ }, async (args) => {
      if (args.kind !== 'import-statement') return undefined;
      const real = await build.resolve(args.path, { kind: 'require-call', resolveDir: args.resolveDir, importer: args.importer });
      if (real.errors.length > 0) return undefined;
      return { path: real.path, namespace: 'lazy-string-width' };
    });
    build.onLoad({ filter: /.*/, namespace: 'lazy-string-width' }, (args) => ({
      contents: `let real;\nexport default function stringWidth(string, options) {\n  real ??= require(${JSON.stringify(args.path)}).default;\n  return real(string, options);\n}\n`,
      resolveDir: path.dirname(args.path),
      loader: 'js',
    }));
  },
};

// yargs checks its own invariants with node:assert's strictEqual and notStrictEqual, which pass on
// every run; loading node:assert for them costs ~2 ms of every start (bench/results-start.md). Its
// `import ... from 'assert'` gets a stand-in comparing as they do (Object.is) that loads node:assert
// only to throw its AssertionError. yargs always passes both values (node's own also throws
// ERR_MISSING_ARGS for fewer, which the stand-in does not check).
const lazyAssert = {
  name: 'lazy-assert',
  setup(build) {
    build.onResolve({ filter: /^assert$/ }, (args) => {
      if (args.kind !== 'import-statement' || !/[\\/]yargs[\\/]/.test(args.importer)) return undefined;
      return { path: 'assert', namespace: 'lazy-assert' };
    });
    build.onLoad({ filter: /.*/, namespace: 'lazy-assert' }, () => ({
      contents:
        "export function strictEqual(actual, expected, message) {\n  if (!Object.is(actual, expected)) require('node:assert').strictEqual(actual, expected, message);\n}\n" +
        "export function notStrictEqual(actual, expected, message) {\n  if (Object.is(actual, expected)) require('node:assert').notStrictEqual(actual, expected, message);\n}\n",
      loader: 'js',
    }));
  },
};

// yargs' ES module shim takes its "main folder" (where its version guess looks for a package.json,
// on every yargs instance, before our own .version() replaces the guess) from its own path, cut
// before "node_modules": our package root when yargs is installed. Bundled into dist/cli-bundle/ the
// path has no "node_modules", so it searched from the working folder up, reading each folder up to /
// and, where none holds a package.json, loading node:assert for the check that fails
// (bench/results-start.md). The bundle's main folder is the package root again: two folders up.
const yargsShimRoot = {
  name: 'yargs-shim-root',
  setup(build) {
    build.onLoad({ filter: /[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/ }, (args) => {
      const source = fs.readFileSync(args.path, 'utf8');
      const from = "const mainFilename = __dirname.substring(0, __dirname.lastIndexOf('node_modules'));";
      if (!source.includes(from))
        throw new Error(`bundle-cli: ${args.path} no longer computes mainFilename as expected; update the yargs-shim-root plugin`);
      const to = "const mainFilename = fileURLToPath(new URL('../../', import.meta.url));";
      return { contents: source.replace(from, to), loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

fs.rmSync(outdir, { recursive: true, force: true });
const result = await esbuild.build({
  entryPoints: [path.join(root, 'dist', 'cli', 'main.js')],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['better-sqlite3', 'node-llama-cpp'],
  // CommonJS packages inside an ES module bundle call require() (for node: built-ins among others).
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  logLevel: 'warning',
  metafile: true,
  plugins: [lazyStringWidth, lazyAssert, yargsShimRoot],
});
// Which compiled modules and packages each bundle file holds (test/package/lazy-cli.test.ts reads it to
// check that `--help` still loads no model, SQLite, report or benchmark code).
const modules = Object.fromEntries(Object.entries(result.metafile.outputs).map(([out, o]) => [path.basename(out), Object.keys(o.inputs)]));
fs.writeFileSync(path.join(outdir, 'modules.json'), JSON.stringify(modules));

// When the compiled files were written (the oldest one's modification time): in a checkout,
// bin/react-repro.js runs the bundle without comparing every source with its compiled file when no
// source file or folder under src/ is newer than this (bench/results-start.md). Written last, so a
// bundle step that failed before it leaves the bin on its full check.
let compiledFromMs = Infinity;
const walkCompiled = (dir) => {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (p !== outdir) walkCompiled(p);
    } else if (e.name.endsWith('.js')) compiledFromMs = Math.min(compiledFromMs, fs.statSync(p).mtimeMs);
  }
};
walkCompiled(path.join(root, 'dist'));
if (Number.isFinite(compiledFromMs)) fs.writeFileSync(path.join(outdir, 'compiled-from.json'), JSON.stringify({ compiledFromMs }));
