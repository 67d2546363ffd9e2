// ReAct on HotpotQA/FEVER: the released notebooks' webthink loop, reproduced exactly (§4).
import type { LoopDefinition, Turn } from './interactive.js';
import { countOccurrences, pyStrip } from '../util/python-str.js';
import type { CallLedger } from './episode.js';

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

export const REACT_LOOP: LoopDefinition = {
  name: 'react',
  loop: 'webthink (released notebooks)',
  stop: { thoughtAction: ['\nObservation {i}:'], badcallAction: ['\n'] },
  usesFraming: false,
  turn: reactTurn,
  stepText: reactStepText,
};
