// Readers for the page dumps an offline snapshot is built from (formats: snapshot-sources.ts): each
// dump file yields {title, paragraphs}. Build side only (imported by snapshot-build.ts): node:readline
// and unbzip2-stream stay out of a run's start (bench/results-start.md).
import { createReadStream, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import type { Readable } from 'node:stream';
import bz2 from 'unbzip2-stream';
import { UserError, errorMessage } from '../../errors.js';
import { JsonFields } from '../../util/json-fields.js';
import { feverText, feverTitle, stripLinks, unescapeTitle, type SourceFormat, type SourcePage } from './snapshot-sources.js';

/** Every dump file under `p` (a file, or a directory searched recursively), in sorted order. */
export function listSourceFiles(p: string): string[] {
  let st;
  try {
    st = statSync(p);
  } catch {
    throw new UserError(`--from ${p}: no such file or directory`);
  }
  if (st.isFile()) return [p];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const f = path.join(d, name);
      const s = statSync(f);
      if (s.isDirectory()) walk(f);
      else if (/\.(bz2|jsonl|json)$/.test(name)) out.push(f);
    }
  };
  walk(p);
  if (out.length === 0) throw new UserError(`--from ${p}: no .jsonl, .json or .bz2 files in this directory`);
  return out;
}

function detect(obj: JsonFields): SourceFormat | undefined {
  if (obj.str('title') !== undefined && obj.arr('sentences')) return 'hotpotqa-pages';
  if (obj.str('title') !== undefined && obj.arr('text')) return 'hotpotqa-abstracts';
  if (obj.str('id') !== undefined && obj.str('text') !== undefined) return 'fever';
  return undefined;
}

function toPage(obj: JsonFields, format: SourceFormat): SourcePage | null {
  if (format === 'hotpotqa-pages') {
    const title = obj.str('title');
    const sentences = obj.arr('sentences');
    if (title === undefined || !sentences) return null;
    return { title: unescapeTitle(title), paragraphs: [sentences.map(String).join('')] };
  }
  if (format === 'hotpotqa-abstracts') {
    const title = obj.str('title');
    const text = obj.arr('text');
    if (title === undefined || !text) return null;
    const paragraphs = text.map((p) => (Array.isArray(p) ? p.map((s) => stripLinks(String(s))).join('') : stripLinks(String(p))));
    return { title: unescapeTitle(title), paragraphs: paragraphs.filter((p) => p.trim() !== '') };
  }
  const id = obj.str('id');
  const text = obj.str('text');
  if (id === undefined || text === undefined) return null;
  if (id === '') return { title: '', paragraphs: [] }; // FEVER's first line has an empty id: skipped by the caller
  return { title: feverTitle(id), paragraphs: [feverText(text)] };
}

/** Pages of one dump file; a line that is not a page of the file's format is a UserError naming file and line. */
export async function* readSourceFile(file: string): AsyncGenerator<SourcePage> {
  let stream: Readable = createReadStream(file);
  if (file.endsWith('.bz2')) stream = stream.pipe(bz2());
  const rl = readline.createInterface({ input: stream, crlfDelay: Infinity });
  let lineNo = 0;
  let format: SourceFormat | undefined;
  try {
    for await (const line of rl) {
      lineNo++;
      if (line.trim() === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        throw new UserError(`${file}:${lineNo}: not a JSON line (expected one page object a line)`);
      }
      // An array line has none of the fields: not a page.
      const obj = parsed && typeof parsed === 'object' ? JsonFields.orEmpty(parsed) : null;
      format ??= obj ? detect(obj) : undefined;
      if (!format) throw new UserError(`${file}:${lineNo}: not a page: expected {"title","sentences"}, {"title","text":[...]} or FEVER {"id","text","lines"}`);
      const page = obj ? toPage(obj, format) : null;
      if (!page) throw new UserError(`${file}:${lineNo}: malformed ${format} line (missing or mistyped field)`);
      if (page.title.trim() === '') continue;
      yield page;
    }
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(`${file}:${lineNo + 1}: cannot read (${errorMessage(e)})`);
  } finally {
    rl.close();
    stream.destroy();
  }
}
