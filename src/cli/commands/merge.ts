// `react-repro merge <dirs...> --out <dir>`: shard runs into one run.
import path from 'node:path';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { mergeRuns, type MergeResult } from '../../run/merge.js';
import type { RecordingLack } from '../../run/merge-dedupe.js';
import type { RunResult } from '../../run/run-result.js';
import { readManifest } from '../../runlog/store.js';
import { scoresText } from '../scores.js';
import { UserError } from '../../errors.js';
import { checkWritableDir } from '../../util/safe-path.js';
import { forTerminal } from '../../util/terminal-text.js';
import { examplesEpilog, listPositional } from '../yargs-options.js';

/** --out, or --results-dir (then the run id names the folder: mergeRuns resolves it). */
function mergeOut(out: unknown, resultsDir: unknown): string | { resultsDir: string } {
  if ((out === undefined) === (resultsDir === undefined))
    throw new UserError('merge: give --out FOLDER or --results-dir DIR (one of them)');
  return out !== undefined ? String(out) : { resultsDir: String(resultsDir) };
}

/**
 * What gives a merged run its recording: a cut or missing copy is copied again, but no copy holds an
 * episode run before recordings existed (merge-dedupe.ts RecordingLack); only a re-run records it.
 */
const recordingAdvice: Record<RecordingLack, string> = {
  cut: 'copy that file whole and merge again',
  unrecorded:
    'copying it again will not help: to bundle the merged run, re-run that shard into a new --results-dir and merge with that folder in its place',
  either:
    "if the shard's own folder holds more of that file, copy it whole and merge again; if not (the shard ran before recordings existed), re-run that shard into a new --results-dir and merge with that folder in its place",
};

/**
 * A merged run with error episodes ends as `run` ends one: their causes, the command that retries them
 * and run's exit status for it, so a script's `merge … || exit 1` notices.
 */
async function closeWithErrors(r: MergeResult): Promise<void> {
  // Loaded only here: a merge without error episodes does not load the run machinery.
  const [{ closingLines, exitCodeOf }, { errorCauses }] = await Promise.all([import('./run.js'), import('../../run/run-result.js')]);
  // `run --resume` finds a run by its id as the folder's name: an --out folder named otherwise is renamed first.
  const resumable = path.join(path.dirname(r.dir), r.runId);
  const result: RunResult = {
    runId: r.runId,
    dir: resumable,
    status: 'complete',
    summary: r.summary,
    errorCauses: errorCauses(r.errorRecords),
  };
  const lines = closingLines([result]);
  if (resumable !== r.dir)
    lines.splice(-1, 0, `${r.dir} is not named after the run id: rename it to ${resumable} (merge --results-dir names it so), then`);
  // error messages are server text: no control sequence reaches the terminal
  for (const l of lines) process.stderr.write(`react-repro: ${forTerminal(l, { oneLine: true })}\n`);
  process.exitCode = exitCodeOf([result]);
}

export const mergeCommand: CommandModule = {
  command: 'merge <dirs..>',
  describe: 'Merge the shard runs (--shard K/N) of one configuration into one run folder',
  builder: (y: Argv) =>
    y
      .positional('dirs', listPositional('Shard run folders'))
      .option('out', { type: 'string', describe: 'Folder for the merged run (new or empty)' })
      .option('results-dir', {
        type: 'string',
        describe:
          'Write the merged run to <results-dir>/<run id> instead of --out: `run --resume <run id> --results-dir <results-dir>` then resumes it',
      })
      .epilog(examplesEpilog([['$0 merge results/*-s1of2-* results/*-s2of2-* --out results/merged', 'merge two shards']]))
      .epilog(
        '\nExit status: 0 merged; 2 bad input, a shard still running, or the folder holds the merged run resumed since it was merged; 3 merged, with error episodes (the printed command re-runs them)',
      ),
  handler: async (argv: ArgumentsCamelCase) => {
    // checked first: a pseudo-filesystem or read-only folder is one line before any run is read
    const out = mergeOut(argv.out, argv.resultsDir);
    checkWritableDir(typeof out === 'string' ? out : out.resultsDir, typeof out === 'string' ? 'merge --out' : 'merge --results-dir');
    const r = mergeRuns((argv.dirs as string[]).map(String), out);
    const s = r.summary;
    if (r.overlapping > 0)
      process.stderr.write(
        `merge: ${r.overlapping} overlapping episode record${r.overlapping === 1 ? '' : 's'} dropped (per item, the latest valid record kept)\n`,
      );
    if (r.remerged)
      process.stderr.write(
        `merge: ${forTerminal(r.dir, { oneLine: true })} already held this merged run, not run since: merged again (nothing lost)\n`,
      );
    // Said now, not first at `bundle` time, when the shards' folders may be gone.
    if (r.recordingLacking)
      process.stderr.write(
        `merge: ${forTerminal(r.recordingLacking, { oneLine: true })}: the merged run carries no recording.jsonl, so \`bundle\` cannot pack it; ${recordingAdvice[r.recordingCause ?? 'cut']}\n`,
      );
    process.stdout.write(
      `${r.runId}: merged ${s.n_done}/${s.n_planned} episodes, ${scoresText(s, readManifest(r.dir).metrics)}, errors ${s.n_errors} -> ${r.dir}\n`,
    );
    if (r.errorRecords.length > 0) await closeWithErrors(r);
  },
};
