// --shard auto and --shard auto/N: the shard of a cluster job-array task, read from the scheduler's
// environment (docs/cluster.md), so a job script needs no arithmetic.
// - Slurm (sbatch --array=A-B): SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_COUNT (and
//   SLURM_ARRAY_TASK_STEP for --array=A-B:S). Task ids need not start at 0: index = (ID - MIN) / STEP,
//   N = COUNT, shard index+1 of N. SLURM_ARRAY_TASK_MAX, when set, must close the range (no gaps).
// - Kubernetes Indexed Job: JOB_COMPLETION_INDEX (0-based) with N = the job's completions, given as
//   --shard auto/N (the pod's environment does not carry it).
import { UserError } from '../errors.js';

export interface AutoShard {
  /** "K/N", as --shard K/N takes it. */
  spec: string;
  /** Which variables gave it, for the run's log line. */
  source: string;
}

function int(env: NodeJS.ProcessEnv, name: string, flag: string): number | undefined {
  const v = env[name];
  if (v === undefined || v === '') return undefined;
  if (!/^\d+$/.test(v.trim())) throw new UserError(`${flag}: ${name}=${JSON.stringify(v)} is not a non-negative integer`);
  return Number(v.trim());
}

/** Whether `text` asks for an automatic shard. */
export function isAutoShard(text: string): boolean {
  return /^\s*auto\s*(\/|$)/.test(text);
}

/** "auto" or "auto/N" resolved from `env`; UserError (one line) when the variables are missing or inconsistent. */
export function resolveAutoShard(text: string, env: NodeJS.ProcessEnv = process.env, flag = '--shard'): AutoShard {
  const m = /^\s*auto\s*(?:\/\s*(\d+)\s*)?$/.exec(text);
  if (!m)
    throw new UserError(
      `${flag}: expected K/N, auto (a Slurm array task) or auto/N (a Kubernetes Indexed Job of N completions), got "${text}"`,
    );
  if (m[1] !== undefined) {
    const n = Number(m[1]);
    if (n < 1) throw new UserError(`${flag} ${text}: N must be at least 1`);
    const idx = int(env, 'JOB_COMPLETION_INDEX', flag);
    if (idx === undefined)
      throw new UserError(
        `${flag} ${text}: JOB_COMPLETION_INDEX is not set (a Kubernetes Indexed Job sets it; in a Slurm array use --shard auto)`,
      );
    if (idx >= n) throw new UserError(`${flag} ${text}: JOB_COMPLETION_INDEX=${idx} is not below N=${n} (give the job's completions as N)`);
    return { spec: `${idx + 1}/${n}`, source: `JOB_COMPLETION_INDEX=${idx} of ${n}` };
  }
  const id = int(env, 'SLURM_ARRAY_TASK_ID', flag);
  if (id === undefined) {
    throw new UserError(
      `${flag} auto: SLURM_ARRAY_TASK_ID is not set (run it in an sbatch --array job, use --shard auto/N in a Kubernetes Indexed Job, or give --shard K/N)`,
    );
  }
  const min = int(env, 'SLURM_ARRAY_TASK_MIN', flag);
  const count = int(env, 'SLURM_ARRAY_TASK_COUNT', flag);
  if (min === undefined || count === undefined) {
    throw new UserError(
      `${flag} auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_${min === undefined ? 'MIN' : 'COUNT'} is not (Slurm sets both for an --array job)`,
    );
  }
  const step = int(env, 'SLURM_ARRAY_TASK_STEP', flag) ?? 1;
  if (count < 1 || step < 1)
    throw new UserError(`${flag} auto: SLURM_ARRAY_TASK_COUNT=${count}, SLURM_ARRAY_TASK_STEP=${step}: expected positive numbers`);
  // A range A-B:S has MAX = MIN + (COUNT - 1) * STEP; an array with gaps (1,3,9) does not, and saying so in
  // every task keeps the tasks whose ids happen to fit from running shards of a plan that cannot be merged.
  const max = int(env, 'SLURM_ARRAY_TASK_MAX', flag);
  if (max !== undefined && max !== min + (count - 1) * step) {
    throw new UserError(
      `${flag} auto: SLURM_ARRAY_TASK_MAX=${max} is not SLURM_ARRAY_TASK_MIN + (COUNT - 1) * STEP = ${min + (count - 1) * step}: the array has gaps (such as 1,5,9) and cannot be a shard: use a range A-B or A-B:S`,
    );
  }
  const off = id - min;
  if (off < 0 || off % step !== 0 || off / step >= count) {
    throw new UserError(
      `${flag} auto: SLURM_ARRAY_TASK_ID=${id} is not one of the ${count} tasks from SLURM_ARRAY_TASK_MIN=${min} by ${step} (an --array with gaps such as 1,5,9 cannot be a shard: use a range A-B)`,
    );
  }
  const idx = off / step;
  return { spec: `${idx + 1}/${count}`, source: `SLURM_ARRAY_TASK_ID=${id}, SLURM_ARRAY_TASK_MIN=${min}, SLURM_ARRAY_TASK_COUNT=${count}` };
}
