// Measures the shape of src/ with the TypeScript compiler (docs/architecture.md, "Measured shape"):
// type casts, property reads on Record<string, unknown> values, import cycles (type imports
// included) and the files that spell a run folder's file names.
// Usage: npx tsx scripts/measure-shape.ts [--json] [--verbose]
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SRC = path.join(ROOT, 'src');
const verbose = process.argv.includes('--verbose');
const asJson = process.argv.includes('--json');

/** The names a run folder's files go by; a file spelling one of them as a string literal knows the folder's layout. */
const RUN_FOLDER_NAMES = [
  'episodes.jsonl',
  'manifest.json',
  'summary.csv',
  'summary.json',
  'recording.jsonl',
  'completions.sqlite',
  'run.lock',
  'status.json',
];

/** data/manifest.json (the vendored data's provenance, src/data/manifest.ts) shares a name with a run's manifest; it is not a run folder's file. */
function isVendoredDataManifest(node: ts.StringLiteral | ts.NoSubstitutionTemplateLiteral): boolean {
  if (node.text === 'data/manifest.json' || node.text.endsWith('/data/manifest.json')) return true;
  const call = node.parent;
  if (node.text !== 'manifest.json' || !ts.isCallExpression(call)) return false;
  const at = call.arguments.indexOf(node);
  const before = at > 0 ? call.arguments[at - 1] : undefined;
  return before !== undefined && ts.isStringLiteral(before) && before.text === 'data';
}

const configPath = path.join(ROOT, 'tsconfig.json');
const read = ts.readConfigFile(configPath, ts.sys.readFile);
const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, ROOT);
const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
const checker = program.getTypeChecker();
const srcFiles = program
  .getSourceFiles()
  .filter((f) => (!f.isDeclarationFile && f.fileName.startsWith(SRC + path.sep)) || f.fileName.startsWith(SRC + '/'))
  .filter((f) => !f.isDeclarationFile);

const rel = (f: string): string => path.relative(ROOT, f).split(path.sep).join('/');

function isUnknownRecord(type: ts.Type): boolean {
  // Record<string, unknown> (and aliases such as Settings): an object type whose only member is a
  // string index signature of type unknown (or any).
  const t = checker.getNonNullableType(type);
  if (t.isUnion()) return t.types.some(isUnknownRecord);
  if (!(t.flags & ts.TypeFlags.Object)) return false;
  const info = checker.getIndexInfoOfType(t, ts.IndexKind.String);
  if (!info) return false;
  const v = info.type;
  if (!(v.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any))) return false;
  return checker.getPropertiesOfType(t).length === 0;
}

let casts = 0;
let recordReads = 0;
const castsByFile = new Map<string, number>();
const readsByFile = new Map<string, number>();
const namesByFile = new Map<string, Set<string>>();
const imports = new Map<string, Set<string>>();

function bump(m: Map<string, number>, k: string): void {
  m.set(k, (m.get(k) ?? 0) + 1);
}

function resolveImport(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const r = ts.resolveModuleName(spec, from, parsed.options, ts.sys);
  const f = r.resolvedModule?.resolvedFileName;
  if (!f || !f.startsWith(SRC)) return undefined;
  return f;
}

for (const sf of srcFiles) {
  const file = rel(sf.fileName);
  const deps = new Set<string>();
  imports.set(sf.fileName, deps);
  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      const t = node.type;
      const isConst = ts.isTypeReferenceNode(t) && ts.isIdentifier(t.typeName) && t.typeName.text === 'const';
      if (!isConst) {
        casts++;
        bump(castsByFile, file);
      }
    }
    if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) {
      const target = node.expression;
      const type = checker.getTypeAtLocation(target);
      if (isUnknownRecord(type)) {
        recordReads++;
        bump(readsByFile, file);
      }
    }
    if (
      (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) &&
      !ts.isImportDeclaration(node.parent) &&
      !ts.isExportDeclaration(node.parent) &&
      !isVendoredDataManifest(node)
    ) {
      for (const name of RUN_FOLDER_NAMES) {
        if (node.text === name || node.text.endsWith('/' + name)) {
          if (!namesByFile.has(file)) namesByFile.set(file, new Set());
          namesByFile.get(file)!.add(name);
        }
      }
    }
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const dep = resolveImport(sf.fileName, node.moduleSpecifier.text);
      if (dep) deps.add(dep);
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const a = node.arguments[0];
      if (a && ts.isStringLiteral(a)) {
        const dep = resolveImport(sf.fileName, a.text);
        if (dep) deps.add(dep);
      }
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      const dep = resolveImport(sf.fileName, node.argument.literal.text);
      if (dep) deps.add(dep);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

// Tarjan's strongly connected components over the import graph.
const index = new Map<string, number>();
const low = new Map<string, number>();
const onStack = new Set<string>();
const stack: string[] = [];
const sccs: string[][] = [];
let counter = 0;
function strong(v: string): void {
  index.set(v, counter);
  low.set(v, counter);
  counter++;
  stack.push(v);
  onStack.add(v);
  for (const w of imports.get(v) ?? []) {
    if (!index.has(w)) {
      strong(w);
      low.set(v, Math.min(low.get(v)!, low.get(w)!));
    } else if (onStack.has(w)) {
      low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
  }
  if (low.get(v) === index.get(v)) {
    const comp: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      comp.push(w);
    } while (w !== v);
    if (comp.length > 1 || (imports.get(v)?.has(v) ?? false)) sccs.push(comp.map(rel).sort());
  }
}
for (const v of imports.keys()) if (!index.has(v)) strong(v);

const top = (m: Map<string, number>): [string, number][] => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, verbose ? 1000 : 8);
const result = {
  files: srcFiles.length,
  casts,
  recordReads,
  cycles: sccs.map((c) => c.length),
  runFolderNameFiles: namesByFile.size,
};
if (asJson) {
  console.log(
    JSON.stringify({ ...result, cycleFiles: sccs, nameFiles: Object.fromEntries([...namesByFile].map(([k, v]) => [k, [...v]])) }, null, 2),
  );
} else {
  console.log(`files in src/: ${result.files}`);
  console.log(`type casts (excluding 'as const'): ${casts}   (target <= 130)`);
  for (const [f, n] of top(castsByFile)) console.log(`  ${n.toString().padStart(4)}  ${f}`);
  console.log(`property reads on Record<string, unknown> values: ${recordReads}   (target <= 60)`);
  for (const [f, n] of top(readsByFile)) console.log(`  ${n.toString().padStart(4)}  ${f}`);
  console.log(`import cycles (strongly connected components): ${sccs.length}   (target 0)`);
  for (const c of sccs) console.log(`  ${c.length} files: ${c.join(' ')}`);
  console.log(`files spelling run-folder file names: ${namesByFile.size}   (target <= 2)`);
  for (const [f, names] of namesByFile) console.log(`  ${f}: ${[...names].join(', ')}`);
}
