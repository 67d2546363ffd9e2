// Facts derived from a file (its sha256, where its dataset entries begin and end), remembered by the
// file's identity: device, inode, size, modification and change time. The kernel sets the change time
// on every write and it cannot be set back (the modification time can), so a file written in place is
// read again; git's index trusts the same fields. Remembered in this process and, when the caller names
// one, in a JSON file in the cache folder ({ "<absolute path>": { "id": …, …the facts' string fields } },
// written whole by rename). A missing, foreign or unreadable memo file only means computing again.
// A memo made with `deferred` keeps what it learns in this process until IdentityMemo.saveDeferred(),
// which a run calls once it has written its manifest: a dry run or a run refused before then adds
// nothing of it to the cache folder.
import fs from 'node:fs';
import path from 'node:path';
import { JsonFields } from './json-fields.js';

/** A file's identity as the memo compares it. */
export function fileIdentity(st: fs.Stats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}

type Fields = Record<string, string>;
/** One file's remembered fact: the identity it was learned at and its string fields. */
type Entry = { id: string; fields: Fields };

/**
 * The facts of one kind (`kind` keeps kinds apart in this process; each kind has its own memo file).
 * `read` narrows a stored entry's fields to a fact (undefined when they are not one: computed again).
 */
export class IdentityMemo<T> {
  private static readonly open = new Map<string, Map<string, Entry>>();
  /** Memo files with facts learned by a `deferred` memo and not yet written. */
  private static readonly unsaved = new Map<string, Map<string, Entry>>();
  private readonly entries: Map<string, Entry>;

  constructor(
    kind: string,
    private readonly memoFile: string | undefined,
    private readonly codec: { read(fields: JsonFields): T | undefined; write(fact: T): Fields },
    private readonly opts: { deferred?: boolean } = {},
  ) {
    const key = `${kind}\0${memoFile ?? ''}`;
    let entries = IdentityMemo.open.get(key);
    if (!entries) {
      entries = new Map();
      if (memoFile) loadInto(entries, memoFile);
      IdentityMemo.open.set(key, entries);
    }
    this.entries = entries;
  }

  /** The fact remembered for `file` (absolute) at this identity. */
  get(file: string, id: string): T | undefined {
    const e = this.entries.get(file);
    if (e?.id !== id) return undefined;
    return this.codec.read(JsonFields.orEmpty(e.fields));
  }

  /** Remembers a fact; in the memo file too, unless the cache folder cannot be written. */
  set(file: string, id: string, fact: T): void {
    this.entries.set(file, { id, fields: this.codec.write(fact) });
    if (!this.memoFile) return;
    if (this.opts.deferred) IdentityMemo.unsaved.set(this.memoFile, this.entries);
    else save(this.memoFile, this.entries);
  }

  /** Writes what deferred memos learned in this process (the command has begun writing its outputs). */
  static saveDeferred(): void {
    for (const [memoFile, entries] of IdentityMemo.unsaved) save(memoFile, entries);
    IdentityMemo.unsaved.clear();
  }
}

function save(memoFile: string, entries: Map<string, Entry>): void {
  try {
    fs.mkdirSync(path.dirname(memoFile), { recursive: true });
    const tmp = `${memoFile}.${process.pid}.tmp`;
    const out: Record<string, Fields & { id: string }> = {};
    for (const [f, e] of entries) out[f] = { ...e.fields, id: e.id };
    fs.writeFileSync(tmp, JSON.stringify(out));
    fs.renameSync(tmp, memoFile);
  } catch {
    // a read-only cache folder: remembered in this process only
  }
}

function loadInto(entries: Map<string, Entry>, memoFile: string): void {
  try {
    const all = JsonFields.orEmpty(JSON.parse(fs.readFileSync(memoFile, 'utf8')));
    for (const file of all.keys()) {
      const e = all.obj(file);
      const id = e?.str('id');
      if (!e || id === undefined) continue;
      const fields: Fields = {};
      for (const k of e.keys()) {
        const v = e.str(k);
        if (k !== 'id' && v !== undefined) fields[k] = v;
      }
      entries.set(file, { id, fields });
    }
  } catch {
    // absent or unreadable: start empty
  }
}
