// merge's de-duplication rule (src/run/merge-dedupe.ts): per item, the latest valid record wins; an
// error never replaces a valid record; with no valid one, the latest record; dropped records counted.
import { describe, expect, it } from 'vitest';
import { pickRecords, type MergeSource } from '../../src/run/merge-dedupe.js';
import type { EpisodeRecord, RunManifest } from '../../src/runlog/schema.js';

const rec = (idx: number, answer: string, error = false) =>
  ({ idx, answer, error: error ? { source: 'env', message: 'down' } : null }) as unknown as EpisodeRecord;
function source(dir: string, endedAt: string, records: EpisodeRecord[]): MergeSource {
  const manifest = {
    startedAt: endedAt,
    sessions: [{ startedAt: endedAt, endedAt }],
    indices: records.map((r) => r.idx),
  } as unknown as RunManifest;
  return { dir, manifest, records: new Map(records.map((r) => [r.idx, r])) };
}

describe('pickRecords', () => {
  it('keeps the latest valid record per item and counts the dropped ones', () => {
    const early = source('early', '2026-01-01T00:00:00Z', [rec(0, 'old'), rec(1, 'old-valid'), rec(2, 'old-error', true)]);
    const late = source('late', '2026-01-02T00:00:00Z', [rec(0, 'new'), rec(1, 'new-error', true), rec(2, 'new-error', true)]);
    const only = source('only', '2025-12-31T00:00:00Z', [rec(3, 'alone')]);
    // The order given does not matter: "latest" is by each run's last session end.
    const { records, overlapping, from } = pickRecords([late, only, early]);
    expect([...records.entries()].sort((a, b) => a[0] - b[0]).map(([i, r]) => [i, r.answer])).toEqual([
      [0, 'new'],
      [1, 'old-valid'],
      [2, 'new-error'],
      [3, 'alone'],
    ]);
    expect(overlapping).toBe(3);
    expect(from.get(1)!.dir).toBe('early');
    expect(from.get(0)!.dir).toBe('late');
  });
});
