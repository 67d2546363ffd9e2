// The offline snapshot backend: building from the three dump formats, title matching, BM25 fallback,
// atomic builds, and the shipped 2017 pages answering the paper-style exemplars (§6).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureShippedSnapshot, SHIPPED_PAGES, SNAPSHOT_FORMAT, SnapshotBackend, normalizeTitle, queryTokens } from '../../../src/envs/wikipedia/snapshot.js';
import { buildSnapshot } from '../../../src/envs/wikipedia/snapshot-build.js';
import { WikiEnv } from '../../../src/envs/wikipedia/wiki-env.js';
import { createWikiBackend } from '../../../src/envs/wikipedia/index.js';
import { UserError } from '../../../src/errors.js';
import { feverTitle } from '../../../src/envs/wikipedia/snapshot-sources.js';

// One cache for every test file and run: the shipped snapshot is built once (atomically) and reused.
process.env.REACT_REPRO_CACHE_DIR = path.join(os.tmpdir(), 'react-repro-test-cache');
const DUMPS = path.join(__dirname, '../../fixtures/wikipedia/dumps');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'wiki-snap-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('building from dumps', () => {
  let b: SnapshotBackend;
  beforeAll(async () => {
    const r = await buildSnapshot({ from: [path.join(DUMPS, 'abstracts'), path.join(DUMPS, 'fever')], out: path.join(tmp, 'small.sqlite') });
    expect(r.pages).toBe(5);
    b = new SnapshotBackend(r.path);
  });
  afterAll(async () => b.close());

  it('reads HotpotQA .bz2 abstracts (links stripped, paragraphs kept) and FEVER pages (ids converted)', () => {
    expect(b.lookupTitle('Colorado orogeny')).toEqual({
      title: 'Colorado orogeny',
      paragraphs: [
        'The Colorado orogeny was an episode of mountain building (an orogeny) in Colorado and surrounding areas.',
        'This took place from 1780 to 1650 million years ago. The eastern sector extends into the High Plains.',
      ],
    });
    expect(b.lookupTitle('AT&T')?.title).toBe('AT&T');
    expect(b.lookupTitle('Beautiful (Christina Aguilera song)')?.paragraphs).toEqual([
      "`` Beautiful '' is a song recorded by American singer Christina Aguilera .",
    ]);
    expect(b.lookupTitle('Nikolaj Coster-Waldau')?.paragraphs[0]).toContain('( born 27 July 1970 )');
    expect(feverTitle('Foo_-LSB-bar-RSB-_-COLON-_x')).toBe('Foo [bar] : x');
  });

  it('matches titles like MediaWiki: underscores, first letter, then case-insensitively', () => {
    expect(normalizeTitle('  high_plains__(United States) ')).toBe('High plains (United States)');
    expect(b.lookupTitle('high_Plains_(United_States)')?.title).toBe('High Plains (United States)');
    expect(b.lookupTitle('COLORADO OROGENY')?.title).toBe('Colorado orogeny');
  });

  it('answers misses with BM25 titles (title weighted), deterministic, and never crashes FTS5', async () => {
    expect(await b.search('eastern sector plains')).toEqual({ kind: 'similar', titles: ['Colorado orogeny'] });
    const o = await b.search('Great Plains subregion');
    expect(o).toEqual({ kind: 'similar', titles: ['High Plains (United States)'] });
    // "plains" is in two pages; the one with it in the title ranks first
    expect(await b.search('plains')).toEqual({ kind: 'similar', titles: ['High Plains (United States)', 'Colorado orogeny'] });
    for (const q of ['', '#', '!!!', '"', 'AND', 'OR NOT', '*', '^x', 'a:b', '(', 'NEAR(a b)', '""""']) {
      expect(['page', 'similar']).toContain((await b.search(q)).kind);
    }
    expect(queryTokens('NEAR(a "b") c*')).toEqual(['near', 'a', 'b', 'c']);
  });

  it('sees the query the live site would see: "AT&T" searches "AT", "#" searches ""', async () => {
    expect(await b.search('#')).toEqual({ kind: 'page', blocks: [] });
    expect(await b.search('zzzz')).toEqual({ kind: 'page', blocks: ['There were no results matching the query.'] });
    const env = new WikiEnv(b);
    await env.reset();
    expect((await env.step('search[zzzz]')).observation).toBe('There were no results matching the query..');
  });

  it('a malformed line is a UserError naming file and line, and leaves no database behind', async () => {
    const out = path.join(tmp, 'bad.sqlite');
    const err = await buildSnapshot({ from: [path.join(DUMPS, 'bad.jsonl')], out }).catch((e) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(err.message).toMatch(/bad\.jsonl:2: not a JSON line/);
    expect(readdirSync(tmp).filter((f) => f.startsWith('bad.sqlite'))).toEqual([]);
  });

  it('refuses files that are not snapshots', () => {
    expect(() => new SnapshotBackend(path.join(tmp, 'nope.sqlite'))).toThrow(UserError);
    expect(() => new SnapshotBackend(SHIPPED_PAGES)).toThrow(/not a react-repro Wikipedia snapshot/);
  });
});

