import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMethod } from './run-method.js';
import { QAEpisodeEnv } from '../../../src/benchmarks/qa/episode-env.js';
import { promptsDir } from '../../../src/paths.js';
import type { Example } from '../../../src/benchmarks/qa/types.js';
import { ScriptedModel } from '../../support/scripted-model.js';
import { MemoryEnv } from '../../support/memory-env.js';
import { fakeTask } from './fake-task.js';

const naive = JSON.parse(fs.readFileSync(path.join(promptsDir, 'prompts_naive.json'), 'utf8'));
const EX: Example = { index: 5, question: 'Who directed Foo?', answer: 'Jane Roe' };
const task = fakeTask('hotpotqa', [EX]);

describe('Act (webthink without thoughts)', () => {
  it('trajectory, requests and counts (exemplars-only framing)', async () => {
    const env = new MemoryEnv((a) => (a === 'search[Foo]' ? 'Foo is a film by Jane Roe.' : undefined));
    const model = ScriptedModel.sequence([' Search[Foo]\nObservation 1: invented', ' Finish[Jane Roe] \n']);
    const method = createMethod('act', { framing: 'exemplars-only' });
    const out = await method.run(EX, { model, task, makeEnv: (ex) => new QAEpisodeEnv(env, task, ex) });
    const head = naive.webact_simple6 + 'Question: Who directed Foo?\n';
    const s1 = 'Action 1: Search[Foo]\nObservation 1: Foo is a film by Jane Roe.\n';
    expect(model.requests.map((r) => [r.prompt, r.stop])).toEqual([
      [head + 'Action 1:', ['\nObservation 1:']],
      [head + s1 + 'Action 2:', ['\nObservation 2:']],
    ]);
    expect(model.requests.every((r) => r.temperature === 0 && r.maxTokens === 100 && r.n === 1)).toBe(true);
    expect(out.traj).toBe(head + s1 + 'Action 2: Finish[Jane Roe]\nObservation 2: Episode finished, reward = 1\n\n');
    expect(env.actions).toEqual(['search[Foo]', 'finish[Jane Roe]']);
    expect(out).toMatchObject({ answer: 'Jane Roe', em: 1, n_calls: 2, n_badcalls: 0, forcedFinish: false });
    expect(out.steps[0]).toEqual({ step: 1, action: 'Search[Foo]', observation: 'Foo is a film by Jane Roe.' });
  });

  it('default framing puts the adapted instruction first; step limit forces finish[]', async () => {
    const env = new MemoryEnv();
    const model = new ScriptedModel(() => ' Search[Nothing]');
    const out = await createMethod('act', { maxSteps: 3 }).run(EX, {
      model,
      task,
      makeEnv: (ex) => new QAEpisodeEnv(env, task, ex),
    });
    expect(model.requests[0].prompt.startsWith('Solve a question answering task with interleaving Action, Observation steps.')).toBe(true);
    expect(env.actions).toEqual(['search[Nothing]', 'search[Nothing]', 'search[Nothing]', 'finish[]']);
    expect(out.traj.endsWith('Action 3: Search[Nothing]\nObservation 3: Invalid action: search[Nothing]\n')).toBe(true);
    expect(out).toMatchObject({ answer: '', em: 0, forcedFinish: true, n_calls: 3 });
  });
});
