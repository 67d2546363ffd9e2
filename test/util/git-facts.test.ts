// The checkout's git facts from one `git status --porcelain=v2 --branch` (src/util/git-facts.ts), checked
// on git's own output in a scratch repository: commit as `git rev-parse HEAD` prints it, dirty when a
// tracked file changed (untracked files do not count), no facts before the first commit.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gitFactsSync, parseStatusV2, prefetchGitFacts } from '../../src/util/git-facts.js';

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

describe('asking git (gitFactsSync, prefetchGitFacts)', () => {
  it('leaves the index alone (no index.lock a concurrent git commit would trip on)', async () => {
    const repo = fs.mkdtempSync(path.join(tmp, 'locks-'));
    const g = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.org', ...args], { cwd: repo, encoding: 'utf8' });
    g('init', '-q');
    fs.writeFileSync(path.join(repo, 'a.txt'), 'a');
    g('add', 'a.txt');
    g('commit', '-qm', 'a');
    // Same content, newer time: the index's stat data is stale, so a plain `git status` rewrites the index.
    const touch = () => fs.utimesSync(path.join(repo, 'a.txt'), new Date(), new Date(Date.now() + 5000));
    const index = path.join(repo, '.git', 'index');
    const before = () => fs.statSync(index).mtimeMs;
    touch();
    fs.utimesSync(index, new Date(0), new Date(0));
    const m0 = before();
    expect(gitFactsSync(repo)).toEqual({ commit: g('rev-parse', 'HEAD').trim(), dirty: false });
    expect(await prefetchGitFacts(repo)).toEqual({ commit: g('rev-parse', 'HEAD').trim(), dirty: false });
    expect(before()).toBe(m0);
    // The check can fail: git status as the code asked it before does rewrite it.
    g('status', '--porcelain=v2', '--branch', '--untracked-files=no');
    expect(before()).not.toBe(m0);
  });
});
