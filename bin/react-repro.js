#!/usr/bin/env node
// The react-repro command. It runs the compiled CLI in dist/ (built by `npm run build`, which `npm ci`
// runs through the `prepare` script). In a checkout, when a source file is newer than its compiled
// file (a developer edited src/ without rebuilding) or dist/ is missing, it runs src/ through tsx
// instead, so the command and the tests that spawn it always run the current sources.
// REACT_REPRO_ENTRY=dist|src forces one (the start-time bench measures both). Of the compiled code it
// runs the bundle (dist/cli-bundle/main.js, the build's last step: scripts/bundle-cli.mjs) when it is at
// least as new as every compiled file, else dist/cli/main.js (an installed package built by tsc alone).
// The bundle step records when the compiled files were written (compiled-from.json): while no source
// or src/ folder is newer, a checkout takes the bundle on one stat a source (bundleBuiltFromSources),
// so a compiled file edited by hand is not seen then: rebuild, or delete that record.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const dist = path.join(root, 'dist');

const distMain = path.join(dist, 'cli', 'main.js');
const bundleMain = path.join(dist, 'cli-bundle', 'main.js');
/** When the bundled build's compiled files were written (scripts/bundle-cli.mjs). */
const compiledFromFile = path.join(dist, 'cli-bundle', 'compiled-from.json');
/** The newest compiled file's time seen by distIsCurrent (the bundle must be at least as new). */
let newestCompiled = 0;

/**
 * The src/**.ts files (not .d.ts), relative to src/, and the latest modification time of src/ and its
 * folders (a file added, removed or renamed in a folder changes that folder's); undefined without src/
 * (an installed package). Walked one folder at a time: fs.readdirSync's `recursive` option took 9–15 ms
 * for these ~230 entries here, this walk ~1.5 ms (bench/results-start.md).
 */
function sourceFiles() {
  const files = [];
  let newestFolderMs = 0;
  const walk = (dir, rel) => {
    newestFolderMs = Math.max(newestFolderMs, fs.statSync(dir).mtimeMs);
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name), rel + e.name + path.sep);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) files.push(rel + e.name);
    }
  };
  try {
    walk(src, '');
  } catch {
    return undefined;
  }
  return { files, newestFolderMs };
}

/**
 * True when the bundle was built from these sources as they are: no source file or folder is newer
 * than the oldest compiled file of the bundle's build, and tsc has not compiled again since (it
 * rewrites every output, dist/cli/main.js included). One stat a source instead of two, and no path
 * joins for dist/: about half of the full check's ~25 ms (bench/results-start.md). Anything else
 * (no record of the build, an edit, a file added or renamed) is left to the full check.
 */
function bundleBuiltFromSources({ files, newestFolderMs }) {
  let compiledFromMs;
  try {
    compiledFromMs = JSON.parse(fs.readFileSync(compiledFromFile, 'utf8')).compiledFromMs;
  } catch {
    return false;
  }
  if (typeof compiledFromMs !== 'number' || newestFolderMs > compiledFromMs) return false;
  const bundle = fs.statSync(bundleMain, { throwIfNoEntry: false });
  const compiled = fs.statSync(distMain, { throwIfNoEntry: false });
  // The bundle is written after the files it is made of: a record later than it is not this build's.
  if (!bundle || !compiled || compiled.mtimeMs > bundle.mtimeMs || compiledFromMs > bundle.mtimeMs) return false;
  const prefix = src + path.sep;
  for (const rel of files) {
    // a name that is not a file (an editor's lock link to nowhere, `.#x.ts`) is the full check's to judge
    const st = fs.statSync(prefix + rel, { throwIfNoEntry: false });
    if (!st || st.mtimeMs > compiledFromMs) return false;
  }
  return true;
}

/** True when every src/**.ts has a compiled dist/**.js at least as new (one stat pair a file). */
function distIsCurrent() {
  const sources = sourceFiles();
  if (sources === undefined) return true; // an installed package ships dist/ only
  if (bundleBuiltFromSources(sources)) return true;
  for (const rel of sources.files) {
    const out = fs.statSync(path.join(dist, rel.slice(0, -3) + '.js'), { throwIfNoEntry: false });
    if (!out || out.mtimeMs < fs.statSync(path.join(src, rel)).mtimeMs) return false;
    newestCompiled = Math.max(newestCompiled, out.mtimeMs);
  }
  return true;
}

/** The bundle when it was made from the current compiled files, else the compiled entry point. */
function compiledEntry() {
  const bundle = fs.statSync(bundleMain, { throwIfNoEntry: false });
  const compiled = fs.statSync(distMain, { throwIfNoEntry: false });
  if (bundle && compiled && bundle.mtimeMs >= Math.max(compiled.mtimeMs, newestCompiled)) return bundleMain;
  return distMain;
}

function importDist() {
  return import(pathToFileURL(compiledEntry()).href).catch((e) => {
    if (e?.code !== 'ERR_MODULE_NOT_FOUND' || !String(e.message).includes(distMain)) throw e;
    process.stderr.write('react-repro: dist/ is missing: run `npm run build` (or `npm ci`, which builds it)\n');
    process.exit(70);
  });
}

async function loadMain() {
  const forced = process.env.REACT_REPRO_ENTRY;
  if (forced !== undefined && forced !== 'dist' && forced !== 'src') {
    process.stderr.write(`react-repro: REACT_REPRO_ENTRY must be dist or src, got "${forced}"\n`);
    process.exit(2);
  }
  if (forced === 'dist' || (forced === undefined && distIsCurrent())) {
    return importDist();
  }
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch {
    // tsx is a devDependency: without it, a stale build is still better than no command at all.
    if (forced === 'src') {
      process.stderr.write('react-repro: REACT_REPRO_ENTRY=src needs tsx (a devDependency): run `npm install`\n');
      process.exit(70);
    }
    return importDist();
  }
  tsx.register();
  return import(pathToFileURL(path.join(src, 'cli', 'main.ts')).href);
}

const { main, exitWhenFlushed } = await loadMain();
const code = await main(process.argv.slice(2));
// Exits once stdout and stderr have drained, without waiting for Node to tear its heap down, and with
// the status a failed write to them calls for (src/cli/stdio.ts); a main without it exits as Node does.
if (exitWhenFlushed) await exitWhenFlushed(code);
process.exitCode = code;
