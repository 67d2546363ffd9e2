import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReport } from '../../src/cli/commands/report.js';
import { loadRuns } from '../../src/report/load.js';
import { buildSweeps } from '../../src/benchmarks/qa/report/sweep.js';
import '../../src/benchmarks/builtin.js';
import { renderTrajectories } from '../../src/report/trajectories.js';

let dir: string;

// Schema-1 records and manifests (0.1's format): the reader upgrades them, so old runs still report.
type V1Record = Record<string, unknown> & { question_idx: number };
function rec(i: number, answer: string | null, gold: string, extra: Record<string, unknown> = {}): V1Record {
  const em = answer !== null && answer.toLowerCase() === gold.toLowerCase() ? 1 : 0;
  return {
    question_idx: i,
    question: `q${i}`,
    gold,
    answer,
    em,
    f1: em,
    reward: em,
    traj: `Question: q${i}\nThought 1: ...`,
    steps: [],
    n_calls: 2,
    n_badcalls: 0,
    usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
    cost: 0.01,
    latency_ms: 5,
    cached_calls: 0,
    error: null,
    ...extra,
  };
}

function writeRun(id: string, task: string, method: string, records: V1Record[], indices = records.map((r) => r.question_idx)) {
  const d = path.join(dir, id);
  fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(
    path.join(d, 'manifest.json'),
    JSON.stringify({
      schema: 1,
      runId: id,
      kind: 'run',
      task,
      method,
      split: 'offline500',
      shard: null,
      model: 'my-model',
      indices,
      identity: {},
      settings: {},
      fidelity: {},
      inputs: {},
      modelDescription: {},
      wiki: null,
      software: {},
      startedAt: '',
      sessions: [{ startedAt: '', status: 'complete' }],
    }),
  );
  fs.writeFileSync(path.join(d, 'episodes.jsonl'), records.map((r) => JSON.stringify(r) + '\n').join(''));
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'report-'));
  // ReAct: right on 0 and 1, wrong on 2, forced finish on 3 (no answer).
  writeRun('hotpotqa-react', 'hotpotqa', 'react', [
    rec(0, 'a', 'a'),
    rec(1, 'b', 'b'),
    rec(2, 'x', 'c'),
    rec(3, '', 'd', { forced_finish: true }),
  ]);
  // CoT-SC with 4 samples: majority at k=1..4.
  writeRun('hotpotqa-cot-sc', 'hotpotqa', 'cot-sc', [
    rec(0, 'a', 'a', { samples: ['z', 'a', 'a', 'a'] }),
    rec(1, 'y', 'b', { samples: ['y', 'y', 'b', 'b'] }),
    rec(2, 'c', 'c', { samples: ['c', 'c', 'c', 'q'] }),
    rec(3, 'd', 'd', { samples: ['d', 'e', 'e', 'd'] }),
  ]);
  // FEVER CoT with one infrastructure error among 3 planned.
  writeRun(
    'fever-cot',
    'fever',
    'cot',
    [rec(5, 'SUPPORTS', 'SUPPORTS'), rec(6, 'REFUTES', 'SUPPORTS'), rec(7, null, 'REFUTES', { error: { source: 'llm', message: '503' } })],
    [5, 6, 7, 8],
  );
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('report', () => {
  it('Markdown: Table 1 rows with ours (95% CI, n) beside PaLM-540B and GPT-3; split and n in the notes; runs with total and spent', () => {
    const md = renderReport([dir], 'md');
    expect(md).toContain('## Table 1: HotpotQA and FEVER (model my-model)');
    expect(md).toContain(
      '| Method | HotpotQA EM Ours | 95% CI | n | PaLM-540B | GPT-3 | FEVER Acc Ours | 95% CI | n | PaLM-540B | GPT-3 |',
    );
    expect(md).toContain('| ReAct | 50.0 | [0.0, 100.0] | 4 | 27.4 | 30.8 | — | — | — | 60.9 | 54.0 |');
    expect(md).toContain('| CoT | — | — | — | 29.4 | — | 50.0 | [0.0, 100.0] | 2 | 56.3 | — |');
    expect(md).toContain('| CoT-SC | 75.0 | [25.0, 100.0] | 4 | 33.4 | — |');
    expect(md).toContain('| Standard | — | — | — | 28.7 | — | — | — | — | 57.1 | — |');
    expect(md.indexOf('| Standard')).toBeLessThan(md.indexOf('| CoT |'));
    expect(md).toContain('HotpotQA EM: split offline500, n = 4 items scored in all 2 runs (of 4 planned).');
    expect(md).toContain(
      'FEVER Acc: split offline500, n = 2 items scored in the run (of 4 planned; left out where a run has none: CoT 1 error, 1 not run).',
    );
    // Supervised SoTA is class C: published elsewhere, with its source, never in a column of ours.
    expect(md).toMatch(
      /\| Supervised SoTA \| HotpotQA \| supervised SoTA \(fine-tuned\) \| EM \| 67\.5 \| — \| full dev set \| C \| Table 1, Yao et al\./,
    );
    // Each metric its own column: HotpotQA's EM and FEVER's Acc (both stored as "em") never share one.
    expect(md).toContain('| Benchmark / method | Run | Split | Model | Done | Errors | EM | 95% CI | F1 | 95% CI | Acc | 95% CI | Calls |');
    expect(md).toContain(
      '| FEVER CoT | fever-cot | offline500 | my-model | 3/4 | 1 | — | — | 50.0 | [0.0, 100.0] | 50.0 | [0.0, 100.0] | 6 | 0 | 330 | 330 | 0.0300 | 0.0300 | complete |',
    );
    expect(md).not.toMatch(/NaN/);
  });

  it('Figure 2 sweep: CoT-SC majority at k and both combinations', () => {
    const [s] = buildSweeps(loadRuns([dir]));
    expect(s.n).toBe(4);
    expect(s.series.map((x) => x.name)).toEqual(['CoT-SC', 'ReAct→CoT-SC', 'CoT-SC→ReAct']);
    // k=1: z,y,c,d → c,d right = 50; k=2: z|a tie→z, y, c, d|e→d = 50; k=3: a, y, c, e = 50; k=4: a, y|b tie→y, c, d|e tie→d = 75.
    expect(s.series[0].em).toEqual([50, 50, 50, 75]);
    // ReAct→CoT-SC: ReAct answers 0,1 (right), 2 (wrong); 3 forced → CoT-SC majority (d at k=1,2,4; e at k=3).
    expect(s.series[1].em).toEqual([75, 75, 50, 75]);
    expect(s.refs).toEqual([{ name: 'ReAct', em: 50 }]);
  });

  it('LaTeX uses booktabs and escapes; run ids stay out of the tables', () => {
    const tex = renderReport([dir], 'tex');
    expect(tex).toContain('\\toprule');
    expect(tex).toContain('\\midrule');
    expect(tex).toContain('\\bottomrule');
    expect(tex).toContain('ReAct & 50.0 & [0.0, 100.0] & 4 & 27.4 & 30.8 & -- & -- & -- & 60.9 & 54.0 \\\\');
    expect(tex).toContain('CoT-SC$\\rightarrow$ReAct & --');
    expect(tex).not.toContain('hotpotqa-cot-sc &');
  });

  it('CSV has every table cell by cell, with interval ends; HTML is self-contained with the SVG sweep', () => {
    const csv = renderReport([dir], 'csv').trim().split('\n');
    expect(csv[0]).toBe('table,table_title,row,source,column,value,ci_low,ci_high,source_ref');
    expect(csv).toContain('table1,Table 1: HotpotQA and FEVER (model my-model),ReAct,ours,HotpotQA EM Ours,50.0,0.0,100.0,hotpotqa-react');
    // The paper's figure in a row of ours is the paper's, with its source.
    expect(csv).toContain(
      'table1,Table 1: HotpotQA and FEVER (model my-model),ReAct,paper,FEVER Acc PaLM-540B,60.9,,,"Table 1, Yao et al., ReAct (ICLR 2023, arXiv 2210.03629)"',
    );
    expect(csv).toContain('runs,Runs,FEVER CoT,ours,Acc,50.0,0.0,100.0,fever-cot');
    expect(csv).toContain('runs,Runs,FEVER CoT,ours,Tokens (spent),330,,,fever-cot');
    expect(csv).toContain(
      'table1,Table 1: HotpotQA and FEVER (model my-model),ReAct,published,FEVER Acc GPT-3,54.0,,,ysymyth/ReAct README.md @6bdb3a1',
    );
    const html = renderReport([path.join(dir, 'hotpotqa-react'), path.join(dir, 'hotpotqa-cot-sc')], 'html');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<svg xmlns="http://www.w3.org/2000/svg"');
    expect(html).toContain('<polyline');
    // Self-contained: nothing loaded from anywhere; its only scripts are its own (the browser, and for
    // the ReAct run's Table 2 sample the labelling script); every other script element is a data block
    // (JSON: the runs, the episode blocks, the labelling data; the blocks' compressed bodies).
    expect(html).not.toMatch(/<link|src="http|href="http/);
    expect(html.match(/<script>/g)).toHaveLength(2);
    expect(html.match(/<script\b/g)!.length - 2).toBe(
      html.match(/<script type="application\/json"/g)!.length +
        html.match(/<script type="application\/octet-stream" class="episode-bodies">/g)!.length,
    );
    expect(html).toContain('id="label-data"');
    expect(html).toContain('id="episode-list"');
    expect(html).toContain('<section class="report-table" id="table-table1">');
  });

  it('trajectories, and one-line errors for bad input', () => {
    const [react] = loadRuns([path.join(dir, 'hotpotqa-react')]);
    const t = renderTrajectories(react, [2]);
    expect(t).toBe('=== item 2 · answer "x" gold "c" em 0 f1 0 · calls 2 (bad 0)\nQuestion: q2\nThought 1: ...\n');
    expect(() => renderTrajectories(react, [9])).toThrow(/--indices: item 9 has no episode/);
    expect(() => renderReport([path.join(dir, 'nope')], 'md')).toThrow(/report: .*nope is not a folder/);
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'empty-'));
    expect(() => renderReport([empty], 'md')).toThrow(/holds no runs/);
    fs.rmSync(empty, { recursive: true });
  });
});
