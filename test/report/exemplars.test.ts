// --exemplars K (the exemplar ablation): the released prompt cut on its exemplar boundaries. K = all
// is the released prompt byte for byte (and the same run); K < all keeps the first K exemplars whole
// and is recorded in the manifest's method description as a deviation.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  buildMethodPrompt,
  firstExemplars,
  loadPromptLibrary,
  promptText,
  splitExemplars,
  withExemplars,
} from '../../src/benchmarks/qa/methods/prompts.js';
import { qaTask } from '../../src/benchmarks/qa/task-specs.js';
import { createMethod } from '../../src/benchmarks/qa/methods/index.js';
import { resolveMethodOptions } from '../../src/benchmarks/qa/methods/options.js';
import { UserError } from '../../src/errors.js';
import { repo } from '../run/cli-helpers.js';
import type { TaskName } from '../../src/benchmarks/qa/types.js';

const lib = loadPromptLibrary();
const METHODS = ['react', 'act', 'standard', 'cot', 'cot-sc'] as const;
const COUNT: Record<TaskName, number> = { hotpotqa: 6, fever: 3 };

describe('splitting the released prompts on their exemplar boundaries', () => {
  it('every exemplar text splits into its 6 (HotpotQA) or 3 (FEVER) exemplars and joins back byte for byte', () => {
    for (const m of METHODS) {
      for (const task of ['hotpotqa', 'fever'] as TaskName[]) {
        const [file, key] = qaTask(task).exemplars[m];
        const text = promptText(lib, file, key);
        const { prefix, exemplars } = splitExemplars(text, qaTask(task).label);
        expect(exemplars, `${file}#${key}`).toHaveLength(COUNT[task]);
        expect(prefix + exemplars.join('')).toBe(text);
        for (const e of exemplars) expect(e.startsWith(`${qaTask(task).label}: `)).toBe(true);
        expect(firstExemplars(text, qaTask(task).label, COUNT[task], key)).toBe(text);
      }
    }
  });

  it('K < all keeps the first K exemplars whole: the prompt ends where exemplar K+1 began', () => {
    const text = JSON.parse(fs.readFileSync(path.join(repo, 'prompts/prompts_naive.json'), 'utf8')).webthink_simple6 as string;
    const two = firstExemplars(text, 'Question', 2, 'webthink_simple6');
    expect(text.startsWith(two)).toBe(true);
    expect(text.slice(two.length).startsWith('Question: ')).toBe(true);
    expect(two.match(/^Question: /gm)).toHaveLength(2);
    expect(() => firstExemplars(text, 'Question', 7, 'prompts_naive.json#webthink_simple6')).toThrow(UserError);
    expect(() => firstExemplars(text, 'Question', 7, 'prompts_naive.json#webthink_simple6')).toThrow(
      '--exemplars: expected 1 to 6 (prompts_naive.json#webthink_simple6 has 6 exemplars), got 7',
    );
    expect(() => resolveMethodOptions({ exemplars: 0 })).toThrow(
      '--exemplars: expected a positive integer (the first K exemplars of the prompt), got 0',
    );
  });

  it('K = all is the released prompt and the same method description (the same run id); K < all says so in the manifest', () => {
    for (const task of ['hotpotqa', 'fever'] as TaskName[]) {
      const released = buildMethodPrompt(lib, 'react', task);
      expect(buildMethodPrompt(withExemplars(lib, COUNT[task]), 'react', task)).toEqual(released);
    }
    const task = { name: 'hotpotqa' as const, observationLabel: 'Question' as const };
    const all = createMethod('react', task).describe();
    expect(createMethod('react', task, { exemplars: 6 }).describe()).toEqual(all);
    const three = createMethod('react', task, { exemplars: 3 }).describe() as {
      prompts: { hotpotqa: { headSha256: string; parts: { source: string; deviation?: string }[] } };
    };
    expect(three.prompts.hotpotqa.headSha256).not.toBe((all as typeof three).prompts.hotpotqa.headSha256);
    expect(three.prompts.hotpotqa.parts[1]).toMatchObject({
      source: 'prompts_naive.json#webthink_simple6',
      deviation: 'first 3 of the 6 exemplars (--exemplars 3); the paper uses all 6',
    });
    const cot = createMethod('cot', task, { exemplars: 1 }).describe() as typeof three;
    expect(cot.prompts.hotpotqa.parts.find((p) => p.deviation)!.source).toBe('prompts_naive.json#cotqa_simple6');
    expect(() => createMethod('react', { name: 'fever', observationLabel: 'Claim' }, { exemplars: 4 })).toThrow(
      /--exemplars: expected 1 to 3 \(fever\.json#webthink_simple3 has 3 exemplars\), got 4/,
    );
  });
});
