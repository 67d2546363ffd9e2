// The sha256 of files hashed on every run (the shipped Wikipedia pages that name the offline database, a
// run's input files for its manifest), remembered by the file's identity: device, inode, size,
// modification and change time. The kernel sets the change time on every write and it cannot be set
// back (the modification time can), so a file written in place is hashed again; git's index trusts the
// same fields. Remembered in this process and, when the caller names one, in a JSON file in the cache
// folder (written whole by rename; a missing, foreign or unreadable file only means hashing again).
// Hashing 14 MB of pages twice took ~50 ms of every run's start (bench/start.ts).
import fs from 'node:fs';
import path from 'node:path';
import { sha256, sha256File } from './hash.js';
import { JsonFields } from './json-fields.js';

type Memo = Map<string, { id: string; sha: string }>;
const memos = new Map<string, Memo>();
const IN_PROCESS = '';

function identity(st: fs.Stats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}

function memoOf(memoFile: string | undefined): Memo {
  const key = memoFile ?? IN_PROCESS;
  let memo = memos.get(key);
  if (memo) return memo;
  memo = new Map();
  if (memoFile) {
    try {
      const all = JsonFields.orEmpty(JSON.parse(fs.readFileSync(memoFile, 'utf8')));
      for (const file of all.keys()) {
        const e = all.obj(file);
        const id = e?.str('id');
        const sha = e?.str('sha');
        if (id !== undefined && sha !== undefined && /^[0-9a-f]{64}$/.test(sha)) memo.set(file, { id, sha });
      }
    } catch {
      // absent or unreadable: start empty
    }
  }
  memos.set(key, memo);
  return memo;
}

function remember(memo: Memo, memoFile: string | undefined, file: string, id: string, sha: string): void {
  memo.set(file, { id, sha });
  if (!memoFile) return;
  try {
    fs.mkdirSync(path.dirname(memoFile), { recursive: true });
    const tmp = `${memoFile}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(Object.fromEntries(memo)));
    fs.renameSync(tmp, memoFile);
  } catch {
    // a read-only cache folder: remembered in this process only
  }
}

/** The file's sha256 (hex), hashed only when its identity changed since it was last hashed. */
export async function rememberedSha256File(file: string, memoFile?: string): Promise<string> {
  const abs = path.resolve(file);
  const id = identity(fs.statSync(abs));
  const memo = memoOf(memoFile);
  const known = memo.get(abs);
  if (known?.id === id) return known.sha;
  const sha = await sha256File(abs);
  // Unchanged while it was read: otherwise the sha may mix two versions, so it is not remembered.
  if (identity(fs.statSync(abs)) === id) remember(memo, memoFile, abs, id, sha);
  return sha;
}

/** rememberedSha256File, synchronously (the file is read whole). */
export function rememberedSha256FileSync(file: string, memoFile?: string): string {
  const abs = path.resolve(file);
  const id = identity(fs.statSync(abs));
  const memo = memoOf(memoFile);
  const known = memo.get(abs);
  if (known?.id === id) return known.sha;
  const sha = sha256(fs.readFileSync(abs));
  if (identity(fs.statSync(abs)) === id) remember(memo, memoFile, abs, id, sha);
  return sha;
}
