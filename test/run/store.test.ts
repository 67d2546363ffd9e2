import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunStore, loadEpisodes, writeFileAtomic } from '../../src/runlog/store.js';
import { EpisodeMeter } from '../../src/run/meter.js';
import { errorRecord } from '../../src/run/record.js';
import type { EpisodeRecord, RunManifest } from '../../src/runlog/schema.js';
import { saveManifest } from '../../src/run/manifest.js';

const rec = (i: number, em = 1, error: EpisodeRecord['error'] = null): EpisodeRecord => ({
  ...errorRecord(
    { index: i, id: `q${i}`, input: `q${i}`, gold: `a${i}` },
    { source: 'llm', message: 'x' },
    5,
    Object.assign(new EpisodeMeter(), { calls: 1 }),
    ['em', 'f1'],
  ),
  metrics: { em, f1: em },
  error,
});

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('RunStore', () => {
  it('appends one JSON line per episode and reloads them', () => {
    const s = RunStore.open(dir);
    s.append(rec(3));
    s.append(rec(1, 0));
    s.close();
    const text = fs.readFileSync(path.join(dir, 'episodes.jsonl'), 'utf8');
    expect(text.split('\n')).toHaveLength(3);
    expect(JSON.parse(text.split('\n')[0]).idx).toBe(3);
    const again = RunStore.open(dir);
    expect([...again.records.keys()]).toEqual([3, 1]);
    expect(again.records.get(1)!.metrics.em).toBe(0);
    again.close();
  });

  it('drops and truncates a partial last line left by a kill -9', () => {
    const file = path.join(dir, 'episodes.jsonl');
    const good = JSON.stringify(rec(1)) + '\n' + JSON.stringify(rec(2)) + '\n';
    fs.writeFileSync(file, good + JSON.stringify(rec(3)).slice(0, 40));
    const s = RunStore.open(dir);
    expect(s.recoveredBytes).toBe(40);
    expect([...s.records.keys()]).toEqual([1, 2]);
    expect(fs.readFileSync(file, 'utf8')).toBe(good);
    s.append(rec(3));
    s.close();
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l).idx)).toEqual([1, 2, 3]);
  });

  it('refuses a whole line that is no record, the last one as one in the middle, and repairs nothing then', () => {
    const file = path.join(dir, 'episodes.jsonl');
    const text = JSON.stringify(rec(1)) + '\n{"question_idx": 2, "em"\n';
    fs.writeFileSync(file, text);
    expect(() => loadEpisodes(file, { repair: true })).toThrow(/episodes\.jsonl: line 2 is not an episode record/);
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
    fs.writeFileSync(file, 'garbage\n' + JSON.stringify(rec(1)) + '\n');
    expect(() => loadEpisodes(file)).toThrow(/line 1 is not an episode record/);
  });

  it('keeps the latest record per question_idx (retry-errors replacement is append-only)', () => {
    const s = RunStore.open(dir);
    s.append(rec(5, 0, { source: 'llm', message: 'unreachable' }));
    s.append(rec(6, 1));
    s.append(rec(5, 1));
    s.close();
    const { records, lines } = loadEpisodes(path.join(dir, 'episodes.jsonl'));
    expect(lines).toBe(3);
    expect(records.size).toBe(2);
    expect(records.get(5)!.error).toBeNull();
    expect(records.get(5)!.metrics.em).toBe(1);
  });

  it('writes the manifest atomically through the secret check (no temp files left, whole content)', () => {
    // Every writer writes a manifest so (src/run/manifest.ts saveManifest).
    const manifest = (fields: object) => fields as unknown as RunManifest;
    saveManifest(dir, manifest({ a: 1 }), []);
    saveManifest(dir, manifest({ a: 2, b: 'x'.repeat(10000) }), ['sk-test-SECRET-1']);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')).a).toBe(2);
    expect(() => saveManifest(dir, manifest({ a: 3, key: 'sk-test-SECRET-1' }), ['sk-test-SECRET-1'])).toThrow(/secret/);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')).a).toBe(2); // the old one, whole
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    writeFileAtomic(path.join(dir, 'x.txt'), 'hello');
    expect(fs.readFileSync(path.join(dir, 'x.txt'), 'utf8')).toBe('hello');
  });

  it('refuses a second writer while the run is open, and takes over a stale lock', () => {
    const s = RunStore.open(dir);
    expect(() => RunStore.open(dir)).toThrow(/already open/);
    s.close();
    fs.writeFileSync(path.join(dir, '.lock'), '999999999');
    const t = RunStore.open(dir);
    t.close();
    expect(fs.existsSync(path.join(dir, '.lock'))).toBe(false);
  });
});
