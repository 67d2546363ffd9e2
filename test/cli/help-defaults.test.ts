// --help shows each flag's default: run and env play layer their defaults under an experiment file's
// values themselves, so yargs is given none (a flag not given stays undefined), yet --help shows them
// (src/cli/yargs-options.ts yargsOptions). A list positional shows the default its command applies, not
// yargs' own "[default: []]".
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../run/cli-helpers.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'help-defaults-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const help = async (...args: string[]) => {
  const r = await runCli([...args, '--help'], { cwd: tmp, env: cleanEnv() });
  expect(r.code).toBe(0);
  return r.stdout;
};

/** The help text of one flag: its row and the rows under it up to the next flag. */
function flagHelp(text: string, flag: string): string {
  const start = text.search(new RegExp(`^ +${flag} `, 'm'));
  expect(start, flag).toBeGreaterThanOrEqual(0);
  const next = text.indexOf('\n', start) + 1;
  const end = text.slice(next).search(/^ +(-\w, )?--[\w-]+ |^\S/m);
  return text.slice(start, end < 0 ? undefined : next + end).replace(/\s+/g, ' ');
}

describe('defaults in --help', () => {
  it('run --help shows the defaults it applies itself', async () => {
    const text = await help('run');
    for (const [flag, shown] of [
      ['--concurrency', '[default: 8]'],
      ['--samples', '[default: 21]'],
      ['--sc-temperature', '[default: 0.7]'],
      ['--max-steps', '[default: code]'],
      ['--majority-rule', '[default: paper]'],
      ['--wiki', '[default: snapshot]'],
      ['--wiki-timeout', '[default: 30]'],
    ])
      expect(flagHelp(text, flag)).toContain(shown);
    // A default the description already states is not said twice.
    expect(flagHelp(text, '--cache').match(/default/g)).toHaveLength(1);
  });

  it("env play --help shows its environments' defaults", async () => {
    expect(flagHelp(await help('env', 'play'), '--wiki')).toContain('[default: snapshot]');
  });

  it('list positionals show the default the command applies, never [default: []]', async () => {
    for (const args of [['report'], ['export'], ['bundle'], ['merge'], ['wiki', 'step']]) {
      const text = await help(...args);
      expect(text, args.join(' ')).not.toContain('[default: []]');
    }
    expect(await help('report')).toMatch(/^ {2}runs {2}Run folders, or a folder of runs +\[array\] \[default: \.\/results\]$/m);
    expect(await help('merge')).toMatch(/^ {2}dirs {2}Shard run folders +\[array\] \[required\]$/m);
  });
});

describe('the order of run --help', () => {
  it('lists what to run (task, method, split, items, resume) first, before the model and the benchmarks', async () => {
    const text = await help('run');
    const headings = [...text.matchAll(/^(\S[^\n]*):$/gm)].map((m) => m[1]);
    expect(headings.slice(0, 3)).toEqual(['Positionals', 'What to run', 'Model']);
    const section = text.slice(text.indexOf('What to run:'), text.indexOf('\nModel:'));
    for (const flag of ['--task', '--method', '--split', '--indices', '--limit', '--shard', '--resume', '--retry-errors'])
      expect(section).toMatch(new RegExp(`^ +${flag} `, 'm'));
  });
});

describe('the end of --help', () => {
  it('sets the exit statuses apart from the examples by a blank line (run, merge)', async () => {
    for (const cmd of ['run', 'merge']) expect(await help(cmd)).toMatch(/\n\nExit status: 0 /);
  });
});
