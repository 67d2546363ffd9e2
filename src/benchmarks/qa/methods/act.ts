// Act on HotpotQA/FEVER: the webthink loop without thoughts (§4). The released code has no Act runner,
// so this is our reading of the paper: webact_* exemplars under an explicit framing (prompts/framings.json),
// turns cued with "Action {i}:" and stopped at "\nObservation {i}:", the completion stripped as the action.
// There is no bad-call path: a completion is always one action (whatever it holds goes to the env,
// which answers an unusable one as an invalid action), so n_badcalls is always 0.
import type { Turn } from '../../../methods/interactive.js';
import type { QaTurnProtocol } from './react.js';
import { pyStrip } from '../../../util/python-str.js';
import type { CallLedger } from '../../../methods/episode.js';

export async function actTurn(prompt: string, i: number, ledger: CallLedger): Promise<Turn> {
  const completion = await ledger.llm(prompt + `Action ${i}:`, [`\nObservation ${i}:`]);
  return { action: pyStrip(completion) };
}

export function actStepText(i: number, turn: Turn, obs: string): string {
  return `Action ${i}: ${turn.action}\nObservation ${i}: ${obs}\n`;
}

export const ACT_LOOP: QaTurnProtocol = {
  name: 'act',
  loop: 'webthink without thoughts (no released runner; suite choice)',
  stop: { action: ['\nObservation {i}:'] },
  usesFraming: true,
  turn: actTurn,
  stepText: actStepText,
};
