// The evidence rules (fever/offline.ts, hotpotqa/offline.ts) and the notice they print speak the types of
// qa/evidence-gap.ts, not of the task specs that name the rules, so no import (type imports included,
// as scripts/measure-shape.ts counts them) leads from one of these files back to itself.
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const SRC = path.resolve(__dirname, '../../../src');

/** The src/ files a file imports (relative specifiers, `import type` and re-exports included). */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/\bfrom\s+'(\.{1,2}\/[^']+)'/g)]
    .map((m) => path.resolve(path.dirname(file), m[1]).replace(/\.js$/, '.ts'))
    .filter((f) => fs.existsSync(f));
}

function reaches(from: string): Set<string> {
  const seen = new Set<string>();
  const todo = importsOf(from);
  while (todo.length) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    todo.push(...importsOf(f));
  }
  return seen;
}

it.each([
  'benchmarks/fever/offline.ts',
  'benchmarks/hotpotqa/offline.ts',
  'benchmarks/qa/evidence-notice.ts',
  'benchmarks/qa/task-specs.ts',
])('%s is in no import cycle', (file) => {
  const f = path.join(SRC, file);
  expect(reaches(f).has(f)).toBe(false);
});
