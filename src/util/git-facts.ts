// The checkout's git commit and dirty flag for manifest.json (software.git). Asked with one process,
// `git status --porcelain=v2 --branch`: its "# branch.oid" header is the commit `git rev-parse HEAD`
// prints ("(initial)" before the first commit: no facts) and any other line is a change to a tracked
// file, as in `git status --porcelain`. It is started early (prefetchGitFacts, called as a command
// starts) so it runs while the command's modules load, not in front of the first request. A caller
// that needs the facts before they arrive asks synchronously, as before. GIT_OPTIONAL_LOCKS=0: git
// status would otherwise refresh the index as a side effect, taking .git/index.lock, and a researcher's
// own `git commit` (or another job of an array in the same checkout) then fails on that lock.
import { execFile, execFileSync } from 'node:child_process';

export type GitFacts = { commit: string; dirty: boolean } | null;

const STATUS = ['status', '--porcelain=v2', '--branch', '--untracked-files=no'];

/** The facts in `git status --porcelain=v2 --branch` output, or null without a commit. */
export function parseStatusV2(out: string): GitFacts {
  const lines = out.split('\n').filter(Boolean);
  const oid = lines
    .find((l) => l.startsWith('# branch.oid '))
    ?.slice('# branch.oid '.length)
    .trim();
  if (!oid || !/^[0-9a-f]{40,64}$/.test(oid)) return null;
  return { commit: oid, dirty: lines.some((l) => !l.startsWith('#')) };
}
const TIMEOUT_MS = 5000;
const gitEnv = (): NodeJS.ProcessEnv => ({ ...process.env, GIT_OPTIONAL_LOCKS: '0' });

const settled = new Map<string, GitFacts>();
const pending = new Map<string, Promise<GitFacts>>();

function run(cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('git', args, { cwd, env: gitEnv(), encoding: 'utf8', timeout: TIMEOUT_MS }, (err, stdout) =>
      err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(stdout),
    );
    child.stdin?.end();
  });
}

/** Starts asking git about `cwd` in the background; idempotent. */
export function prefetchGitFacts(cwd: string): Promise<GitFacts> {
  const known = pending.get(cwd);
  if (known) return known;
  const p = run(cwd, STATUS).then(parseStatusV2, (): GitFacts => null);
  void p.then((f) => {
    if (!settled.has(cwd)) settled.set(cwd, f);
  });
  pending.set(cwd, p);
  return p;
}

/** The facts now: the prefetched answer when it has arrived, else asked synchronously; null outside a checkout. */
export function gitFactsSync(cwd: string): GitFacts {
  if (settled.has(cwd)) return settled.get(cwd)!;
  let facts: GitFacts;
  try {
    const opts = {
      cwd,
      env: gitEnv(),
      encoding: 'utf8' as const,
      timeout: TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'ignore'] as ('ignore' | 'pipe')[],
    };
    facts = parseStatusV2(execFileSync('git', STATUS, opts));
  } catch {
    facts = null;
  }
  settled.set(cwd, facts);
  return facts;
}
