// The checkout's git facts from one `git status --porcelain=v2 --branch` (src/util/git-facts.ts), checked
// on git's own output in a scratch repository: commit as `git rev-parse HEAD` prints it, dirty when a
// tracked file changed (untracked files do not count), no facts before the first commit.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseStatusV2 } from '../../src/util/git-facts.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'git-facts-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.org', ...args], { cwd: tmp, encoding: 'utf8' });
const status = () => git('status', '--porcelain=v2', '--branch', '--untracked-files=no');

describe('parseStatusV2', () => {
  it('matches rev-parse HEAD and porcelain v1 on a real repository', () => {
    git('init', '-q');
    expect(parseStatusV2(status())).toBeNull(); // no commit yet
    fs.writeFileSync(path.join(tmp, 'a.txt'), 'a');
    git('add', 'a.txt');
    git('commit', '-qm', 'a');
    const head = git('rev-parse', 'HEAD').trim();
    expect(parseStatusV2(status())).toEqual({ commit: head, dirty: false });
    fs.writeFileSync(path.join(tmp, 'new.txt'), 'untracked');
    expect(parseStatusV2(status())).toEqual({ commit: head, dirty: false });
    fs.writeFileSync(path.join(tmp, 'a.txt'), 'changed');
    expect(parseStatusV2(status())).toEqual({ commit: head, dirty: true });
  });

  it('has no facts for output without a commit id', () => {
    expect(parseStatusV2('')).toBeNull();
    expect(parseStatusV2('# branch.oid (initial)\n# branch.head main\n')).toBeNull();
  });
});
