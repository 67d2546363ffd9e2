// The examples in --help paste into a shell as shown (src/cli/yargs-options.ts examplesEpilog): each
// command whole, continued with " \" where it is wider than the help, its description as "#" comment
// lines; no line wider than the help. yargs' own layout broke a command over lines of a narrow column,
// which a shell reads as several commands.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { examplesEpilog } from '../../src/cli/yargs-options.js';
import { cleanEnv, runCli } from '../run/cli-helpers.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'help-examples-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** What bash runs for `script`: each react-repro invocation's arguments (react-repro stubbed to list them in a file, jq too). */
function invocations(script: string): string[][] {
  const out = path.join(tmp, 'argv.txt');
  fs.writeFileSync(out, '');
  const stub = `react-repro() { printf '%s\\n' "$@" >> '${out}'; echo '<end>' >> '${out}'; }\njq() { cat >/dev/null; }\n`;
  const r = spawnSync('bash', ['--norc', '-c', stub + script], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return fs
    .readFileSync(out, 'utf8')
    .split('<end>\n')
    .filter((x) => x !== '')
    .map((x) => x.split('\n').filter((l) => l !== ''));
}

const examples: Array<[string, string]> = [
  ['$0 run --task hotpotqa --method react --limit 5 --base-url http://127.0.0.1:8000/v1 --model M', 'ReAct on the first 5 questions'],
  ["$0 export results --format jsonl | jq 'select(.metric_em != null) | .metric_em'", 'a description long enough to be wrapped '.repeat(3)],
  ['$0 data verify', 'short'],
];

describe('examplesEpilog', () => {
  for (const width of [40, 60, 80, 110]) {
    it(`at ${width} columns: no line wider, and bash runs each command with its words as written`, () => {
      const text = examplesEpilog(examples, width);
      for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(width);
      const expected = examples.flatMap(([c]) => invocations(c.replaceAll('$0', 'react-repro')));
      expect(invocations(text.split('\n').slice(1).join('\n'))).toEqual(expected);
      // Descriptions are comments, every line of them.
      expect(text).toMatch(/^ {2}# a description long enough/m);
      for (const line of text.split('\n').slice(1)) expect(line, line).toMatch(/^ {2}# |^ {4}react-repro |^ {6}\S/);
    });
  }
});

describe('every command with examples', () => {
  for (const args of [
    ['run'],
    ['report'],
    ['merge'],
    ['bundle'],
    ['export'],
    ['data', 'verify'],
    ['data', 'sample'],
    ['data', 'show'],
    ['env', 'play'],
  ]) {
    it(`${args.join(' ')} --help: its examples paste back as whole react-repro commands`, async () => {
      const r = await runCli([...args, '--help'], { cwd: tmp, env: cleanEnv() });
      expect(r.code).toBe(0);
      const block = r.stdout.slice(r.stdout.indexOf('\nExamples:\n') + '\nExamples:\n'.length).split(/\n(?! )/)[0];
      expect(block, r.stdout).toMatch(/^ {2}# /);
      const runs = invocations(block);
      expect(runs.length).toBe((block.match(/^ {2}# /gm) ?? []).length - (block.match(/^ {2}# .*\n {2}# /gm) ?? []).length);
      for (const argv of runs) expect(['run', 'report', 'merge', 'bundle', 'export', 'data', 'env']).toContain(argv[0]);
    });
  }
});
