// --env-deadline and --env-max-bytes: the total time and the size of one environment answer, for every
// benchmark's server (src/envs/http/request.ts holds the defaults and enforces them). Passing either is
// that episode's environment error, never an observation.
import { UserError } from '../errors.js';
import type { OptionTable, Settings } from '../options.js';
import { DEFAULT_RESPONSE_LIMITS, setResponseLimits } from '../envs/http/request.js';
import { JsonFields } from '../util/json-fields.js';

export const responseLimitOptions: OptionTable = {
  'env-deadline': {
    operational: true,
    type: 'number',
    describe: `Total seconds one environment answer may take, however the server trickles it (the per-benchmark timeouts measure silence) [default: ${DEFAULT_RESPONSE_LIMITS.deadlineMs / 1000}]`,
  },
  'env-max-bytes': {
    operational: true,
    type: 'number',
    describe: `Largest environment answer accepted, bytes; a larger one is that episode's environment error [default: ${DEFAULT_RESPONSE_LIMITS.maxBytes} (32 MB)]`,
  },
};

const MAX_DEADLINE_S = 24 * 3600;
const MAX_BYTES = 1024 * 1024 * 1024;

function positive(v: unknown, flag: string, min: number, max: number, integer: boolean): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
    throw new UserError(`--${flag}: expected ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}, got ${JSON.stringify(v)}`);
  }
  return n;
}

/** The limits the two settings give (only those given), checked. */
export interface ResponseLimits {
  deadlineMs?: number;
  maxBytes?: number;
}

export function parseResponseLimits(settings: Settings): ResponseLimits {
  const f = JsonFields.orEmpty(settings);
  const deadline = positive(f.get('envDeadline'), 'env-deadline', 0.001, MAX_DEADLINE_S, false);
  const maxBytes = positive(f.get('envMaxBytes'), 'env-max-bytes', 1024, MAX_BYTES, true);
  return {
    ...(deadline !== undefined ? { deadlineMs: Math.round(deadline * 1000) } : {}),
    ...(maxBytes !== undefined ? { maxBytes } : {}),
  };
}

/** Makes them the limits of every later environment request. */
export function applyResponseLimits(limits: ResponseLimits): void {
  setResponseLimits(limits);
}
