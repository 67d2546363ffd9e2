// FEVER on the offline Wikipedia: the `offline` split (claims whose evidence pages are all
// in the shipped 2017 HotpotQA pages) and the notice a FEVER run on the snapshot prints otherwise.
import { describe, expect, it } from 'vitest';
import '../../../src/benchmarks/builtin.js';
import { getBenchmark } from '../../../src/benchmarks/registry.js';
import {
  coverageOf,
  coveredClaimIndices,
  evidencePages,
  isCovered,
  loadClaimEvidence,
  snapshotTitles,
  titleKey,
} from '../../../src/benchmarks/fever/offline.js';
import { feverDevFile } from '../../../src/benchmarks/qa/datasets.js';

describe('FEVER evidence pages', () => {
  it('are the distinct page ids of every evidence set; NOT ENOUGH INFO rows name none', () => {
    expect(
      evidencePages({
        evidence: [
          [[1, 2, 'Telemundo', 0]],
          [
            [1, 3, 'Telemundo', 4],
            [1, 3, 'Hispanic_and_Latino_Americans', 0],
          ],
        ],
      }),
    ).toEqual(['Telemundo', 'Hispanic_and_Latino_Americans']);
    expect(
      evidencePages({
        evidence: [
          [
            [191656, null, null, null],
            [191657, null, null, null],
          ],
        ],
      }),
    ).toEqual([]);
  });

  it('match snapshot titles through feverTitle, the snapshot normalisation and NFC', () => {
    const titles = new Set([titleKey('Soul Food (film)'), titleKey('Simón Bolívar'), titleKey('AT&T')]);
    expect(isCovered({ label: 'SUPPORTS', pages: ['Soul_Food_-LRB-film-RRB-'] }, titles)).toBe(true);
    expect(isCovered({ label: 'SUPPORTS', pages: ['Simo\u0301n_Boli\u0301var'] }, titles)).toBe(true); // FEVER ids are NFD
    expect(isCovered({ label: 'REFUTES', pages: ['AT&T', 'Telemundo'] }, titles)).toBe(false); // every page must be there
    expect(isCovered({ label: 'NOT ENOUGH INFO', pages: [] }, titles)).toBe(false);
    expect(
      coveredClaimIndices(
        [
          { label: 'NOT ENOUGH INFO', pages: ['AT&T'] },
          { label: 'SUPPORTS', pages: ['AT&T'] },
        ],
        titles,
      ),
    ).toEqual([1]);
  });
});

describe('the FEVER offline split', () => {
  const fever = getBenchmark('fever');

  it('holds the 345 SUPPORTS/REFUTES claims whose evidence pages are all in the shipped snapshot, in file order', () => {
    const split = fever.split('offline');
    expect(split.indices).toHaveLength(345);
    expect(split.indices).toEqual([...split.indices].sort((a, b) => a - b));
    expect(split.description).toMatch(/^the 345 SUPPORTS\/REFUTES dev claims/);
    const claims = loadClaimEvidence(feverDevFile);
    const titles = snapshotTitles();
    const labels = { SUPPORTS: 0, REFUTES: 0 } as Record<string, number>;
    for (const i of split.indices) {
      expect(isCovered(claims[i], titles)).toBe(true);
      labels[claims[i].label]++;
      expect(fever.item(i).gold).toBe(claims[i].label);
    }
    expect(labels).toEqual({ SUPPORTS: 166, REFUTES: 179 });
    expect(fever.split('offline', { limit: 5 }).indices).toEqual(split.indices.slice(0, 5));
    expect(fever.splitNames()).toContain('offline');
  });

  it('react500 on the snapshot: the notice says how few claims it covers, once, before a ReAct/Act run; nothing for offline, live or CoT', () => {
    const react500 = fever.split('react500').indices;
    expect(coverageOf(react500, loadClaimEvidence(feverDevFile), snapshotTitles())).toEqual({ checkable: 321, covered: 18, nei: 179 });
    const notes = fever.startNotes!({ method: 'react', split: 'react500', indices: react500, options: fever.parseOptions!({}) });
    expect(notes).toEqual([
      "notice: FEVER react500 on the offline 2017 HotpotQA Wikipedia snapshot: the evidence pages of 18 of its 321 SUPPORTS/REFUTES claims are all in it (its 179 NOT ENOUGH INFO claims name none), so its scores do not measure the paper's task; use --split offline (the 345 claims whose pages are all there) or --wiki live",
    ]);
    expect(
      fever.startNotes!({ method: 'act', split: 'react500', indices: react500, options: fever.parseOptions!({ wiki: 'snapshot' }) }),
    ).toHaveLength(1);
    expect(
      fever.startNotes!({ method: 'react', split: 'offline', indices: fever.split('offline').indices, options: fever.parseOptions!({}) }),
    ).toEqual([]);
    expect(
      fever.startNotes!({ method: 'react', split: 'react500', indices: react500, options: fever.parseOptions!({ wiki: 'live' }) }),
    ).toEqual([]);
    expect(
      fever.startNotes!({
        method: 'react',
        split: 'react500',
        indices: react500,
        options: fever.parseOptions!({ wikiSnapshot: '/my/fever.sqlite' }),
      }),
    ).toEqual([]);
    expect(fever.startNotes!({ method: 'cot', split: 'react500', indices: react500, options: fever.parseOptions!({}) })).toEqual([]);
    // HotpotQA on the questions whose gold pages the snapshot holds (its default split): no notice.
    const hotpotqa = getBenchmark('hotpotqa');
    const offline500 = hotpotqa.split('offline500').indices;
    expect(
      hotpotqa.startNotes!({ method: 'react', split: 'offline500', indices: offline500, options: hotpotqa.parseOptions!({}) }),
    ).toEqual([]);
  });
});
