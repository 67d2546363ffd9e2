// How reports write the HotpotQA/FEVER methods (Benchmark.methodLabels), and the paper's claims a
// report tests on them (Benchmark.comparisons).

/** The paper's spelling of our methods and combinations, and of the methods of the QA anchors as their sources name them. */
export const QA_METHOD_LABELS: Readonly<Record<string, string>> = {
  standard: 'Standard',
  cot: 'CoT',
  'cot-sc': 'CoT-SC',
  act: 'Act',
  react: 'ReAct',
  'cot-sc-react': 'CoT-SC→ReAct',
  'react-cot-sc': 'ReAct→CoT-SC',
  'supervised-sota': 'Supervised SoTA',
  tot: 'ToT',
  lats: 'LATS',
  reflexion: 'Reflexion',
};

/** The paper's claims worth a test: ReAct against Act and CoT, and each combination against CoT-SC. */
export const QA_COMPARISONS: readonly (readonly [string, string])[] = [
  ['react', 'act'],
  ['react', 'cot'],
  ['cot-sc-react', 'cot-sc'],
  ['react-cot-sc', 'cot-sc'],
];
