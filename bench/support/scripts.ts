// Scripted model answers for the benchmarks' test servers (imported by the server's child process).
import type { ServerCompletionRequest } from '../../test/servers/openai-server.js';

/** Always the same first ReAct step: for measuring the client, not the episode. */
export function searchX(): string {
  return ' I need to search X.\nAction 1: Search[X]\nObservation 1: ...';
}

/** A 3-step ReAct episode (search the question's first words, look up "the", finish) for the runner bench. */
export function reactEpisode(req: Pick<ServerCompletionRequest, 'prompt'>): string {
  const p = req.prompt;
  const q = /Question: ([^\n]*)\n(?![\s\S]*Question: )/.exec(p)?.[1] ?? 'Wikipedia';
  const m = /Thought (\d+):$/.exec(p) ?? /Action (\d+):$/.exec(p);
  const i = m ? Number(m[1]) : 1;
  const entity = q.replace(/[?"]/g, '').split(' ').slice(0, 4).join(' ');
  if (i === 1) return ` I need to search ${entity}.\nAction 1: Search[${entity}]\nObservation 1: x`;
  if (i === 2) return ` Let me look up the.\nAction 2: Lookup[the]\nObservation 2: x`;
  return ` So the answer is yes.\nAction ${i}: Finish[yes]\nObservation ${i}: x`;
}

/**
 * A 3-step ReAct episode whose search finds an article of the Wikipedia stand-in (test/servers/wiki-server.ts,
 * whose other titles include deliberately hostile ones that make the released clean_str raise): search an
 * article, look up a word in it, finish.
 */
export function reactEpisodeWiki(req: Pick<ServerCompletionRequest, 'prompt'>): string {
  const m = /Thought (\d+):$/.exec(req.prompt) ?? /Action (\d+):$/.exec(req.prompt);
  const i = m ? Number(m[1]) : 1;
  if (i === 1) return ` I need to search Colorado orogeny.\nAction 1: Search[Colorado orogeny]\nObservation 1: x`;
  if (i === 2) return ` Let me look up the.\nAction 2: Lookup[the]\nObservation 2: x`;
  return ` So the answer is yes.\nAction ${i}: Finish[yes]\nObservation ${i}: x`;
}
