// A misspelt flag is refused in one line that also names the flag meant (src/cli/flag-suggestion.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { flagSuggestion } from '../../src/cli/flag-suggestion.js';
import { cleanEnv, runCli } from '../run/cli-helpers.js';

const known = ['method', 'limit', 'llm', 'results-dir', 'concurrency'];

describe('flagSuggestion', () => {
  it('names the flag one slip away, a flag cut short, and each of several', () => {
    expect(flagSuggestion('Unknown argument: methd', known)).toBe('; did you mean --method?');
    expect(flagSuggestion('Unknown argument: limti', known)).toBe('; did you mean --limit?');
    expect(flagSuggestion('Unknown argument: concurency', known)).toBe('; did you mean --concurrency?');
    expect(flagSuggestion('Unknown arguments: results-dri, resultsDri', known)).toBe('; did you mean --results-dir?');
    expect(flagSuggestion('Unknown arguments: methd, limti', known)).toBe('; did you mean --method, --limit?');
  });

  it('guesses nothing when no flag is near, two are as near, or the message is another one', () => {
    expect(flagSuggestion('Unknown argument: xyz', known)).toBe('');
    expect(flagSuggestion('Unknown argument: lim-c', ['lim-a', 'lim-b'])).toBe('');
    expect(flagSuggestion('Unknown arguments: methd, xyz', known)).toBe('');
    expect(flagSuggestion('Not enough non-option arguments: got 0, need at least 1', known)).toBe('');
  });
});

describe('the CLI', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'flag-suggestion-'));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('run --methd react: exit 2, one line naming --method', async () => {
    const r = await runCli(['run', '--methd', 'react'], { cwd: tmp, env: cleanEnv() });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('react-repro: Unknown argument: methd; did you mean --method? (see --help)\n');
    expect(r.stdout).toBe('');
  });

  it('report --formt md: the report command’s own flag', async () => {
    const r = await runCli(['report', '--formt', 'md'], { cwd: tmp, env: cleanEnv() });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('react-repro: Unknown argument: formt; did you mean --format? (see --help)\n');
  });
});
