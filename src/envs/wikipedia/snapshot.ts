// The frozen offline Wikipedia (the default backend): a SQLite database of pages with an FTS5 index.
// search(entity) sees the query the live site would have seen (effectiveSearchTerm), then:
// - an exact title (MediaWiki-like normalisation: "_" → " ", runs of spaces collapsed, trimmed, first
//   letter upper-cased), else a case-insensitive title match → 'page' with the page's paragraphs;
// - otherwise 'similar' with the best 20 titles by BM25 over title and text (title weighted 10×),
//   ties broken by rowid (insertion order). Query tokens are quoted, so punctuation cannot break FTS5.
//   Very frequent tokens are dropped while a rarer one remains (see similarTitles).
// - no match at all → the page MediaWiki shows for a search without hits (offline-pages.ts).
// Building a database is snapshot-build.ts, loaded only when one must be built (bench/results-start.md).
import { SqliteUnavailable, openSqlite, type SqliteDatabase, type SqliteStatement } from '../../util/sqlite.js';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { SearchOutcome, WikiBackend } from './backend.js';
import { UserError, errorMessage } from '../../errors.js';
import { cacheDir, envsDir, fileShaMemoFile } from '../../paths.js';
import { rememberedSha256File } from '../../util/file-sha.js';
import { removeStaleTempFiles } from '../../util/durable.js';
import { effectiveSearchTerm } from './notebook-url.js';
import { NO_RESULTS_BLOCKS } from './offline-pages.js';
import { pyStrip } from '../../util/python-str.js';
import type { BuildOptions } from './snapshot-build.js';

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

/**
 * The shipped 2017 pages' database in cacheDir()/wiki/, built on first use. Keyed by the pages file's
 * sha256 and the database format, so a format change rebuilds instead of failing to open an old cache.
 */
export async function ensureShippedSnapshot(onProgress?: BuildOptions['onProgress']): Promise<string> {
  const sha = await rememberedSha256File(SHIPPED_PAGES, fileShaMemoFile());
  const out = path.join(cacheDir(), 'wiki', `hotpotqa-2017-${sha.slice(0, 16)}-f${SNAPSHOT_FORMAT}.sqlite`);
  // also the temp files of killed builds of other versions of the shipped pages (the folder is ours)
  removeStaleTempFiles(path.dirname(out), 'hotpotqa-2017-');
  if (!existsSync(out)) {
    // loaded only now: a run on a database already built needs none of the builder (bench/results-start.md)
    const { buildSnapshot } = await import('./snapshot-build.js');
    await buildSnapshot({ from: [SHIPPED_PAGES], out, onProgress });
  }
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
  private readonly db: SqliteDatabase;
  readonly info: SnapshotInfo;
  // The rows each query returns, declared once with the statement.
  private readonly byNorm: SqliteStatement<[string], { title: string; paragraphs: string }>;
  private readonly byLower: SqliteStatement<[string], { title: string; paragraphs: string }>;
  private readonly df: SqliteStatement<[string, number], { doc: number }>;
  private readonly ftsSearch: SqliteStatement<[string, number], { title: string }>;
  private readonly ftsFirst: SqliteStatement<[string, number], { title: string }>;

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
      this.db = openSqlite(dbPath, { readonly: true, fileMustExist: true });
      const meta = Object.fromEntries(this.db.prepare<[], { key: string; value: string }>('SELECT key, value FROM meta').all().map((r) => [r.key, r.value]));
      if (Number(meta.format) !== SNAPSHOT_FORMAT) throw new Error(`format ${meta.format}, expected ${SNAPSHOT_FORMAT}`);
      this.info = { path: dbPath, pages: Number(meta.pages), sourceSha256: meta.source_sha256, sources: JSON.parse(meta.sources), builtAt: meta.built_at };
    } catch (e) {
      if (e instanceof SqliteUnavailable) throw e; // SQLite itself missing: said as it is, not as a bad file
      throw new UserError(`--wiki-snapshot ${dbPath}: not a react-repro Wikipedia snapshot (${errorMessage(e)})`);
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
    const row = this.byNorm.get(norm) ?? this.byLower.get(norm.toLowerCase());
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
    const withDf = toks.map((t) => ({ t, df: this.df.get(quote(t), maxDf + 1)!.doc }));
    if (withDf.every((x) => x.df === 0)) return [];
    const rare = withDf.filter((x) => x.df > 0 && x.df <= maxDf).map((x) => x.t);
    const scored = (q: string) => this.ftsSearch.all(q, limit).map((r) => r.title);
    if (rare.length > 0) {
      const hits = scored(rare.map(quote).join(' AND '));
      if (hits.length > 0 || rare.length === 1) return hits;
      return scored(rare.map(quote).join(' OR '));
    }
    const present = withDf.filter((x) => x.df > 0).map((x) => x.t);
    // only frequent tokens: titles holding all of them, in rowid order (no scoring, stops at `limit`)
    const titleOnly = `{title} : (${present.map(quote).join(' AND ')})`;
    return this.ftsFirst.all(titleOnly, limit).map((r) => r.title);
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

  /** The pages (by their sources' sha256) and how they are searched; not where the database file is. */
  identity(): Record<string, unknown> {
    const { path: _path, ...rest } = this.describe();
    return rest;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
