// Replays the first episode printed in the released FEVER notebook (idx 3687) through the real FEVER
// task, the task wrapper and the ReAct loop: the printed step strings must come back verbatim.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMethod } from './run-method.js';
import { getTask } from './run-method.js';
import { QAEpisodeEnv } from '../../../src/benchmarks/qa/episode-env.js';
import { promptsDir } from '../../../src/paths.js';
import { ScriptedModel } from '../../support/scripted-model.js';
import { MemoryEnv } from '../../support/memory-env.js';

const PARAMORE =
  'Pages for logged out editors learn more. Paramore is an American rock band from Franklin, Tennessee, formed in 2004. The band currently consists of lead vocalist Hayley Williams, guitarist Taylor York and drummer Zac Farro. Williams and Farro are founding members of the group, while York, a high school friend of the original lineup, joined in 2007. The band is signed to Fueled by Ramen, a subsidiary of Atlantic Records, both owned by Warner Music Group.';

describe('FEVER notebook episode 3687', () => {
  it('reproduces the printed step strings and info (label scored through the wrapper)', async () => {
    const task = getTask('fever');
    const ex = task.example(3687);
    expect(ex).toMatchObject({ question: 'Paramore is not from Tennessee.', answer: 'REFUTES' });
    const model = ScriptedModel.sequence([
      ' I should search for Paramore, and see if it is from Tennessee.\nAction 1: Search[Paramore]\nObservation 1: ',
      ' The observation says that the band is "from Franklin, Tennessee", so the claim is false.\nAction 2: Finish[REFUTES]',
    ]);
    const env = new MemoryEnv((a) => (a === 'search[Paramore]' ? PARAMORE : undefined));
    const out = await createMethod('react').run(ex, { model, task, makeEnv: (e) => new QAEpisodeEnv(env, task, e) });
    const head = JSON.parse(fs.readFileSync(path.join(promptsDir, 'fever.json'), 'utf8')).webthink_simple3;
    // The notebook prints each step_str (then a newline): these are its lines 2-4 and 6-8.
    const step1 = `Thought 1: I should search for Paramore, and see if it is from Tennessee.\nAction 1: Search[Paramore]\nObservation 1: ${PARAMORE}\n`;
    const step2 =
      'Thought 2: The observation says that the band is "from Franklin, Tennessee", so the claim is false.\nAction 2: Finish[REFUTES]\nObservation 2: Episode finished, reward = 1\n\n';
    expect(out.traj).toBe(head + 'Claim: Paramore is not from Tennessee.\n' + step1 + step2);
    // {'steps': 2, 'answer': 'REFUTES', 'gt_answer': 'REFUTES', 'question_idx': 3687, 'em': 1, 'reward': 1, 'f1': 1}
    expect(out).toMatchObject({ answer: 'REFUTES', em: 1, reward: 1, f1: 1, n_calls: 2, n_badcalls: 0 });
  });
});
