// SQLite (better-sqlite3) loaded when a database is first opened, not when a module that can open one
// is imported: a run with `--cache off` and a live Wikipedia opens none. The package's JavaScript is
// ~9 ms to require here (its native addon is loaded by the first open either way;
// bench/results-start.md). A package that cannot be loaded is said as such, once, not as a bad file.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { UserError, errorCode, errorMessage } from '../errors.js';

export type SqliteDatabase = BetterSqlite3.Database;
export type SqliteStatement<P extends unknown[] = unknown[], R = unknown> = BetterSqlite3.Statement<P, R>;

/** The better-sqlite3 package could not be loaded (not installed, or built for another Node). */
export class SqliteUnavailable extends UserError {}

let Database: typeof BetterSqlite3 | undefined;

/** `new Database(file, options)` of better-sqlite3, the package loaded on the first call. */
export function openSqlite(file: string, options?: BetterSqlite3.Options): SqliteDatabase {
  if (!Database) {
    const loaded = loadSqlite();
    // The native addon is loaded by the first open: failing there (missing, or built for another Node)
    // is the package's fault, not the file's.
    const db = unavailableIfThrown(() => new loaded(file, options), isAddonFailure);
    Database = loaded;
    return db;
  }
  return new Database(file, options);
}

/** The package's path (for a worker thread that opens its own connection). */
export function sqliteModulePath(): string {
  return unavailableIfThrown(
    () => requireHere.resolve('better-sqlite3'),
    () => true,
  );
}

const requireHere = createRequire(import.meta.url);

function loadSqlite(): typeof BetterSqlite3 {
  return unavailableIfThrown(
    () => requireHere('better-sqlite3') as typeof BetterSqlite3,
    () => true,
  );
}

function isAddonFailure(e: unknown): boolean {
  return errorCode(e) === 'ERR_DLOPEN_FAILED' || /bindings file|better_sqlite3\.node/.test(errorMessage(e));
}

function unavailableIfThrown<T>(f: () => T, isPackageFault: (e: unknown) => boolean): T {
  try {
    return f();
  } catch (e) {
    if (!isPackageFault(e)) throw e;
    // Node's messages run over lines (a require stack; a dlopen failure's reason on the next line).
    const why = errorMessage(e).split('\nRequire stack:')[0].replace(/\s+/g, ' ').trim();
    throw new SqliteUnavailable(
      `SQLite (the better-sqlite3 package) cannot be loaded (${why}): reinstall it with \`npm ci\` (or \`npm rebuild better-sqlite3\` for this Node); a run with --cache off and --wiki live needs none`,
    );
  }
}
