// SQLite (better-sqlite3, a native addon) loaded when a database is first opened, not when a module that
// can open one is imported: a run with `--cache off` and a live Wikipedia opens none, and loading the
// addon is ~10 ms of its start (bench/results-start.md).
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { UserError, errorMessage } from '../errors.js';

export type SqliteDatabase = BetterSqlite3.Database;
export type SqliteStatement<P extends unknown[] = unknown[], R = unknown> = BetterSqlite3.Statement<P, R>;

/** The better-sqlite3 package could not be loaded (not installed, or built for another Node). */
export class SqliteUnavailable extends UserError {}

let Database: typeof BetterSqlite3 | undefined;

/** `new Database(file, options)` of better-sqlite3, the package loaded on the first call. */
export function openSqlite(file: string, options?: BetterSqlite3.Options): SqliteDatabase {
  Database ??= loadSqlite();
  return new Database(file, options);
}

function loadSqlite(): typeof BetterSqlite3 {
  try {
    return createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  } catch (e) {
    throw new SqliteUnavailable(
      `SQLite (the better-sqlite3 package) cannot be loaded (${errorMessage(e).split('\n')[0]}): reinstall with \`npm ci\`; a run with --cache off and --wiki live needs none`,
    );
  }
}
