// The frozen offline Wikipedia (the default backend): a SQLite database of pages with an FTS5 index.
// search(entity) sees the query the live site would have seen (effectiveSearchTerm), then:
// - an exact title (MediaWiki-like normalisation: "_" → " ", runs of spaces collapsed, trimmed, first
//   letter upper-cased), else a case-insensitive title match → 'page' with the page's paragraphs;
// - otherwise 'similar' with the best 20 titles by BM25 over title and text (title weighted 10×),
//   ties broken by rowid (insertion order). Query tokens are quoted, so punctuation cannot break FTS5.
//   Very frequent tokens are dropped while a rarer one remains (see similarTitles).
// - no match at all → the page MediaWiki shows for a search without hits (offline-pages.ts).
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { SearchOutcome, WikiBackend } from './backend.js';
import { UserError } from '../../errors.js';
import { cacheDir, envsDir } from '../../paths.js';
import { effectiveSearchTerm } from './notebook-url.js';
import { NO_RESULTS_BLOCKS } from './offline-pages.js';
import { pyStrip } from './py-text.js';
import { listSourceFiles, readSourceFile, type SourcePage } from './snapshot-sources.js';

export const SNAPSHOT_FORMAT = 1;
export const SHIPPED_PAGES = path.join(envsDir, 'wikipedia', 'hotpotqa-2017', 'pages.jsonl');

/** MediaWiki-like title normalisation for exact matching. */
export function normalizeTitle(t: string): string {
  const s = t.replace(/[_ ]+/g, ' ').trim();
  if (!s) return s;
  const first = String.fromCodePoint(s.codePointAt(0)!);
  return first.toUpperCase() + s.slice(first.length);
}

/** FTS5 tokens of a query (letters, digits, private use: unicode61's token characters), each quoted. */
export function queryTokens(q: string): string[] {
  const toks = q.toLowerCase().match(/[\p{L}\p{N}\p{Co}]+/gu) ?? [];
  return [...new Set(toks)];
}
const quote = (t: string) => '"' + t.replaceAll('"', '""') + '"';

export async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}

export interface BuildOptions {
  /** Files or directories of dumps (see snapshot-sources.ts). */
  from: string[];
  out: string;
  /** Called every `progressEvery` pages and at the end. */
  onProgress?: (pages: number, done: boolean) => void;
  progressEvery?: number;
  /** Pages per transaction. */
  batch?: number;
  /** FTS5 in-memory term buffer before a segment is written (default 256 MB). */
  hashBytes?: number;
}

export interface BuildResult {
  path: string;
  pages: number;
  seconds: number;
  bytes: number;
  sourceSha256: string;
}

function createSchema(db: Database.Database): void {
  db.exec(`
    CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE pages(id INTEGER PRIMARY KEY, title TEXT NOT NULL, norm TEXT NOT NULL, lower TEXT NOT NULL, paragraphs TEXT NOT NULL);
    CREATE VIRTUAL TABLE pages_fts USING fts5(title, body, content='', tokenize='unicode61 remove_diacritics 2');
  `);
}

/** The sha256 naming the sources: a single file's own sha256, else one over each file's name and sha256. */
async function sourcesSha256(files: string[], roots: string[]): Promise<string> {
  if (files.length === 1) return sha256File(files[0]);
  const h = createHash('sha256');
  for (const f of files) {
    const root = roots.find((r) => f.startsWith(r)) ?? '';
    h.update(`${path.relative(root, f)}\t${await sha256File(f)}\n`);
  }
  return h.digest('hex');
}

/**
 * Builds a snapshot into a temporary file next to `out` and renames it into place, so a concurrent or
 * killed build never leaves a half database where a reader would open it.
 */
