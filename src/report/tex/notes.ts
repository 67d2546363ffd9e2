// A table's or figure's notes follow it as a \footnotesize block inside the float (README "Reports";
// plain LaTeX: no threeparttable needed).
import { texWithCode } from './escape.js';

export function texNotes(notes: readonly string[]): string | null {
  const paras = notes
    .map((n) => n.trim())
    .filter(Boolean)
    .map((n) => texWithCode(/[.!?)`]$/.test(n) ? n : `${n}.`));
  if (!paras.length) return null;
  return ['\\par\\smallskip', '{\\footnotesize\\raggedright', ...paras.map((p) => `${p}\\par`), '}'].join('\n');
}
