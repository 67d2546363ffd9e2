// Is this the paper's site? (docs/protocol.md §9 "Known drifts".) A session's goal on the
// WebShop site depends on the product file (the paper: the full catalogue with human goals, shuffled
// with random.seed(233)), and its ", and price lower than N dollars" clause is drawn with an unseeded
// RNG at each server start (web_agent_site/engine/goal.py; WebShop GitHub issue #45). So each reset compares
// the start page's instruction with the vendored goals of fixed_0..fixed_99
// (envs/webshop/webshop.fixed100.json): the instruction without the price clause, and the clause
// separately (a different price is expected on any server restart and is reported, not fatal).
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../../errors.js';
import { repoRoot } from '../../paths.js';
import { JsonFields } from '../../util/json-fields.js';

export const GOALS_FILE = 'envs/webshop/webshop.fixed100.json';
export const GOALS_MODES = ['check', 'strict', 'off'] as const;
export type GoalsMode = (typeof GOALS_MODES)[number];

export interface ExpectedGoal {
  session: string;
  /** The instruction text without the price clause. */
  instruction: string;
  /** "20.00" from ", and price lower than 20.00 dollars"; null when the goal has no price clause. */
  price: string | null;
  asin: string;
  name: string;
  query: string;
}

export interface GoalCheck {
  /** match; price-differs (same instruction, other price clause); mismatch; unchecked (no vendored goal); off. */
  status: 'match' | 'price-differs' | 'mismatch' | 'unchecked' | 'off';
  site?: { instruction: string; price: string | null };
  expected?: { instruction: string; price: string | null };
}

const PRICE_CLAUSE = /, and price lower than (\d+\.\d\d) dollars$/;

/** goal.py's instruction_text = instruction.strip('.') + price_text, split back into its two parts. */
export function splitPriceClause(text: string): { instruction: string; price: string | null } {
  const m = PRICE_CLAUSE.exec(text);
  return m ? { instruction: text.slice(0, m.index), price: m[1] } : { instruction: text, price: null };
}

// The fixture's "task" is the start page's instruction followed by its search button as ExpeL wrote it.
const TASK_SUFFIX = ' \n[Search]\n';

interface RawGoal {
  task: string;
  session_idx: string;
  key: { asin: string; name: string; query: string };
}

/** Parses the vendored fixture (exported for tests). */
export function parseGoals(raw: unknown, file = GOALS_FILE): ExpectedGoal[] {
  if (!Array.isArray(raw)) throw new UserError(`${file}: expected a JSON list of sessions`);
  return raw.map((g: RawGoal, i) => {
    if (!g || typeof g.task !== 'string' || !g.task.endsWith(TASK_SUFFIX) || g.session_idx !== `fixed_${i}` || !g.key) {
      throw new UserError(
        `${file}: entry ${i}: expected {"task": "<instruction> \\n[Search]\\n", "session_idx": "fixed_${i}", "key": {...}}`,
      );
    }
    const { instruction, price } = splitPriceClause(g.task.slice(0, -TASK_SUFFIX.length));
    return { session: g.session_idx, instruction, price, asin: g.key.asin, name: g.key.name, query: g.key.query };
  });
}

let cached: ExpectedGoal[] | undefined;

/** fixed_0..fixed_99's goals, read once from the vendored file. */
export function expectedGoals(): ExpectedGoal[] {
  if (!cached) {
    const text = fs.readFileSync(path.join(repoRoot, GOALS_FILE), 'utf8');
    cached = parseGoals(JSON.parse(text));
  }
  return cached;
}

export function checkGoal(siteInstruction: string, expected: ExpectedGoal | undefined, mode: GoalsMode): GoalCheck {
  if (mode === 'off') return { status: 'off' };
  const site = splitPriceClause(siteInstruction);
  if (!expected) return { status: 'unchecked', site };
  const exp = { instruction: expected.instruction, price: expected.price };
  if (site.instruction !== exp.instruction) return { status: 'mismatch', site, expected: exp };
  if (site.price !== exp.price) return { status: 'price-differs', site, expected: exp };
  return { status: 'match', site, expected: exp };
}

export interface GoalTally {
  checked: number;
  instructionMatched: number;
  priceMatched: number;
  mismatched: string[];
}

const GOAL_STATUSES: readonly GoalCheck['status'][] = ['match', 'price-differs', 'mismatch', 'unchecked', 'off'];

/** A record's goal_check (the loop records the environment's check at reset), or undefined when it has none. */
export function goalCheckOf(rec: unknown): GoalCheck | undefined {
  const g = JsonFields.orEmpty(rec).obj('goal_check');
  const status = GOAL_STATUSES.find((x) => x === g?.str('status'));
  if (!g || !status) return undefined;
  const part = (key: string) => {
    const p = g.obj(key);
    const instruction = p?.str('instruction');
    return p && instruction !== undefined ? { instruction, price: p.str('price') ?? null } : undefined;
  };
  const site = part('site');
  const expected = part('expected');
  return { status, ...(site ? { site } : {}), ...(expected ? { expected } : {}) };
}

/** Counts of goal checks (records' goal_check, or a pre-run check). */
export function tallyGoals(checks: { session: string; check: GoalCheck | undefined }[]): GoalTally {
  const t: GoalTally = { checked: 0, instructionMatched: 0, priceMatched: 0, mismatched: [] };
  for (const { session, check } of checks) {
    if (!check || check.status === 'unchecked' || check.status === 'off') continue;
    t.checked++;
    if (check.status === 'mismatch') t.mismatched.push(session);
    else {
      t.instructionMatched++;
      if (check.status === 'match') t.priceMatched++;
    }
  }
  return t;
}

export function describeTally(t: GoalTally): string {
  if (t.checked === 0) return 'WebShop goals: no session with a vendored goal was checked (only fixed_0..fixed_99 have one)';
  const miss = t.mismatched.length ? `; differing: ${t.mismatched.slice(0, 5).join(', ')}${t.mismatched.length > 5 ? ', ...' : ''}` : '';
  return (
    `WebShop goals: ${t.instructionMatched} of ${t.checked} checked sessions show the paper's instruction, ` +
    `${t.priceMatched} of them with the vendored price clause (drawn at server start)${miss}`
  );
}
