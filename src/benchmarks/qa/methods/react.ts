// ReAct on HotpotQA/FEVER: the released notebooks' webthink loop, reproduced exactly (§4).
import type { Turn } from '../../../methods/interactive.js';
import { countOccurrences, pyStrip } from '../../../util/python-str.js';
import type { CallLedger } from '../../../methods/episode.js';

/** The parts of a QA loop that differ between ReAct and Act. */
export interface QaTurnProtocol {
  name: 'react' | 'act';
  loop: string;
  stop: Record<string, string[]>;
  /** Act needs a framing of ours (prompts/framings.json); ReAct uses the released prompt as is. */
  usesFraming: boolean;
  turn(prompt: string, i: number, ledger: CallLedger): Promise<Turn>;
  stepText(i: number, turn: Turn, obs: string): string;
}

/** One webthink turn: thought and action from one completion, or the bad-call fallback (§4 step 2). */
export async function reactTurn(prompt: string, i: number, ledger: CallLedger): Promise<Turn> {
  const thoughtAction = await ledger.llm(prompt + `Thought ${i}:`, [`\nObservation ${i}:`]);
  const stripped = pyStrip(thoughtAction);
  const sep = `\nAction ${i}: `;
  // Python: `thought, action = s.split(sep)` succeeds only when sep occurs exactly once.
  if (countOccurrences(stripped, sep) === 1) {
    const [thought, action] = stripped.split(sep);
    return { thought, action };
  }
  const thought = stripped.split('\n')[0];
  const action = pyStrip(await ledger.llm(prompt + `Thought ${i}: ${thought}\nAction ${i}:`, ['\n']));
  return { thought, action, badcall: true };
}

export function reactStepText(i: number, turn: Turn, obs: string): string {
  return `Thought ${i}: ${turn.thought}\nAction ${i}: ${turn.action}\nObservation ${i}: ${obs}\n`;
}

export const REACT_LOOP: QaTurnProtocol = {
  name: 'react',
  loop: 'webthink (released notebooks)',
  stop: { thoughtAction: ['\nObservation {i}:'], badcallAction: ['\n'] },
  usesFraming: false,
  turn: reactTurn,
  stepText: reactStepText,
};
