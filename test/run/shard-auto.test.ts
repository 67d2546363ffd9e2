import { describe, expect, it } from 'vitest';
import { isAutoShard, resolveAutoShard } from '../../src/run/shard-auto.js';
import { UserError } from '../../src/errors.js';

const slurm = (id: number, min: number, count: number, step?: number) => ({
  SLURM_ARRAY_TASK_ID: String(id),
  SLURM_ARRAY_TASK_MIN: String(min),
  SLURM_ARRAY_TASK_COUNT: String(count),
  ...(step ? { SLURM_ARRAY_TASK_STEP: String(step) } : {}),
});

describe('--shard auto', () => {
  it('reads a Slurm array task, 0-based or not, stepped or not', () => {
    expect([0, 1, 2].map((id) => resolveAutoShard('auto', slurm(id, 0, 3)).spec)).toEqual(['1/3', '2/3', '3/3']);
    expect([1, 2, 3, 4].map((id) => resolveAutoShard('auto', slurm(id, 1, 4)).spec)).toEqual(['1/4', '2/4', '3/4', '4/4']);
    expect([10, 12, 14].map((id) => resolveAutoShard('auto', slurm(id, 10, 3, 2)).spec)).toEqual(['1/3', '2/3', '3/3']);
  });
  it('reads a Kubernetes Indexed Job index with auto/N', () => {
    expect(resolveAutoShard('auto/3', { JOB_COMPLETION_INDEX: '2' })).toEqual({ spec: '3/3', source: 'JOB_COMPLETION_INDEX=2 of 3' });
    expect(resolveAutoShard('auto/16', { JOB_COMPLETION_INDEX: '0' }).spec).toBe('1/16');
  });
  it('refuses, in one line, missing or inconsistent variables', () => {
    expect(() => resolveAutoShard('auto', {})).toThrow(/--shard auto: SLURM_ARRAY_TASK_ID is not set/);
    expect(() => resolveAutoShard('auto/3', {})).toThrow(/JOB_COMPLETION_INDEX is not set/);
    expect(() => resolveAutoShard('auto/3', { JOB_COMPLETION_INDEX: '3' })).toThrow(/is not below N=3/);
    expect(() => resolveAutoShard('auto', { SLURM_ARRAY_TASK_ID: '2' })).toThrow(/SLURM_ARRAY_TASK_MIN is not/);
    expect(() => resolveAutoShard('auto', slurm(5, 0, 3))).toThrow(/is not one of the 3 tasks/);
    expect(() => resolveAutoShard('auto', { ...slurm(1, 0, 3), SLURM_ARRAY_TASK_ID: 'x' })).toThrow(UserError);
    expect(() => resolveAutoShard('auto/x', {})).toThrow(/expected K\/N, auto/);
  });
  it('refuses every task of an array with gaps, by SLURM_ARRAY_TASK_MAX, not only those whose id falls outside the range', () => {
    // --array=1,3,9: ids 1 and 3 fit "3 tasks from 1 by 1", 9 does not; MAX (9) gives the gaps away in each.
    for (const id of [1, 3, 9])
      expect(() => resolveAutoShard('auto', { ...slurm(id, 1, 3), SLURM_ARRAY_TASK_MAX: '9' })).toThrow(/SLURM_ARRAY_TASK_MAX=9 .*gaps/);
    // A range, stepped or not, states its MAX consistently (--array=1-16:3 has MAX 16).
    expect(resolveAutoShard('auto', { ...slurm(16, 1, 6, 3), SLURM_ARRAY_TASK_MAX: '16' }).spec).toBe('6/6');
    expect(resolveAutoShard('auto', { ...slurm(0, 0, 16), SLURM_ARRAY_TASK_MAX: '15' }).spec).toBe('1/16');
  });
  it('tells auto from K/N', () => {
    expect(isAutoShard('auto')).toBe(true);
    expect(isAutoShard('auto/4')).toBe(true);
    expect(isAutoShard('2/4')).toBe(false);
  });
});
