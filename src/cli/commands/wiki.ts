// `react-repro wiki`: try the Wikipedia environment by hand (search, lookup, step), build and inspect
// offline snapshots. Observations are printed exactly as the agent sees them, each followed by one
// newline (or as JSON lines with --json).
import path from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { InfraError, UserError } from '../../errors.js';
import { cacheDir } from '../../paths.js';
import { listPositional, yargsOptions } from '../yargs-options.js';
import {
  WikiEnv,
  wikiBackendFromArgv,
  wikiCliOptions,
  wikiEnvOptionsFromArgv,
  type WikiArgv,
  SnapshotBackend,
  ensureShippedSnapshot,
  SHIPPED_PAGES,
} from '../../envs/wikipedia/index.js';
import { displayStream, forTerminal } from '../../util/terminal-text.js';
import { thousands } from '../../util/numbers.js';
import { statusLine } from '../status-line.js';

type WikiArgs = WikiArgv & { json?: boolean };

// Building the snapshot: the page count redrawn on a terminal, then one line (the only one in a log).
const building = statusLine(displayStream(process.stderr));
const progress = (pages: number, done: boolean) => {
  if (!done) return building.show(`wiki snapshot: ${thousands(pages)} pages`);
  building.clear();
  process.stderr.write(`wiki snapshot: ${thousands(pages)} pages done\n`);
};

/** A search entity or lookup keyword: an empty one searches nothing (the site answers a page of all pages). */
function nonEmpty(v: unknown, what: string): string {
  const s = String(v ?? '');
  if (s.trim() === '')
    throw new UserError(
      `wiki: the ${what} is empty: give a page title${what === 'keyword' ? ' and a keyword' : ''}, e.g. wiki search "Pavel Urysohn"`,
    );
  return s;
}

async function runActions(argv: WikiArgs, actions: string[]): Promise<void> {
  const backend = await wikiBackendFromArgv(argv, { onBuildProgress: progress });
  try {
    const env = new WikiEnv(backend, wikiEnvOptionsFromArgv(argv));
    await env.reset();
    for (const action of actions) {
      const r = await env.step(action);
      if (argv.json) process.stdout.write(JSON.stringify({ action, observation: r.observation, done: r.done, info: r.info }) + '\n');
      else process.stdout.write(forTerminal(r.observation) + '\n');
    }
  } catch (e) {
    // An outage while trying the env by hand: one line, exit 1 (the runner records InfraError per episode).
    if (e instanceof InfraError) throw new UserError(`Wikipedia (${backend.kind}): ${e.message}`, 1);
    throw e;
  } finally {
    await backend.close?.();
  }
}

const withWiki = <T>(y: Argv<T>) =>
  y
    .options(yargsOptions(wikiCliOptions))
    .option('json', { type: 'boolean', default: false, describe: 'Print {action, observation, done, info} JSON lines' });

export const wikiCommand: CommandModule = {
  command: 'wiki <command>',
  describe: 'Use the Wikipedia environment by hand; build and inspect offline snapshots',
  builder: (y) =>
    y
      .command({
        command: 'search <entity>',
        describe: 'Observation of search[<entity>]',
        builder: (yy) => withWiki(yy).positional('entity', { type: 'string', demandOption: true }),
        handler: (a) => runActions(a as WikiArgs, [`search[${nonEmpty(a.entity, 'entity')}]`]),
      })
      .command({
        command: 'lookup <entity> <keyword>',
        describe: 'Observations of search[<entity>] then lookup[<keyword>]',
        builder: (yy) =>
          withWiki(yy)
            .positional('entity', { type: 'string', demandOption: true })
            .positional('keyword', { type: 'string', demandOption: true }),
        handler: (a) => runActions(a as WikiArgs, [`search[${nonEmpty(a.entity, 'entity')}]`, `lookup[${nonEmpty(a.keyword, 'keyword')}]`]),
      })
      .command({
        command: 'step <actions..>',
        describe: 'Observations of a sequence of actions, e.g. wiki step "search[Pavel Urysohn]" "lookup[Moscow]"',
        builder: (yy) => withWiki(yy).positional('actions', listPositional('Actions, each stepped as written', { required: true })),
        handler: (a) => runActions(a as WikiArgs, (a.actions as unknown[]).map(String)),
      })
      .command({
        command: 'build',
        describe: 'Build an offline snapshot (SQLite + FTS5) from page dumps',
        builder: (yy) =>
          yy
            .option('from', {
              type: 'string',
              array: true,
              describe: 'HotpotQA pages.jsonl, a HotpotQA abstracts directory (.bz2) or FEVER wiki-pages (default: the shipped 2017 pages)',
            })
            .option('out', { type: 'string', describe: 'Database file to write (default: under the cache directory)' }),
        handler: async (a) => {
          const from = a.from ?? [SHIPPED_PAGES];
          let out = a.out;
          if (!out && !a.from) {
            out = await ensureShippedSnapshot(progress);
            const b = new SnapshotBackend(out);
            process.stdout.write(`${out}\npages ${b.info.pages}\nsource sha256 ${b.info.sourceSha256}\n`);
            await b.close();
            return;
          }
          out ??= path.join(cacheDir(), 'wiki', `${path.basename(from[0]).replace(/\.[^.]*$/, '') || 'snapshot'}.sqlite`);
          if (path.extname(out) === '') throw new UserError(`--out ${out}: expected a database file name such as wiki.sqlite`);
          // Loaded here: the other wiki subcommands never build (src/envs/wikipedia/snapshot-build.ts).
          const { buildSnapshot } = await import('../../envs/wikipedia/snapshot-build.js');
          const r = await buildSnapshot({ from, out, onProgress: progress });
          process.stdout.write(
            `${r.path}\npages ${r.pages}\nsource sha256 ${r.sourceSha256}\nseconds ${r.seconds.toFixed(1)} (${Math.round(r.pages / r.seconds)} pages/s)\nbytes ${r.bytes}\n`,
          );
        },
      })
      .command({
        command: 'info',
        describe: 'The snapshot in use: path, page count, source sha256',
        builder: (yy) => yy.option('wiki-snapshot', yargsOptions(wikiCliOptions)['wiki-snapshot']),
        handler: async (a) => {
          const p = (a['wiki-snapshot'] as string | undefined) ?? (await ensureShippedSnapshot(progress));
          const b = new SnapshotBackend(p);
          const i = b.info;
          process.stdout.write(
            `path ${i.path}\npages ${i.pages}\nsource sha256 ${i.sourceSha256}\nsources ${i.sources.join(', ')}\nbuilt ${i.builtAt}\n`,
          );
          await b.close();
        },
      })
      .demandCommand(1, 'Name a wiki command: search, lookup, step, build or info.'),
  handler: () => {},
};