describe('the shipped 2017 snapshot', () => {
  let dbPath: string;
  let backend: SnapshotBackend;
  beforeAll(async () => {
    dbPath = await ensureShippedSnapshot();
    backend = new SnapshotBackend(dbPath);
  });
  afterAll(async () => backend.close());

  it('is built once into the cache, keyed by the pages file sha256', async () => {
    const sha = createHash('sha256').update(readFileSync(SHIPPED_PAGES)).digest('hex');
    expect(path.basename(dbPath)).toBe(`hotpotqa-2017-${sha.slice(0, 16)}-f${SNAPSHOT_FORMAT}.sqlite`);
    const mtime = statSync(dbPath).mtimeMs;
    expect(await ensureShippedSnapshot()).toBe(dbPath);
    expect(statSync(dbPath).mtimeMs).toBe(mtime);
    expect(backend.describe()).toMatchObject({ kind: 'snapshot', pages: 21897, sourceSha256: sha });
  });

  it('gives the released logic\'s observations on exemplar entities (CPython fixtures)', async () => {
    const episodes: { action: string; obs: string }[][] = JSON.parse(
      readFileSync(path.join(__dirname, '../../fixtures/wikipedia/shipped_snapshot.json'), 'utf8'),
    );
    for (const ep of episodes) {
      const env = new WikiEnv(backend);
      await env.reset();
      for (const s of ep) expect((await env.step(s.action)).observation, s.action).toBe(s.obs);
    }
  });

  it('answers a miss deterministically, through createWikiBackend too', async () => {
    const env1 = new WikiEnv(backend);
    const env2 = new WikiEnv(await createWikiBackend('snapshot'));
    await env1.reset();
    await env2.reset();
    const a = await env1.step('search[Colorado orogeny]');
    const b = await env2.step('search[Colorado orogeny]');
    expect(a.observation).toMatch(/^Could not find Colorado orogeny\. Similar: \['Taconic orogeny', /);
    expect(b.observation).toBe(a.observation);
    // the notebook URL makes "Hall & Oates" a search for "Hall"
    const hall = (await env1.step('search[Hall]')).observation;
    expect(hall).toMatch(/^Could not find Hall\. Similar: /);
    expect((await env1.step('search[Hall & Oates]')).observation).toBe(hall.replace('Hall.', 'Hall & Oates.'));
  });
});

describe('verbatim queries (opt-in)', () => {
  it('searches the entity as written', async () => {
    const out = path.join(tmp, 'verbatim.sqlite');
    await buildSnapshot({ from: [path.join(DUMPS, 'abstracts')], out });
    const faithful = new SnapshotBackend(out);
    const verbatim = new SnapshotBackend(out, { query: 'verbatim' });
    expect((await verbatim.search('AT&T')).kind).toBe('page');
    expect(await faithful.search('AT&T')).toEqual({ kind: 'similar', titles: ['AT&T'] }); // searched "AT"
    expect(verbatim.describe().query).toBe('verbatim entity');
    await faithful.close();
    await verbatim.close();
  });
});

describe('the two-thread build (worker shard merged into the database)', () => {
  it('gives the index a single thread would: FTS5 integrity-check, averages, docsizes and BM25 results identical', async () => {
    // Small batches and a small term buffer: both threads index, and each writes many segments (and levels).
    const out = path.join(tmp, 'merged.sqlite');
    const r = await buildSnapshot({ from: [SHIPPED_PAGES], out, batch: 20, hashBytes: 128 * 1024 });
    expect(r.pages).toBe(21897);
    const db = new Database(out);
    const ref = new Database(':memory:');
    try {
      // FTS5's own check of the merged index: segment pages, %_idx entries and the structure record agree.
      expect(() => db.exec("INSERT INTO pages_fts(pages_fts) VALUES ('integrity-check')")).not.toThrow();
      const segids = (db.prepare('SELECT count(DISTINCT segid) AS n FROM pages_fts_idx').get() as { n: number }).n;
      expect(segids).toBeGreaterThan(10);
      // The reference: the same rows indexed by one connection, as FTS5 would do it without the merge.
      ref.exec(`CREATE VIRTUAL TABLE pages_fts USING fts5(title, body, content='', tokenize='unicode61 remove_diacritics 2')`);
      const ins = ref.prepare('INSERT INTO pages_fts(rowid, title, body) VALUES (?, ?, ?)');
      const rows = db.prepare('SELECT id, title, paragraphs FROM pages ORDER BY id').all() as { id: number; title: string; paragraphs: string }[];
      ref.transaction(() => {
        for (const p of rows) ins.run(p.id, p.title, (JSON.parse(p.paragraphs) as string[]).join('\n'));
      })();
      const averages = (d: Database.Database) => (d.prepare('SELECT hex(block) AS h FROM pages_fts_data WHERE id = 1').get() as { h: string }).h;
      expect(averages(db)).toBe(averages(ref)); // row count and per-column token totals (BM25's statistics)
      const docsize = (d: Database.Database) => d.prepare('SELECT id, hex(sz) AS h FROM pages_fts_docsize ORDER BY id').all();
      expect(docsize(db)).toEqual(docsize(ref)); // every row once, with its own token counts
      // BM25 (scores and order) and plain rowid order over frequent, rare and combined terms.
      const words = rows.filter((_, i) => i % 700 === 0).flatMap((p) => queryTokens(p.title));
      const queries = [...words.map((w) => `"${w}"`), '"the"', '"film" AND "american"', '"river" OR "lake"', '{title} : "album"'];
      const scored = `SELECT rowid, bm25(pages_fts, 10.0, 1.0) AS s FROM pages_fts WHERE pages_fts MATCH ? ORDER BY s, rowid LIMIT 40`;
      const firsts = `SELECT rowid FROM pages_fts WHERE pages_fts MATCH ? LIMIT 40`;
      expect(queries.length).toBeGreaterThan(40);
      for (const q of queries) {
        const want = ref.prepare(scored).all(q);
        expect(want.length, q).toBeGreaterThan(0);
        expect(db.prepare(scored).all(q), q).toEqual(want);
        expect(db.prepare(firsts).all(q), q).toEqual(ref.prepare(firsts).all(q));
      }
    } finally {
      db.close();
      ref.close();
    }
  });
});

describe('temp files of killed builds', () => {
  it('a build killed with -9 leaves <out>.tmp-<pid>-*; the next build removes them (and keeps a live one\'s)', async () => {
    const dir = mkdtempSync(path.join(tmp, 'killed-'));
    const out = path.join(dir, 'k.sqlite');
    // The killed build reads from a FIFO that nobody writes: it is stuck mid-build, its temp files open.
    const src = path.join(dir, 'src');
    mkdirSync(src);
    execFileSync('mkfifo', [path.join(src, 'pages.jsonl')]);
    const buildTs = path.join(__dirname, '../../../src/envs/wikipedia/snapshot-build.ts');
    const code = `const { buildSnapshot } = await import(${JSON.stringify(buildTs)}); await buildSnapshot({ from: [${JSON.stringify(src)}], out: ${JSON.stringify(out)} });`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: path.join(__dirname, '../../..'), stdio: 'ignore' });
    const temps = () => readdirSync(dir).filter((f) => f.startsWith('k.sqlite.tmp-'));
    // Wait for the shard file: SQLite's transient -journal files may show up before it.
    for (let i = 0; i < 400 && !temps().some((f) => f.endsWith('-shard')); i++) await new Promise((r) => setTimeout(r, 25));
    const left = temps();
    child.kill('SIGKILL');
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(null) : child.on('exit', r)));
    const files = left.filter((f) => !/-(journal|wal)$/.test(f));
    expect(files.map((f) => f.replace(/-\d+-[0-9a-f]+/, '-PID-X'))).toEqual(['k.sqlite.tmp-PID-X', 'k.sqlite.tmp-PID-X-shard']);
    expect(left.every((f) => f.includes(`.tmp-${child.pid}-`))).toBe(true);
    // a concurrent build in a live process (our parent) keeps its file
    const live = `k.sqlite.tmp-${process.ppid}-abc123`;
    writeFileSync(path.join(dir, live), '');
    const r = await buildSnapshot({ from: [path.join(DUMPS, 'abstracts')], out });
    expect(r.pages).toBeGreaterThan(0);
    expect(readdirSync(dir).sort()).toEqual(['k.sqlite', live, 'src'].sort());
  }, 30_000);
});
