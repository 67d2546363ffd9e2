// --wiki record:FILE / replay:FILE. Recording runs the live (paper's) backend and appends every answer
// to a JSON-lines file: {"entity", "url", "time", "html", "outcome"} (the raw HTML for audit, the parsed
// SearchOutcome for replay). Replaying answers from the file without any network, so observations are
// byte-identical; when an entity was recorded more than once the first answer is used. An entity that
// is not in the file stops the run (FatalRunError naming entity and file): it would miss on every retry.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { SearchOutcome, WikiBackend } from './backend.js';
import { FatalRunError, UserError } from '../../errors.js';
import { LiveHtmlBackend, type LiveBackendOptions } from './live-backend.js';
import { appendRecord, toDiskError, truncateTornTail } from '../../util/durable.js';
import { checkOutputFile } from '../../util/safe-path.js';

export interface Recording {
  entity: string;
  url: string;
  time: string;
  html: string;
  outcome: SearchOutcome;
}

export class RecordingBackend implements WikiBackend {
  readonly kind = 'record';
  private readonly live: LiveHtmlBackend;
  private fd: number | undefined;

  constructor(
    readonly file: string,
    opts: LiveBackendOptions = {},
  ) {
    try {
      checkOutputFile(file, `--wiki record:${file}`, { parentMayBeMissing: true });
      mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
      // A recording killed mid-line (before durable appends) would leave a torn line in the middle of
      // the file once we append after it: cut it first.
      truncateTornTail(file);
    } catch (e) {
      throw toDiskError(e, file, 'opening the --wiki record file');
    }
    this.live = new LiveHtmlBackend({
      ...opts,
      onFetch: (entity, f) => {
        const rec: Recording = { entity, url: f.url, time: f.time, html: f.html, outcome: f.outcome };
        // a whole line or nothing (a full disk is a DiskError that stops the run, never a torn record)
        if (this.fd === undefined) {
          try {
            this.fd = openSync(file, 'a');
          } catch (e) {
            throw toDiskError(e, file, 'opening the --wiki record file');
          }
        }
        appendRecord(this.fd, file, JSON.stringify(rec), { what: 'the --wiki record file' });
        opts.onFetch?.(entity, f);
      },
    });
  }

  async close(): Promise<void> {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  search(entity: string, o?: { signal?: AbortSignal }): Promise<SearchOutcome> {
    return this.live.search(entity, o);
  }

  describe(): Record<string, unknown> {
    return { ...this.live.describe(), kind: this.kind, file: path.resolve(this.file) };
  }

  identity(): Record<string, unknown> {
    return { ...(this.live.identity?.() ?? this.live.describe()), kind: this.kind, file: path.resolve(this.file) };
  }
}

function isOutcome(o: unknown): o is SearchOutcome {
  const x = o as SearchOutcome;
  return (
    !!x &&
    ((x.kind === 'similar' && Array.isArray(x.titles) && x.titles.every((t) => typeof t === 'string')) ||
      (x.kind === 'page' && Array.isArray(x.blocks) && x.blocks.every((t) => typeof t === 'string')))
  );
}

export class ReplayBackend implements WikiBackend {
  readonly kind = 'replay';
  private readonly answers = new Map<string, SearchOutcome>();
  readonly recorded: number;

  constructor(readonly file: string) {
    if (!existsSync(file)) throw new UserError(`--wiki replay:${file}: no such file (make one with --wiki record:${file})`);
    const lines = readFileSync(file, 'utf8').split('\n');
    let n = 0;
    lines.forEach((line, i) => {
      if (!line.trim()) return;
      let rec: Recording;
      try {
        rec = JSON.parse(line);
      } catch {
        // the last line of a killed recording may be cut: ignore it, but nothing else
        if (i >= lines.length - 2) return;
        throw new UserError(`${file}:${i + 1}: not a JSON line of a --wiki record file`);
      }
      if (typeof rec?.entity !== 'string' || !isOutcome(rec.outcome)) {
        throw new UserError(`${file}:${i + 1}: expected {"entity": string, "outcome": {kind: "page"|"similar", ...}}`);
      }
      n++;
      if (!this.answers.has(rec.entity)) this.answers.set(rec.entity, rec.outcome);
    });
    this.recorded = n;
  }

  async search(entity: string): Promise<SearchOutcome> {
    const o = this.answers.get(entity);
    if (!o) throw new FatalRunError(`--wiki replay:${this.file}: search[${entity}] was not recorded in ${this.file}`);
    return structuredClone(o);
  }

  describe(): Record<string, unknown> {
    return { kind: this.kind, file: path.resolve(this.file), recorded: this.recorded, entities: this.answers.size };
  }

  identity(): Record<string, unknown> {
    return this.describe();
  }
}
