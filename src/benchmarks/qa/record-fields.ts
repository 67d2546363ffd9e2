// The QA methods' own fields of an episode record, read back by the combinations (docs/protocol.md §5)
// and the CoT-SC sweeps: CoT-SC's samples and ReAct's forced_finish. Narrowed here, once, from the
// record's extras (src/runlog/schema.ts EpisodeRecord), instead of cast where they are used.
import { CONTEXT_EXCEEDED } from '../../llm/context-limit.js';
import { JsonFields } from '../../util/json-fields.js';

export interface QaRecordFields {
  /**
   * CoT-SC: each sample's answer (null for a sample that gave none); none at all ([]) for an episode
   * whose prompt outgrew the context window: a scored outcome (README "Model limits"), no vote cast.
   */
  samples?: (string | null)[];
  /** ReAct: the step limit ran out and finish[] was forced (the notebook's forced finish). */
  forcedFinish?: boolean;
}

/** The QA fields of a record (or of a stored episode's extras); absent fields stay undefined. */
export function qaRecordFields(extra: unknown): QaRecordFields {
  const f = JsonFields.orEmpty(extra);
  const samples = f.arr('samples')?.map((s) => (typeof s === 'string' ? s : null));
  return {
    samples: samples ?? (f.str('outcome') === CONTEXT_EXCEEDED ? [] : undefined),
    forcedFinish: f.bool('forced_finish'),
  };
}
