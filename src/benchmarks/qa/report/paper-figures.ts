// The published figures printed beside ours (paper-protocol.md §1).
import type { TaskName } from '../types.js';

export type TableMethod = 'standard' | 'cot' | 'cot-sc' | 'act' | 'react' | 'cot-sc-react' | 'react-cot-sc';

/** Table 1 row order and labels, as in the paper. */
export const TABLE1_METHODS: { method: TableMethod; label: string; tex: string }[] = [
  { method: 'standard', label: 'Standard', tex: 'Standard' },
  { method: 'cot', label: 'CoT', tex: 'CoT' },
  { method: 'cot-sc', label: 'CoT-SC', tex: 'CoT-SC' },
  { method: 'act', label: 'Act', tex: 'Act' },
  { method: 'react', label: 'ReAct', tex: 'ReAct' },
  { method: 'cot-sc-react', label: 'CoT-SC→ReAct', tex: 'CoT-SC $\\rightarrow$ ReAct' },
  { method: 'react-cot-sc', label: 'ReAct→CoT-SC', tex: 'ReAct $\\rightarrow$ CoT-SC' },
];

/** §1 Table 1, PaLM-540B prompting: HotpotQA EM / FEVER accuracy. */
export const PALM_TABLE1: Record<TableMethod, Record<TaskName, number>> = {
  standard: { hotpotqa: 28.7, fever: 57.1 },
  cot: { hotpotqa: 29.4, fever: 56.3 },
  'cot-sc': { hotpotqa: 33.4, fever: 60.4 },
  act: { hotpotqa: 25.7, fever: 58.9 },
  react: { hotpotqa: 27.4, fever: 60.9 },
  'cot-sc-react': { hotpotqa: 34.2, fever: 64.6 },
  'react-cot-sc': { hotpotqa: 35.1, fever: 62.0 },
};

export const SUPERVISED_SOTA: Record<TaskName, number> = { hotpotqa: 67.5, fever: 89.5 };

/**
 * GPT-3 (text-davinci-002) figures exist for ReAct only: HotpotQA 30.8 (Table 5, 500 dev questions;
 * the code's README says 30.4) and FEVER 54 (README).
 */
export const GPT3_FIGURES: Partial<Record<TableMethod, Partial<Record<TaskName, { value: number; source: string }>>>> = {
  react: {
    hotpotqa: { value: 30.8, source: 'Table 5 (README: 30.4)' },
    fever: { value: 54, source: 'README' },
  },
};

export function palmFigure(method: string, task: string): number | undefined {
  return (PALM_TABLE1 as Record<string, Record<string, number>>)[method]?.[task];
}

export function gpt3Figure(method: string, task: string): number | undefined {
  return (GPT3_FIGURES as Record<string, Record<string, { value: number }> | undefined>)[method]?.[task]?.value;
}

export function methodLabel(method: string): string {
  return TABLE1_METHODS.find((m) => m.method === method)?.label ?? method;
}
