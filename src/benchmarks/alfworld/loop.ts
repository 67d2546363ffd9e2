// ReAct and Act on ALFWorld: alfworld.ipynb's alfworld_run (§8) as a definition of the one
// interactive loop (src/methods/interactive.ts). init_prompt = head + opening + "\n>"; each turn one
// completion with stop ["\n"], stripped (Python str.strip), stepped in the game; a "think:" action is
// still sent but observes "OK."; the history grows by f" {action}\n{observation}\n>"; at most 49
// actions (for i in range(1, 50)); the episode ends when the game says done.
// The notebook runs ReAct only; Act is the same loop over the act_* exemplars (the paper's Act).
import type { StepResult } from '../../envs/types.js';
import { PAPER_SAMPLING } from '../../llm/types.js';
import { InteractiveMethod, type LoopDefinition } from '../../methods/interactive.js';
import { pyStrip } from '../../util/python-str.js';
import type { Item } from '../types.js';
import { taskTypeOf, type TaskType } from './games.js';
import { alfworldObservation, buildHead, describeHeads, formatPromptSet, PROMPT_FILE, type LoopKind, type PromptSet } from './prompt.js';
import { JsonFields } from '../../util/json-fields.js';

/** for i in range(1, 50): at most 49 model actions per game. */
export const MAX_ACTIONS = 49;
export const STOP = ['\n'];

/** Benchmark.observe: the think rule on the step's (already cleaned) observation. */
export function observeAlfworld(action: string, step: StepResult): string {
  return alfworldObservation(action, step.observation);
}

export function alfworldLoop(kind: LoopKind, head: string): LoopDefinition {
  return {
    name: kind,
    loop: 'alfworld_run (alfworld.ipynb)',
    stop: { action: STOP },
    head,
    maxTurns: MAX_ACTIONS,
    opening: (reset) => reset.observation + '\n>',
    turn: async ({ prompt, ledger }) => ({ action: pyStrip(await ledger.llm(prompt, STOP)) }),
    observe: observeAlfworld,
    stepText: (_i, turn, obs) => ` ${turn.action}\n${obs}\n>`,
    stepFlags: (_turn, step) => ({ reward: step.reward }),
    recordReset: (reset) => {
      const info = JsonFields.orEmpty(reset.info);
      return { task_type: info.get('task_type') ?? null, game: info.get('game') ?? null, game_id: info.get('game_id') ?? null };
    },
  };
}

/** ReAct or Act on ALFWorld with one prompt set; the head depends on the item's task type. */
export function createAlfworldMethod(kind: LoopKind, prompts: Record<string, string>, set: PromptSet): InteractiveMethod {
  const loops = new Map<TaskType, LoopDefinition>();
  const loopFor = (item: Item): LoopDefinition => {
    const type = taskTypeOf(item.id);
    if (!type) throw new Error(`ALFWorld game "${item.id}" has no known task-type prefix`);
    let def = loops.get(type);
    if (!def) loops.set(type, (def = alfworldLoop(kind, buildHead(prompts, kind, type, set))));
    return def;
  };
  const description = {
    method: kind,
    loop: 'alfworld_run (alfworld.ipynb)',
    promptFile: PROMPT_FILE,
    promptSet: formatPromptSet(set),
    heads: describeHeads(prompts, kind, set),
    maxActions: MAX_ACTIONS,
    sampling: { ...PAPER_SAMPLING },
    stop: STOP,
    actionStrip: 'Python str.strip',
    think: 'an action starting with "think:" is stepped and observes "OK."',
    success: "the game's won flag when it says done (reward 1), never done alone",
  };
  return new InteractiveMethod(loopFor, kind, description);
}
