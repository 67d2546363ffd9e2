// HotpotQA/FEVER's Table 2 hook on crafted episodes: the automatic tags a trajectory shows by itself,
// what counts as correct (EM, as the paper judged), the paper's categories, and that both QA
// benchmarks declare it while the core finds it only through the Benchmark interface.
import { describe, expect, it } from 'vitest';
import type { AnalysedEpisode } from '../../../src/benchmarks/types.js';
import {
  QA_CATEGORIES,
  QA_TAGS,
  qaAutoTags,
  qaCategoriesOf,
  qaErrorAnalysis,
  qaIsCorrect,
} from '../../../src/benchmarks/qa/report/error-analysis.js';
import { createHotpotQABenchmark } from '../../../src/benchmarks/hotpotqa/index.js';
import { createFeverBenchmark } from '../../../src/benchmarks/fever/index.js';
import { loadAnchors } from '../../../src/report/anchors.js';

const ep = (over: Partial<AnalysedEpisode>): AnalysedEpisode => ({ idx: 0, metrics: { em: 0, f1: 0 }, steps: [], ...over });
const step = (action: string, observation: string) => ({ action, observation });

describe('qaAutoTags', () => {
  it('search found nothing useful: every search observed "Could not find"', () => {
    const r = ep({
      steps: [
        step('search[Colorado orogeny eastern sector]', "Could not find Colorado orogeny eastern sector. Similar: ['Colorado orogeny']."),
        step('lookup[eastern]', 'No more results.\n'),
        step('search[High Plains elevation]', 'Could not find High Plains elevation. Similar: [].'),
        step('finish[unknown]', 'Episode finished, reward = 0\n'),
      ],
    });
    expect(qaAutoTags(r)).toEqual(['search-not-found']);
    // One useful search is enough to clear it; no search at all never sets it.
    expect(qaAutoTags(ep({ steps: [step('search[A]', 'Could not find A.'), step('search[B]', 'B is a letter.')] }))).toEqual([]);
    expect(qaAutoTags(ep({ steps: [step('finish[yes]', 'Episode finished, reward = 0\n')] }))).toEqual([]);
  });

  it('repeated identical actions: twice in a row or three times in all', () => {
    expect(qaAutoTags(ep({ steps: [step('search[X]', 'x'), step('Search[X] ', 'x')] }))).toEqual(['repeated-action']);
    expect(
      qaAutoTags(
        ep({
          steps: [step('lookup[a]', 'a'), step('lookup[b]', 'b'), step('lookup[a]', 'a'), step('lookup[c]', 'c'), step('lookup[a]', 'a')],
        }),
      ),
    ).toEqual(['repeated-action']);
    expect(qaAutoTags(ep({ steps: [step('lookup[a]', 'a'), step('lookup[b]', 'b'), step('lookup[a]', 'a')] }))).toEqual([]);
  });

  it('no answer within the step limit, and label ambiguity (F1 > 0, EM 0)', () => {
    expect(qaAutoTags(ep({ forced_finish: true }))).toEqual(['step-limit']);
    expect(qaAutoTags(ep({ forced_finish: false }))).toEqual([]);
    expect(qaAutoTags(ep({ metrics: { em: 0, f1: 0.5 } }))).toEqual(['label-ambiguity']);
    expect(qaAutoTags(ep({ metrics: { em: 1, f1: 1 } }))).toEqual([]);
    const all = ep({
      metrics: { em: 0, f1: 0.4 },
      forced_finish: true,
      steps: [step('search[A]', 'Could not find A.'), step('search[A]', 'Could not find A.')],
    });
    expect(qaAutoTags(all)).toEqual(['search-not-found', 'repeated-action', 'step-limit', 'label-ambiguity']);
    // Every tag it can give is declared, in table order.
    expect(QA_TAGS.map((t) => t.key)).toEqual(['search-not-found', 'repeated-action', 'step-limit', 'label-ambiguity']);
  });
});

describe('qaErrorAnalysis', () => {
  it('correct = EM 1 (the paper judged by EM): a partly right answer is incorrect', () => {
    expect(qaIsCorrect(ep({ metrics: { em: 1, f1: 1 } }))).toBe(true);
    expect(qaIsCorrect(ep({ metrics: { em: 0, f1: 0.8 } }))).toBe(false);
    expect(qaIsCorrect(ep({ metrics: {} }))).toBe(false);
  });

  it("the paper's six categories, success_* then failure_*, each with a published share for ReAct on HotpotQA", () => {
    expect(QA_CATEGORIES.map((c) => c.key)).toEqual([
      'success_true_positive',
      'success_false_positive',
      'failure_reasoning_error',
      'failure_search_result_error',
      'failure_hallucination',
      'failure_label_ambiguity',
    ]);
    const anchors = loadAnchors().anchors.filter((a) => a.metric === 'error_share' && a.class === 'A');
    for (const c of QA_CATEGORIES)
      expect(anchors.some((a) => a.benchmark === 'hotpotqa' && a.method === 'react' && a.subset === c.key)).toBe(true);
    expect(qaErrorAnalysis.methods).toEqual(['react', 'cot']);
  });

  it("the categories per method follow the paper's Table 2: a search result error only where the method searches", () => {
    const keys = (m: string) => qaCategoriesOf(m).map((c) => c.key);
    expect(keys('react')).toEqual(QA_CATEGORIES.map((c) => c.key));
    expect(keys('act')).toEqual(QA_CATEGORIES.map((c) => c.key));
    for (const m of ['cot', 'cot-sc', 'standard'])
      expect(keys(m)).toEqual(QA_CATEGORIES.map((c) => c.key).filter((k) => k !== 'failure_search_result_error'));
    // The paper's printed cells (the anchors file): a share for exactly the categories that apply ("—" for the rest).
    const anchors = loadAnchors().anchors.filter((a) => a.metric === 'error_share' && a.class === 'A' && a.benchmark === 'hotpotqa');
    for (const m of qaErrorAnalysis.methods)
      expect(anchors.filter((a) => a.method === m).map((a) => a.subset)).toEqual(expect.arrayContaining(keys(m)));
    for (const m of qaErrorAnalysis.methods)
      expect(keys(m)).toEqual(expect.arrayContaining(anchors.filter((a) => a.method === m).map((a) => a.subset)));
    expect(qaErrorAnalysis.categoriesOf).toBe(qaCategoriesOf);
  });

  it('HotpotQA and FEVER declare it, and what is correct, on their Benchmark', () => {
    expect(createHotpotQABenchmark().errorAnalysis).toBe(qaErrorAnalysis);
    expect(createFeverBenchmark().errorAnalysis).toBe(qaErrorAnalysis);
    expect(createHotpotQABenchmark().isCorrect).toBe(qaIsCorrect);
    expect(createFeverBenchmark().isCorrect).toBe(qaIsCorrect);
  });
});
