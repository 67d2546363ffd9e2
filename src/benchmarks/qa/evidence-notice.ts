// The one-line notice a QA run prints before it starts when its task's evidence rule
// (QaTaskSpec.evidenceGap) finds that the Wikipedia it searches lacks its items' evidence; Table 1 puts
// the same gap under the column (README "Reliability").
import type { EvidenceGap } from './evidence-gap.js';

export function evidenceNotice(title: string, split: string, gap: EvidenceGap): string {
  return `notice: ${title} ${split} on ${gap.wikipedia}: ${gap.coverage}, so its scores do not measure the paper's task; use ${gap.remedy}`;
}
