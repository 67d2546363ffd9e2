// Other ALFWorld game sets (--games FILE; docs/protocol.md §8): a file whose games are not the paper's
// 134 (AgentGym's valid_train, a seen split for an ablation) makes those games the run's items. The item
// list is then the paper's 134 (indices unchanged) followed by the file's other games, and the default
// split is the file's games in its order, named after the file and recorded with its sha256. A file that
// lists exactly the paper's 134 (a server's game-id order) changes nothing: the benchmark is the paper's,
// byte for byte (same items, split and run ids).
import path from 'node:path';
import { UserError } from '../../errors.js';
import { parseLimit } from '../../options.js';
import type { Benchmark, Item, ParsedBenchmark, Split } from '../types.js';
import { paperGameList, paperGoals, taskTypeOf } from './games.js';
import type { AlfworldOptions, GameList } from './options.js';

/** The split name of a game file: its file name without .json, in run-id-safe characters. */
export function gameFileSplitName(file: string, taken: readonly string[]): string {
  const stem =
    path
      .basename(file)
      .replace(/\.json$/i, '')
      .replace(/[^A-Za-z0-9_.-]+/g, '_') || 'games';
  return taken.includes(stem) ? `${stem}-file` : stem;
}

/** The benchmark for these settings: the paper's, or one whose items include the --games file's games. */
export function alfworldForSettings<B extends Benchmark | ParsedBenchmark<AlfworldOptions>>(base: B, options: AlfworldOptions): B {
  if (options.games === undefined) return base;
  const list: GameList = options.gameList;
  const paper = paperGameList();
  const paperSet = new Set(paper);
  if (list.games.length === paper.length && list.games.every((g) => paperSet.has(g))) return base;
  for (const g of list.games) {
    if (!taskTypeOf(g))
      throw new UserError(
        `--games ${list.source}: game "${g}" has no known task-type prefix (pick_and_place, pick_clean_then_place, pick_heat_then_place, pick_cool_then_place, look_at_obj, pick_two_obj)`,
      );
  }
  const all = [...paper, ...list.games.filter((g) => !paperSet.has(g))];
  const at = new Map(all.map((g, i) => [g, i]));
  const name = gameFileSplitName(list.source, base.splitNames());
  const fileIndices = list.games.map((g) => at.get(g)!);
  const listed = new Set(fileIndices);
  const makeItem = (index: number): Item => {
    if (!Number.isInteger(index) || index < 0 || index >= all.length)
      throw new UserError(`ALFWorld game index ${index}: expected an integer in 0..${all.length - 1}`);
    // The server has only the file's games: another item is bad input, refused when the run is planned.
    if (!listed.has(index))
      throw new UserError(
        `--indices: ${index} is not one of the ${list.games.length} games of ${list.listName} (its items: ${fileIndices.slice(0, 10).join(', ')}${fileIndices.length > 10 ? ', ...' : ''})`,
      );
    const id = all[index];
    return { index, id, input: paperGoals().get(id) ?? '', meta: { task_type: taskTypeOf(id)! } };
  };
  return {
    ...base,
    size: () => all.length,
    item: makeItem,
    splitNames: () => [name, ...base.splitNames()],
    defaultSplit: name,
    split: (splitName, opts = {}): Split => {
      if (splitName !== name) return base.split(splitName, opts);
      const limit = parseLimit(opts.limit);
      return {
        benchmark: base.name,
        name,
        description: `the ${list.games.length} games of --games ${list.source} in its order (sha256 ${list.sha256} of the names joined by "\\n")`,
        indices: limit === undefined ? fileIndices : fileIndices.slice(0, limit),
      };
    },
    // This view is final: asking it again would name the split twice.
    forSettings: undefined,
    itemByRef: (ref) => {
      if (typeof ref === 'string' && at.has(ref)) return makeItem(at.get(ref)!);
      if (typeof ref === 'number') return makeItem(ref);
      return base.itemByRef(ref);
    },
  };
}
