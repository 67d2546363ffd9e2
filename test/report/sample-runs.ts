// Crafted run folders' content (RunView) for the HTML report tests: a ReAct run with an injection
// payload in its model text and an error episode, a CoT run without steps, an ALFWorld run with tags.
import type { RunView } from '../../src/report/model.js';
import type { StepRecord } from '../../src/methods/types.js';
import type { RunManifest, RunSummary, EpisodeRecord } from '../../src/runlog/schema.js';

export const PAYLOAD_SCRIPT = '<script>window.__pwned = 1; alert("script")</script>';
export const PAYLOAD_IMG = '<img src=x onerror="window.__pwned = 2; alert(\'img\')">';
export const PAYLOAD_CLOSE = '</script><script>window.__pwned = 3</script><!--';
export const REACT_PROMPT =
  'Solve a question answering task with interleaving Thought, Action, Observation steps.\n' +
  'Question: Musician and satirist Allie Goertz wrote a song about which character?\n' +
  'Thought 1: I need to search Allie Goertz.\nAction 1: Search[Allie Goertz]\nObservation 1: Allie Goertz is a musician.\n' +
  'Action 2: Finish[Milhouse]\n\n';
export const COT_PROMPT = 'Q: Which is older?\nA: Let us think step by step. The answer is X.\n\n';

/** A run's manifest as the report reads it; `over` replaces fields (another split, other metrics). */
export function sampleManifest(
  runId: string,
  task: string,
  method: string,
  indices: number[],
  model = 'text-davinci-002',
  over: Partial<RunManifest> = {},
): RunManifest {
  return {
    schema: 1,
    runId,
    kind: 'run',
    task,
    method,
    split: task === 'alfworld' ? 'valid_unseen' : 'paper500',
    shard: null,
    model,
    indices,
    identity: {},
    settings: {},
    fidelity: {},
    inputs: {},
    modelDescription: {},
    environment: null,
    metrics:
      task === 'alfworld'
        ? [{ key: 'success', label: 'Success' }]
        : [
            { key: 'em', label: 'EM' },
            { key: 'f1', label: 'F1' },
          ],
    software: { package: 'react-repro', version: '0', git: null, node: 'v20', platform: 'linux-x64' },
    startedAt: '2026-01-01T00:00:00Z',
    sessions: [],
    ...over,
  };
}

function record(over: Partial<EpisodeRecord> & Pick<EpisodeRecord, 'idx' | 'input' | 'traj'>): EpisodeRecord {
  return {
    item: over.input,
    gold: null,
    answer: null,
    metrics: { em: 0, f1: 0 },
    reward: 0,
    steps: [],
    n_calls: 1,
    n_badcalls: 0,
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    cost: 0,
    latency_ms: 1,
    cached_calls: 0,
    error: null,
    ...over,
  } as EpisodeRecord;
}

function reactTraj(question: string, steps: StepRecord[]): string {
  return (
    REACT_PROMPT +
    `Question: ${question}\n` +
    steps.map((s) => `Thought ${s.step}: ${s.thought}\nAction ${s.step}: ${s.action}\nObservation ${s.step}: ${s.observation}\n`).join('')
  );
}

const summary = {} as RunSummary;

export function sampleRuns(): RunView[] {
  const s1: StepRecord[] = [
    {
      step: 1,
      thought: 'I need to search Colorado orogeny.',
      action: 'search[Colorado orogeny]',
      observation: 'The Colorado orogeny was an episode of mountain building.',
    },
    {
      step: 2,
      thought: 'It says nothing about the eastern sector.',
      action: 'finish[1,800 to 7,000 ft]',
      observation: 'Episode finished, reward = 1',
    },
  ];
  const s2: StepRecord[] = [
    {
      step: 1,
      thought: `Injected ${PAYLOAD_SCRIPT}`,
      action: `search[${PAYLOAD_IMG}]`,
      observation: `Could not find ${PAYLOAD_IMG}. ${PAYLOAD_CLOSE}`,
    },
    { step: 2, thought: 'Try again.', action: 'finish[nothing]', observation: 'Episode finished, reward = 0' },
  ];
  const q1 = 'What is the elevation range for the area that the eastern sector of the Colorado orogeny extends into?';
  const q2 = `Which magazine was started first ${PAYLOAD_SCRIPT}?`;
  const react: RunView = {
    dir: '/runs/react',
    manifest: sampleManifest('react-hotpotqa-paper500-aaaa', 'hotpotqa', 'react', [3687, 6238, 5388], `evil-model ${PAYLOAD_IMG}`),
    summary,
    records: [
      record({
        idx: 3687,
        input: q1,
        gold: '1,800 to 7,000 ft',
        answer: '1,800 to 7,000 ft',
        metrics: { em: 1, f1: 1 },
        reward: 1,
        steps: s1,
        traj: reactTraj(q1, s1),
      }),
      record({
        idx: 6238,
        input: q2,
        gold: "Arthur's Magazine",
        answer: PAYLOAD_IMG,
        metrics: { em: 0, f1: 0.4 },
        steps: s2,
        traj: reactTraj(q2, s2),
        forced_finish: false,
      }),
      record({
        idx: 5388,
        input: 'Who was born first?',
        traj: REACT_PROMPT + 'Question: Who was born first?\n',
        error: { source: 'llm', message: 'endpoint unreachable after 5 retries' },
      }),
    ],
  };
  const cot: RunView = {
    dir: '/runs/cot',
    manifest: sampleManifest('cot-hotpotqa-paper500-bbbb', 'hotpotqa', 'cot', [3687, 6238]),
    summary,
    records: [
      record({
        idx: 3687,
        input: q1,
        gold: '1,800 to 7,000 ft',
        answer: '7,000 ft',
        metrics: { em: 0, f1: 0.67 },
        traj: COT_PROMPT + `Question: ${q1}\nThought: Let's think. Answer: 7,000 ft`,
      }),
      record({
        idx: 6238,
        input: q2,
        gold: "Arthur's Magazine",
        answer: "Arthur's Magazine",
        metrics: { em: 1, f1: 1 },
        traj: COT_PROMPT + `Question: ${q2}\nThought: Arthur's was 1844. Answer: Arthur's Magazine`,
      }),
    ],
  };
  const alf: RunView = {
    dir: '/runs/alf',
    manifest: sampleManifest('act-alfworld-valid_unseen-cccc', 'alfworld', 'act', [0, 1]),
    summary,
    records: [
      record({
        idx: 0,
        item: 'pick_and_place_simple-Mug-None-Desk-308',
        input: 'put some mug on desk.',
        metrics: { success: 1 },
        tags: ['repeated-action'],
        traj: 'Interact with a household.\nYour task is to: put some mug on desk.\n> go to desk 1\n',
        steps: [{ step: 1, action: 'go to desk 1', observation: 'On the desk 1, you see a mug 1.' }],
      }),
      record({
        idx: 1,
        item: 'look_at_obj-Book-None-DeskLamp-308',
        input: 'look at book under the desklamp.',
        metrics: { success: 0 },
        tags: ['step-limit'],
        traj: 'Interact with a household.\nYour task is to: look at book under the desklamp.\n> go to shelf 1\n',
        steps: [{ step: 1, action: 'go to shelf 1', observation: 'Nothing happens.' }],
      }),
    ],
  };
  return [react, cot, alf];
}
