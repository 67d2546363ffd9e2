// The sha256 of files hashed on every run (the shipped Wikipedia pages that name the offline database, a
// run's input files for its manifest), remembered by the file's identity (src/util/identity-memo.ts):
// a file written since is hashed again. Hashing 14 MB of pages twice took ~50 ms of every run's start
// (bench/start.ts).
import fs from 'node:fs';
import path from 'node:path';
import { sha256, sha256File } from './hash.js';
import { IdentityMemo, fileIdentity } from './identity-memo.js';

const shaMemo = (memoFile: string | undefined) =>
  new IdentityMemo<string>('sha256', memoFile, {
    read: (f) => {
      const sha = f.str('sha');
      return sha !== undefined && /^[0-9a-f]{64}$/.test(sha) ? sha : undefined;
    },
    write: (sha) => ({ sha }),
  });

/** The file's sha256 (hex), hashed only when its identity changed since it was last hashed. */
export async function rememberedSha256File(file: string, memoFile?: string): Promise<string> {
  const abs = path.resolve(file);
  const id = fileIdentity(fs.statSync(abs));
  const memo = shaMemo(memoFile);
  const known = memo.get(abs, id);
  if (known !== undefined) return known;
  const sha = await sha256File(abs);
  // Unchanged while it was read: otherwise the sha may mix two versions, so it is not remembered.
  if (fileIdentity(fs.statSync(abs)) === id) memo.set(abs, id, sha);
  return sha;
}

/** rememberedSha256File, synchronously (the file is read whole). */
export function rememberedSha256FileSync(file: string, memoFile?: string): string {
  const abs = path.resolve(file);
  const id = fileIdentity(fs.statSync(abs));
  const memo = shaMemo(memoFile);
  const known = memo.get(abs, id);
  if (known !== undefined) return known;
  const sha = sha256(fs.readFileSync(abs));
  if (fileIdentity(fs.statSync(abs)) === id) memo.set(abs, id, sha);
  return sha;
}
