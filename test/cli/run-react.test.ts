// End-to-end: ReAct and Act through the offline Wikipedia snapshot, the combinations, and the report.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { readLines, repo, runCli, runDirs, scriptedRespond } from '../run/cli-helpers.js';
import { createWikiBackend, WikiEnv } from '../../src/envs/wikipedia/index.js';

let tmp: string;
let srv: OpenAIServer;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-react-'));
  srv = await startOpenAIServer({ respond: scriptedRespond });
});
afterAll(async () => {
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function searchObservation(entity: string): Promise<string> {
  const backend = await createWikiBackend('snapshot');
  try {
    const env = new WikiEnv(backend);
    await env.reset();
    return (await env.step(`search[${entity}]`)).observation.replace(/\\n/g, '');
  } finally {
    await backend.close?.();
  }
}

describe('run (ReAct, Act, combinations) on the offline Wikipedia', () => {
  it('every method on both tasks, the notebook traj for ReAct, combinations from the base runs, and the report', async () => {
    const results = path.join(tmp, 'results');
    const exp = path.join(tmp, 'all.json');
    const methods = ['standard', 'cot', 'cot-sc', 'act', 'react', 'react-cot-sc', 'cot-sc-react'];
    fs.writeFileSync(
      exp,
      JSON.stringify({
        defaults: { samples: 3, indices: [0, 1] },
        runs: [
          ...methods.map((method) => ({ task: 'hotpotqa', method })),
          ...methods.map((method) => ({ task: 'fever', method, indices: [0, 1] })),
        ],
      }),
    );
    const r = await runCli(['run', exp, '--base-url', srv.baseURL, '--model', 'test-model', '--cache', 'off', '--results-dir', results], {
      cwd: tmp,
    });
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    const dirs = runDirs(results);
    expect(dirs).toHaveLength(14);

    // The ReAct episode's traj is the notebook's final prompt, byte for byte.
    const reactDir = dirs.find((d) => d.startsWith('hotpotqa-react-indices-'))!;
    // Episodes are appended as they finish (--concurrency), so the file's order is not the plan's.
    const ep0 = readLines(path.join(results, reactDir, 'episodes.jsonl')).find((e) => e.idx === 0)!;
    const instruction = JSON.parse(fs.readFileSync(path.join(repo, 'prompts/hotpotqa_instruction.json'), 'utf8')).webthink_instruction;
    const examples = JSON.parse(fs.readFileSync(path.join(repo, 'prompts/prompts_naive.json'), 'utf8')).webthink_simple6;
    const obs1 = await searchObservation('Scott Derrickson');
    const expected =
      instruction +
      examples +
      'Question: Were Scott Derrickson and Ed Wood of the same nationality?\n' +
      `Thought 1: I need to search Scott Derrickson.\nAction 1: Search[Scott Derrickson]\nObservation 1: ${obs1}\n` +
      'Thought 2: The answer is yes.\nAction 2: Finish[yes]\nObservation 2: Episode finished, reward = 1\n\n';
    expect(ep0.idx).toBe(0);
    expect(ep0.traj).toBe(expected);
    expect(ep0.metrics.em).toBe(1);
    expect(ep0.n_calls).toBe(2);
    expect(ep0.steps).toHaveLength(2);
    const rm = JSON.parse(fs.readFileSync(path.join(results, reactDir, 'manifest.json'), 'utf8'));
    expect(rm.schema).toBe(2);
    expect(rm.metrics).toEqual([
      { key: 'em', label: 'EM' },
      { key: 'f1', label: 'F1' },
    ]);
    expect(rm.environment.kind).toBe('snapshot');
    // §6 deviations of WikiEnv from wikienv.py are recorded with the run, next to the backend.
    expect(rm.fidelity.environment).toMatchObject({
      kind: 'snapshot',
      query: expect.stringMatching(/^notebook-url: /), // --wiki-query (default: the faithful term)
      env: expect.objectContaining({ cleanStrErrors: 'keep', maxDisambiguationRetries: 20 }),
    });
    expect(rm.identity.environment.env).toEqual(rm.fidelity.environment.env);
    expect(rm.inputs['envs/wikipedia/hotpotqa-2017/pages.jsonl']).toMatch(/^[0-9a-f]{64}$/);

    // Combinations: no extra calls, answers from the base runs.
    const combo = dirs.find((d) => d.startsWith('hotpotqa-react-cot-sc-indices-'))!;
    const cm = JSON.parse(fs.readFileSync(path.join(results, combo, 'manifest.json'), 'utf8'));
    expect(cm.kind).toBe('combination');
    expect(cm.sources.map((s: { runId: string }) => s.runId)).toContain(reactDir);
    const ce = readLines(path.join(results, combo, 'episodes.jsonl'));
    expect(ce.map((e) => e.answer_from)).toEqual(['react', 'react']);
    expect(ce[0].samples).toEqual(['yes', 'yes', 'no']);

    // The report: Table 1 with ours beside the paper, and the Figure 2 sweep from the 3-sample run.
    const md = await runCli(['report', results], { cwd: tmp });
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('## Table 1: HotpotQA and FEVER (model test-model)');
    expect(md.stdout).toMatch(
      /\| ReAct \| 50\.0 \| \[\d+\.\d, \d+\.\d\] \| 2 \| 27\.4 \| 30\.8 \| \d+\.\d \| \[\d+\.\d, \d+\.\d\] \| 2 \| 60\.9 \| 54\.0 \|/,
    );
    expect(md.stdout).toContain('HotpotQA EM: split indices, n = 2 items scored in all 7 runs (of 2 planned).');
    expect(md.stdout).toContain('## Figure 2: HotpotQA EM vs CoT-SC samples (split indices, test-model, n = 2 questions)');
    const html = path.join(tmp, 'report.html');
    const h = await runCli(['report', results, '--format', 'html', '--out', html], { cwd: tmp });
    expect(h.code).toBe(0);
    const page = fs.readFileSync(html, 'utf8');
    expect(page).toContain('<svg');
    expect(page).toContain('ReAct→CoT-SC');
    const tr = await runCli(['report', '--trajectories', path.join(results, reactDir), '--indices', '0'], { cwd: tmp });
    expect(tr.stdout).toContain('=== item 0');
    expect(tr.stdout).toContain(expected);
  });
});
