// Deterministic run ids: the same resolved configuration always names the same results folder, so
// re-running a command resumes it.
import { sha256 } from '../util/hash.js';

/** JSON with object keys sorted at every level and undefined dropped: equal configs hash equally. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = sortKeys(x);
    }
    return out;
  }
  return v;
}

export function shortHash(value: unknown, length = 8): string {
  return sha256(canonicalJson(value)).slice(0, length);
}

/** Keeps ids filesystem-safe and readable: gpt-3.5-turbo-instruct stays, "org/model:q4" → org_model_q4. */
export function slug(s: string, max = 40): string {
  const cleaned = s.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[_.-]+|_+$/g, '');
  return (cleaned || 'x').slice(0, max);
}

export interface RunIdParts {
  task: string;
  method: string;
  split: string;
  model: string;
  shard?: { k: number; n: number } | null;
  /** A benchmark's setting worth reading in the id (Benchmark.runIdTag, e.g. a non-default prompt set). */
  tag?: string | null;
}

/** `<task>-<method>[-<tag>]-<split>-<model>[-s<K>of<N>]-<shorthash of the identity config>` */
export function makeRunId(parts: RunIdParts, identity: unknown): string {
  const shard = parts.shard ? `-s${parts.shard.k}of${parts.shard.n}` : '';
  const tag = parts.tag ? `${slug(parts.tag, 20)}-` : '';
  return `${runIdPrefix(parts.task, parts.method)}${tag}${slug(parts.split)}-${slug(parts.model)}${shard}-${shortHash(identity)}`;
}

/** How every run id of a task and method begins ("hotpotqa-react-"). */
export function runIdPrefix(task: string, method: string): string {
  return `${task}-${method}-`;
}
