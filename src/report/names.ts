// How a report names things: methods as the paper writes them, benchmarks by their registered title,
// a cohort by benchmark, split and model.
import type { CohortInfo } from './model.js';

const METHOD_LABELS: Record<string, string> = {
  standard: 'Standard',
  cot: 'CoT',
  'cot-sc': 'CoT-SC',
  act: 'Act',
  react: 'ReAct',
  'cot-sc-react': 'CoT-SC→ReAct',
  'react-cot-sc': 'ReAct→CoT-SC',
  'react-im': 'ReAct-IM',
  // Methods of published numbers (anchors), as their sources name them.
  'supervised-sota': 'Supervised SoTA',
  butler: 'BUTLER',
  il: 'IL',
  'il-rl': 'IL+RL',
  'human-expert': 'Human expert',
  tot: 'ToT',
  lats: 'LATS',
  reflexion: 'Reflexion',
};

export function methodLabel(method: string): string {
  return METHOD_LABELS[method] ?? method;
}

export type TitleOf = (benchmark: string) => string;

/** "HotpotQA, split offline500, model test-model". */
export function cohortTitle(c: Pick<CohortInfo, 'benchmark' | 'split' | 'model'>, titleOf: TitleOf): string {
  return `${titleOf(c.benchmark)}, split ${c.split}, model ${c.model}`;
}
