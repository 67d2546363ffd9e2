// `export` picks runs by --method and --task; --format finetune takes ReAct only unless told otherwise
// (as its help says: FireAct trained on ReAct trajectories), never Act and ReAct mixed silently; a
// filter that matches no run is a one-line error naming the flag and what the runs hold.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../run/cli-helpers.js';
import { qaRecords, writeRun } from '../report/run-folders.js';

let tmp: string;
let results: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-export-filters-'));
  results = path.join(tmp, 'results');
  const idx = [0, 1, 2, 3];
  writeRun(results, { runId: 'hotpotqa-react', method: 'react', indices: idx, records: qaRecords(idx, 'rrrw') });
  writeRun(results, { runId: 'hotpotqa-act', method: 'act', indices: idx, records: qaRecords(idx, 'rrww') });
  writeRun(results, { runId: 'fever-react', task: 'fever', method: 'react', indices: idx, records: qaRecords(idx, 'rwww') });
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const lines = (s: string) =>
  s
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('export filters', () => {
  it('finetune defaults to ReAct: Act trajectories stay out unless --method asks for them', async () => {
    const r = await runCli(['export', results, '--format', 'finetune'], { cwd: tmp });
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toHaveLength(4); // 3 HotpotQA + 1 FEVER, all ReAct
    expect(r.stderr).toBe('react-repro: 4 fine-tuning examples from 2 runs (method react); left out: 4 unsuccessful\n');
    const both = await runCli(['export', results, '--format', 'finetune', '--method', 'act,react', '--task', 'hotpotqa'], { cwd: tmp });
    expect(both.code).toBe(0);
    expect(lines(both.stdout)).toHaveLength(5); // ReAct 3 + Act 2 on HotpotQA
    expect(both.stderr).toBe('react-repro: 5 fine-tuning examples from 2 runs (method act, react); left out: 3 unsuccessful\n');
  });

  it("the help says finetune's default, the built-ins' fine-tuning methods (Benchmark.finetuneMethods)", async () => {
    const r = await runCli(['export', '--help'], { cwd: tmp });
    expect(r.code).toBe(0);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain(
      'Only runs of these methods (comma list) [default: react with --format finetune, every method with --format jsonl]',
    );
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('(comma list: hotpotqa, fever, alfworld, webshop)');
  });

  it('jsonl takes every method unless filtered; --task and --method narrow it', async () => {
    const all = await runCli(['export', results, '--format', 'jsonl'], { cwd: tmp });
    expect(lines(all.stdout).map((l) => l.run_id)).toEqual([
      ...Array(4).fill('fever-react'),
      ...Array(4).fill('hotpotqa-act'),
      ...Array(4).fill('hotpotqa-react'),
    ]);
    const fever = await runCli(['export', results, '--format', 'jsonl', '--task', 'fever'], { cwd: tmp });
    expect(new Set(lines(fever.stdout).map((l) => l.run_id))).toEqual(new Set(['fever-react']));
    const act = await runCli(['export', results, '--format', 'jsonl', '--method', 'act'], { cwd: tmp });
    expect(new Set(lines(act.stdout).map((l) => l.method))).toEqual(new Set(['act']));
  });

  it('a filter no run matches is a one-line error naming the flag', async () => {
    const r = await runCli(['export', results, '--format', 'jsonl', '--method', 'cot'], { cwd: tmp });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('react-repro: --method cot: none of the 3 run(s) is of that method (they have: act, react)\n');
    expect(r.stdout).toBe('');
    const t = await runCli(['export', results, '--format', 'finetune', '--task', 'webshop'], { cwd: tmp });
    expect(t.code).toBe(2);
    expect(t.stderr).toBe('react-repro: --task webshop: none of the 3 run(s) is of that benchmark (they have: fever, hotpotqa)\n');
    const empty = await runCli(['export', results, '--format', 'jsonl', '--method', ','], { cwd: tmp });
    expect(empty.stderr).toBe('react-repro: --method: expected a comma list, e.g. react\n');
  });
});
