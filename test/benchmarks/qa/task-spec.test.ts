// A third Wikipedia-QA task is one registered spec (plus its framings.json section, a data file): its
// prompts, step limit and --task check come from the spec, with no edit to the QA modules.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROMPT_FILES, qaTask, qaTaskNames, registerQaTask } from '../../../src/benchmarks/qa/task-specs.js';
import { scoreHotpotQA } from '../../../src/benchmarks/qa/scoring.js';
import { buildMethodPrompt, loadPromptLibrary, promptText } from '../../../src/benchmarks/qa/methods/prompts.js';
import { resolveMaxSteps, resolveMethodOptions } from '../../../src/benchmarks/qa/methods/options.js';
import { promptsDir } from '../../../src/paths.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qa-spec-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('a third Wikipedia-QA task', () => {
  it('is one spec: prompts, the paper step limit and the --task check follow it', () => {
    registerQaTask({
      name: 'triviaqa-toy',
      title: 'TriviaToy',
      label: 'Question',
      itemsNoun: 'questions',
      paperMaxSteps: 4,
      scoreLabel: 'TriviaToy EM',
      score: scoreHotpotQA,
      exemplars: qaTask('hotpotqa').exemplars,
    });
    expect(qaTaskNames()).toEqual(['hotpotqa', 'fever', 'triviaqa-toy']);
    // Its framings are a section of the prompts' framings.json (data, not code).
    for (const f of fs.readdirSync(promptsDir)) fs.copyFileSync(path.join(promptsDir, f), path.join(tmp, f));
    const framings = JSON.parse(fs.readFileSync(path.join(tmp, PROMPT_FILES.framings), 'utf8')) as {
      framings: Record<string, Record<string, unknown>>;
    };
    for (const fr of Object.values(framings.framings)) fr['triviaqa-toy'] = fr.hotpotqa;
    fs.writeFileSync(path.join(tmp, PROMPT_FILES.framings), JSON.stringify(framings));
    const lib = loadPromptLibrary(tmp);

    const react = buildMethodPrompt(lib, 'react', 'triviaqa-toy');
    // No ReAct instruction declared: the head is the exemplars alone (as FEVER's).
    expect(react.head).toBe(promptText(lib, PROMPT_FILES.naive, 'webthink_simple6'));
    expect(react.parts.map((p) => p.source)).toEqual([`${PROMPT_FILES.naive}#webthink_simple6`]);
    expect(buildMethodPrompt(lib, 'cot', 'triviaqa-toy').head).toBe(buildMethodPrompt(lib, 'cot', 'hotpotqa').head);
    expect(resolveMaxSteps('paper', 'triviaqa-toy')).toBe(4);
    expect(resolveMaxSteps('paper', 'fever')).toBe(5);
    expect(resolveMethodOptions({ task: 'triviaqa-toy' }).task).toBe('triviaqa-toy');
    expect(() => resolveMethodOptions({ task: 'nope' })).toThrow(
      '--task: expected hotpotqa or fever or triviaqa-toy for this method, got nope',
    );
  });
});