export async function buildSnapshot(opts: BuildOptions): Promise<BuildResult> {
  const t0 = process.hrtime.bigint();
  const files = opts.from.flatMap(listSourceFiles);
  const sourceSha256 = await sourcesSha256(files, opts.from);
  mkdirSync(path.dirname(path.resolve(opts.out)), { recursive: true });
  const tmp = `${opts.out}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const db = new Database(tmp);
  let pages = 0;
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -200000');
    createSchema(db);
    // Build-time FTS5 tuning: a large in-memory term buffer (fewer, bigger level-0 segments) and no
    // incremental merging; one 'optimize' at the end merges everything into a single segment.
    const tune = db.prepare(`INSERT INTO pages_fts(pages_fts, rank) VALUES (?, ?)`);
    // (FTS5 only accepts integer values: bind BigInts, JS numbers bind as REAL)
    tune.run('hashsize', BigInt(opts.hashBytes ?? 256 * 1024 * 1024));
    tune.run('automerge', 0n);
    tune.run('crisismerge', 64n);
    const insPage = db.prepare('INSERT INTO pages(id, title, norm, lower, paragraphs) VALUES (?, ?, ?, ?, ?)');
    const insFts = db.prepare('INSERT INTO pages_fts(rowid, title, body) VALUES (?, ?, ?)');
    const flush = db.transaction((rows: SourcePage[]) => {
      for (const r of rows) {
        pages++;
        const norm = normalizeTitle(r.title);
        insPage.run(pages, r.title, norm, norm.toLowerCase(), JSON.stringify(r.paragraphs));
        insFts.run(pages, r.title, r.paragraphs.join('\n'));
      }
    });
    const batchSize = opts.batch ?? 20_000;
    const every = opts.progressEvery ?? 50_000;
    let batch: SourcePage[] = [];
    let nextReport = every;
    for (const f of files) {
      for await (const page of readSourceFile(f)) {
        batch.push(page);
        if (batch.length >= batchSize) {
          flush(batch);
          batch = [];
          if (pages >= nextReport) {
            opts.onProgress?.(pages, false);
            nextReport += every;
          }
        }
      }
    }
    flush(batch);
    db.exec('CREATE INDEX pages_norm ON pages(norm, id); CREATE INDEX pages_lower ON pages(lower, id);');
    db.exec(`INSERT INTO pages_fts(pages_fts) VALUES('optimize');`);
    const meta = db.prepare('INSERT INTO meta(key, value) VALUES (?, ?)');
    meta.run('format', String(SNAPSHOT_FORMAT));
    meta.run('pages', String(pages));
    meta.run('source_sha256', sourceSha256);
    meta.run('sources', JSON.stringify(files.map((f) => path.basename(f))));
    meta.run('built_at', new Date().toISOString());
    db.close();
    renameSync(tmp, opts.out);
  } catch (e) {
    if (db.open) db.close();
    rmSync(tmp, { force: true });
    throw e;
  }
  opts.onProgress?.(pages, true);
  return {
    path: opts.out,
    pages,
    seconds: Number(process.hrtime.bigint() - t0) / 1e9,
    bytes: statSync(opts.out).size,
    sourceSha256,
  };
}

/** The shipped 2017 pages' database in cacheDir()/wiki/, built on first use (keyed by the file's sha256). */
export async function ensureShippedSnapshot(onProgress?: BuildOptions['onProgress']): Promise<string> {
  const sha = await sha256File(SHIPPED_PAGES);
  const out = path.join(cacheDir(), 'wiki', `hotpotqa-2017-${sha.slice(0, 16)}.sqlite`);
  if (!existsSync(out)) await buildSnapshot({ from: [SHIPPED_PAGES], out, onProgress });
  return out;
}

export interface SnapshotInfo {
  path: string;
  pages: number;
  sourceSha256: string;
  sources: string[];
  builtAt: string;
}

export class SnapshotBackend implements WikiBackend {
  readonly kind = 'snapshot';
  private readonly db: Database.Database;
  readonly info: SnapshotInfo;
  private readonly byNorm: Database.Statement;
  private readonly byLower: Database.Statement;
  private readonly df: Database.Statement;
  private readonly ftsSearch: Database.Statement;
  private readonly ftsFirst: Database.Statement;

  /**
   * query 'notebook-url' (default, faithful): search for what the live site read from the notebook's
   * URL ("AT&T" → "AT"); 'verbatim': search for the entity as written.
   */
  constructor(
    readonly dbPath: string,
    readonly opts: { query?: 'notebook-url' | 'verbatim' } = {},
  ) {
    if (!existsSync(dbPath)) throw new UserError(`--wiki-snapshot ${dbPath}: no such file (build one with \`react-repro wiki build\`)`);
    try {
      this.db = new Database(dbPath, { readonly: true, fileMustExist: true });
      const meta = Object.fromEntries((this.db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[]).map((r) => [r.key, r.value]));
      if (Number(meta.format) !== SNAPSHOT_FORMAT) throw new Error(`format ${meta.format}, expected ${SNAPSHOT_FORMAT}`);
      this.info = { path: dbPath, pages: Number(meta.pages), sourceSha256: meta.source_sha256, sources: JSON.parse(meta.sources), builtAt: meta.built_at };
    } catch (e) {
      throw new UserError(`--wiki-snapshot ${dbPath}: not a react-repro Wikipedia snapshot (${(e as Error).message})`);
    }
    this.db.pragma('cache_size = -32000'); // 32 MB page cache keeps serving RSS small
    this.byNorm = this.db.prepare('SELECT title, paragraphs FROM pages WHERE norm = ? ORDER BY id LIMIT 1');
    this.byLower = this.db.prepare('SELECT title, paragraphs FROM pages WHERE lower = ? ORDER BY id LIMIT 1');
    // Document frequency, counted only up to a cap: fts5vocab would read a frequent term's whole doclist.
    this.df = this.db.prepare('SELECT count(*) AS doc FROM (SELECT rowid FROM pages_fts WHERE pages_fts MATCH ? LIMIT ?)');
    this.ftsSearch = this.db.prepare(
      `SELECT p.title FROM (SELECT rowid, bm25(pages_fts, 10.0, 1.0) AS score FROM pages_fts WHERE pages_fts MATCH ? ORDER BY score, rowid LIMIT ?) AS hit
       JOIN pages p ON p.id = hit.rowid ORDER BY hit.score, hit.rowid`,
    );
    this.ftsFirst = this.db.prepare(
      `SELECT p.title FROM (SELECT rowid FROM pages_fts WHERE pages_fts MATCH ? LIMIT ?) AS hit JOIN pages p ON p.id = hit.rowid ORDER BY hit.rowid`,
    );
  }

  /** The page for a term, if a title matches (exact after normalisation, then case-insensitive). */
  lookupTitle(term: string): { title: string; paragraphs: string[] } | undefined {
    const norm = normalizeTitle(term);
    if (!norm) return undefined;
    const row = (this.byNorm.get(norm) ?? this.byLower.get(norm.toLowerCase())) as { title: string; paragraphs: string } | undefined;
    return row ? { title: row.title, paragraphs: JSON.parse(row.paragraphs) } : undefined;
  }

  /**
   * BM25 titles for a term (up to `limit`). Tokens in more than 0.1% of pages (at least 200) carry
   * little weight in BM25 and cost the most, so they are dropped while a rarer token remains; all
   * remaining tokens must match (then any of them). A query made only of such frequent tokens
   * ("the", "at") matches titles holding all of them, in rowid order (no scoring: bounded time).
   */
  similarTitles(term: string, limit = 20): string[] {
    const toks = queryTokens(term);
    if (toks.length === 0) return [];
    const maxDf = Math.max(200, this.info.pages * 0.001);
    const withDf = toks.map((t) => ({ t, df: (this.df.get(quote(t), maxDf + 1) as { doc: number }).doc }));
    if (withDf.every((x) => x.df === 0)) return [];
    const rare = withDf.filter((x) => x.df > 0 && x.df <= maxDf).map((x) => x.t);
    const scored = (q: string) => (this.ftsSearch.all(q, limit) as { title: string }[]).map((r) => r.title);
    if (rare.length > 0) {
      const hits = scored(rare.map(quote).join(' AND '));
      if (hits.length > 0 || rare.length === 1) return hits;
      return scored(rare.map(quote).join(' OR '));
    }
    const present = withDf.filter((x) => x.df > 0).map((x) => x.t);
    // only frequent tokens: titles holding all of them, in rowid order (no scoring, stops at `limit`)
    const titleOnly = `{title} : (${present.map(quote).join(' AND ')})`;
    return (this.ftsFirst.all(titleOnly, limit) as { title: string }[]).map((r) => r.title);
  }

  async search(entity: string): Promise<SearchOutcome> {
    const term = this.opts.query === 'verbatim' ? entity.trim() : effectiveSearchTerm(entity);
    if (!term) return { kind: 'page', blocks: [] };
    const page = this.lookupTitle(term);
    if (page) return { kind: 'page', blocks: page.paragraphs.map(pyStrip), title: page.title };
    const titles = this.similarTitles(term);
    return titles.length ? { kind: 'similar', titles } : { kind: 'page', blocks: [...NO_RESULTS_BLOCKS] };
  }

  describe(): Record<string, unknown> {
    return {
      kind: this.kind,
      path: this.info.path,
      pages: this.info.pages,
      sourceSha256: this.info.sourceSha256,
      sources: this.info.sources,
      ranking: 'exact title, case-insensitive title, then FTS5 bm25(title×10, text) ties by rowid',
      query: this.opts.query === 'verbatim' ? 'verbatim entity' : 'notebook-url: the term the notebook URL makes the site see (AT&T → AT)',
    };
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
