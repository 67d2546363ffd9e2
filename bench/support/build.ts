// The compiled CLI the benchmarks run: dist/ current (every src/**.ts has a dist/**.js at
// least as new, the bin's rule) and the bundle (dist/cli-bundle/main.js) at least as new as every compiled
// file, else `npm run build` first, so the bin runs the bundle as a user's would.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export function ensureBuilt(root: string): void {
  const src = path.join(root, 'src');
  const dist = path.join(root, 'dist');
  let current = true;
  let newest = 0;
  for (const rel of fs.readdirSync(src, { recursive: true, encoding: 'utf8' })) {
    if (!rel.endsWith('.ts') || rel.endsWith('.d.ts')) continue;
    const out = fs.statSync(path.join(dist, rel.slice(0, -3) + '.js'), { throwIfNoEntry: false });
    if (!out || out.mtimeMs < fs.statSync(path.join(src, rel)).mtimeMs) current = false;
    else newest = Math.max(newest, out.mtimeMs);
  }
  const bundle = fs.statSync(path.join(dist, 'cli-bundle', 'main.js'), { throwIfNoEntry: false });
  if (current && bundle && bundle.mtimeMs >= newest) return;
  process.stderr.write('dist/ or its bundle is not current: npm run build\n');
  const b = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (b.status !== 0) throw new Error('npm run build failed');
}
