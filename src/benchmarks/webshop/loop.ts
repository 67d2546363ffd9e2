// Act and ReAct on WebShop: the notebook's webshop_run (docs/protocol.md §9) as a definition of the one interactive
// loop (src/methods/interactive.ts). Both use the same loop; only the prompt differs (prompt1 = react,
// prompt1_actonly = act in prompts/webshop_prompts.json). From WebShop.ipynb:
//   action = 'reset'; init_prompt = prompt; prompt = ''
//   for i in range(15):
//     observation = env.step(idx, action)[0]  (AssertionError → 'Invalid action!')
//     if action.startswith('think'): observation = 'OK.'
//     prompt += f'{observation}\n\nAction:' on i == 0 (no "reset" is written), else
//               f' {action}\nObservation: {observation}\n\nAction:'
//     if done: return reward
//     action = llm(init_prompt + prompt[-(6400-len(init_prompt)):], stop=['\n']).lstrip(' ')
//   return 0
// So at most 15 environment steps counting the reset: 14 model turns. After the 15th step the
// notebook asks for one more completion and discards it; that call is not made here (it changes no
// trajectory or score).
import type { StepResult } from '../../envs/types.js';
import type { LoopDefinition } from '../../methods/interactive.js';
import { JsonFields } from '../../util/json-fields.js';

export const WEBSHOP_STEP_LIMIT = 15;
export const WEBSHOP_MAX_TURNS = WEBSHOP_STEP_LIMIT - 1;
export const WEBSHOP_CONTEXT_CHARS = 6400;
export const WEBSHOP_STOP = ['\n'];

/** What the loop shows for a step (Benchmark.observe): "OK." for any action starting with "think". */
export function webshopObserve(action: string, step: StepResult): string {
  return action.startsWith('think') ? 'OK.' : step.observation;
}

const ASTRAL = /[\uD800-\uDFFF]/;

/** len(s) in Python (code points). */
export function pyLen(s: string): number {
  return ASTRAL.test(s) ? Array.from(s).length : s.length;
}

/** Python's s[-n:] for an int n, on code points (n ≤ 0 included: s[0:], or s[|n|:]). */
export function pyTail(s: string, n: number): string {
  const astral = ASTRAL.test(s);
  const cps = astral ? Array.from(s) : null;
  const len = cps ? cps.length : s.length;
  const start = n > 0 ? Math.max(0, len - n) : n === 0 ? 0 : Math.min(len, -n);
  return cps ? cps.slice(start).join('') : s.slice(start);
}

/** Python's str.lstrip(' '). */
export function lstripSpaces(s: string): string {
  let i = 0;
  while (i < s.length && s[i] === ' ') i++;
  return s.slice(i);
}

/** The context the notebook sends: init_prompt + the last (6400 - len(init_prompt)) characters of the history. */
export function webshopContext(head: string, history: string): string {
  return head + pyTail(history, WEBSHOP_CONTEXT_CHARS - pyLen(head));
}

export interface WebshopLoopOptions {
  name: 'react' | 'act';
  head: string;
}

/** The notebook's webshop_run loop as a LoopDefinition. */
export function webshopLoop(opts: WebshopLoopOptions): LoopDefinition {
  return {
    name: opts.name,
    loop: 'webshop_run (WebShop.ipynb)',
    stop: { action: WEBSHOP_STOP },
    head: opts.head,
    maxTurns: WEBSHOP_MAX_TURNS,
    opening: (reset) => `${reset.observation}\n\nAction:`,
    context: webshopContext,
    turn: async ({ prompt, ledger }) => ({ action: lstripSpaces(await ledger.llm(prompt, WEBSHOP_STOP)) }),
    observe: webshopObserve,
    stepText: (_i, turn, observation) => ` ${turn.action}\nObservation: ${observation}\n\nAction:`,
    recordReset: (reset) => {
      const info = JsonFields.orEmpty(reset.info);
      return { session: info.get('session'), instruction: info.get('instruction'), goal_check: info.get('goal_check') };
    },
    stepFlags: (_turn, step) => ({ reward: step.reward }),
  };
}
