import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseExperiment, loadExperiment } from '../../src/run/experiment.js';
import '../../src/benchmarks/builtin.js';
import { allRunOptions } from '../../src/run/deps.js';
import { resolveRuns } from '../../src/run/resolve-runs.js';
import { repo } from './cli-helpers.js';

const table = allRunOptions();
const parse = (data: unknown) => parseExperiment('exp.json', data, table);

describe('experiment files', () => {
  it('layer defaults under each run', () => {
    const e = parse({ defaults: { task: 'fever', limit: 3 }, runs: [{ method: 'cot' }, { method: 'react', limit: 5, maxSteps: 'paper' }] });
    expect(e.runs).toEqual([
      { task: 'fever', limit: 3, method: 'cot' },
      { task: 'fever', limit: 5, method: 'react', maxSteps: 'paper' },
    ]);
    expect(parse({ task: 'hotpotqa', method: 'act', indices: [1, 2] }).runs).toEqual([
      { task: 'hotpotqa', method: 'act', indices: [1, 2] },
    ]);
  });

  it('name the file and field for unknown keys and wrong types', () => {
    expect(() => parse({ runs: [{ method: 'cot', colour: 'red' }] })).toThrow('exp.json: unknown field "runs[0].colour"');
    expect(() => parse({ runs: [{ 'max-steps': 5 }] })).toThrow(
      'exp.json: unknown field "runs[0].max-steps" (fields are camelCase: maxSteps)',
    );
    expect(() => parse({ defaults: { limit: '3' }, runs: [{}] })).toThrow('exp.json: defaults.limit: expected a number, got "3"');
    expect(() => parse({ runs: [{ method: 'magic' }] })).toThrow(/exp\.json: runs\[0\]\.method: expected one of standard, cot, cot-sc/);
    expect(() => parse({ runs: [] })).toThrow('exp.json: runs: expected a non-empty list of run settings');
    expect(() => parse({ runs: [{ indices: ['a'] }] })).toThrow('exp.json: runs[0].indices: expected a list of numbers');
    expect(() => parse({ runs: [{ resume: 'x' }] })).toThrow('exp.json: unknown field "runs[0].resume"');
    expect(() => parse({ defaults: {}, method: 'cot' })).toThrow('exp.json: "defaults" needs a "runs" list beside it');
    expect(() => parse({ defaults: {}, runs: [{}], method: 'cot' })).toThrow(
      'exp.json: unknown field "method" (expected description, defaults, runs)',
    );
    expect(() => parse([1])).toThrow(/exp\.json: expected a JSON object/);
  });

  it('flags given on the command line override the file; defaults fill the rest', () => {
    const file = path.join(repo, 'experiments/table1-hotpotqa-offline.json');
    const runs = resolveRuns({ experiment: file, limit: 4, model: 'm' });
    expect(runs).toHaveLength(7);
    expect(runs[2]).toMatchObject({
      task: 'hotpotqa',
      split: 'offline500',
      method: 'cot-sc',
      samples: 21,
      limit: 4,
      model: 'm',
      concurrency: 8,
      wiki: 'snapshot',
    });
    expect(resolveRuns({ experiment: file, wiki: 'live' })[0].wiki).toBe('live');
  });

  it('runs that flags make one run (the same settings their methods read) are run once, with one line naming the flags', () => {
    const file = path.join(repo, 'experiments/table1-hotpotqa-offline.json');
    const lines: string[] = [];
    // cot-sc's samples and scTemperature are settings CoT never reads (Benchmark.methodFlags).
    const runs = resolveRuns({ experiment: file, method: 'cot', limit: 3 }, (l) => lines.push(l));
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ method: 'cot', limit: 3 });
    expect(lines).toEqual(['--method cot makes the 7 runs of table1-hotpotqa-offline one run: running it once']);
    // The file's cot-sc run gives samples and sc-temperature at their defaults: it is the same run too.
    lines.length = 0;
    const sc = resolveRuns({ experiment: file, method: 'cot-sc', samples: undefined, scTemperature: 0.5 }, (l) => lines.push(l));
    expect(sc).toHaveLength(1);
    const own = resolveRuns({ experiment: file, method: 'cot-sc', limit: 3 }, (l) => lines.push(l));
    expect(own).toHaveLength(1);
    expect(lines).toEqual([
      '--method cot-sc --sc-temperature 0.5 make the 7 runs of table1-hotpotqa-offline one run: running it once',
      '--method cot-sc makes the 7 runs of table1-hotpotqa-offline one run: running it once',
    ]);
  });

  it("a benchmark's flag goes to that benchmark's runs only; one no run has is refused", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'exp-mixed-')), 'mixed.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        runs: [
          { task: 'hotpotqa', method: 'react' },
          { task: 'alfworld', method: 'react' },
        ],
      }),
    );
    const runs = resolveRuns({ experiment: file, promptSet: '2,1', maxSteps: 5 });
    expect(runs.map((r) => [r.task, r.promptSet, r.maxSteps])).toEqual([
      ['hotpotqa', undefined, 5],
      ['alfworld', '2,1', undefined],
    ]);
    expect(() => resolveRuns({ experiment: file, webshopGoals: 'x' })).toThrow(
      "--webshop-goals: no run of mixed is of a benchmark that has it (it is webshop's); leave it out",
    );
  });

  it("--indices on the command line replaces the file's --split (and a run's split replaces the defaults' indices)", () => {
    const file = path.join(repo, 'experiments/table1-hotpotqa-offline.json');
    const [r] = resolveRuns({ experiment: file, indices: '3,4' });
    expect(r.indices).toBe('3,4');
    expect(r.split).toBeUndefined();
    const exp = parseExperiment('exp.json', { defaults: { indices: [1, 2] }, runs: [{ split: 'dev' }, {}] }, table);
    expect(exp.runs[0]).toEqual({ split: 'dev' });
    expect(exp.runs[1]).toEqual({ indices: [1, 2] });
  });

  it('every shipped experiment file validates', () => {
    const dir = path.join(repo, 'experiments');
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files).toEqual(
      expect.arrayContaining(['table1-hotpotqa.json', 'table1-hotpotqa-offline.json', 'table1-fever.json', 'figure2-sweep.json']),
    );
    for (const f of files) expect(loadExperiment(path.join(dir, f), table).runs.length).toBeGreaterThan(0);
  });
});
