// `export` reads run folders as `report` does: an unreadable run folder inside a results folder (a
// manifest that is not JSON, an episodes.jsonl line that is no record) is skipped with one warning
// line, the rest are exported, and the count line says how many were skipped; when none can be read,
// one line names what was given and what is expected, and nothing is written.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../run/cli-helpers.js';
import { qa, qaRecords, writeRun } from '../report/run-folders.js';

let tmp: string;
let results: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-export-skip-'));
  results = path.join(tmp, 'results');
  const idx = [0, 1, 2, 3];
  writeRun(results, { runId: 'hotpotqa-react', method: 'react', indices: idx, records: qaRecords(idx, 'rrrw') });
  writeRun(results, { runId: 'hotpotqa-act', method: 'act', indices: idx, records: qaRecords(idx, 'rrww') });
  // Unreadable: a manifest cut short, and an episodes.jsonl with a line that is no record.
  fs.mkdirSync(path.join(results, 'broken-manifest'));
  fs.writeFileSync(path.join(results, 'broken-manifest', 'manifest.json'), '{"runId": ');
  const bad = writeRun(results, { runId: 'broken-records', method: 'react', indices: [0, 1], records: qaRecords([0, 1], 'rr') });
  fs.writeFileSync(
    path.join(bad, 'episodes.jsonl'),
    JSON.stringify(qa(0, 'right')) + '\nnot json\n' + JSON.stringify(qa(1, 'right')) + '\n',
  );
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const lines = (s: string) =>
  s
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('export over unreadable run folders', () => {
  it('skips each with one warning line (as report does), exports the rest and counts the skipped', async () => {
    const out = path.join(tmp, 'all.jsonl');
    const r = await runCli(['export', results, '--format', 'jsonl', '--out', out], { cwd: tmp });
    expect(r.code).toBe(0);
    expect(r.stderr.split('\n')).toEqual([
      expect.stringMatching(/^react-repro: export: skipping .*broken-manifest: .*manifest\.json: not valid JSON/),
      expect.stringMatching(/^react-repro: export: skipping .*broken-records: .*episodes\.jsonl: line 2 is not an episode record/),
      'react-repro: 8 episodes from 2 runs; skipped 2 unreadable run folders (see the warnings above)',
      '',
    ]);
    expect(new Set(lines(fs.readFileSync(out, 'utf8')).map((l) => l.run_id))).toEqual(new Set(['hotpotqa-react', 'hotpotqa-act']));

    // The same line shape for the fine-tuning data, printed to stdout.
    const ft = await runCli(['export', results, '--format', 'finetune'], { cwd: tmp });
    expect(ft.code).toBe(0);
    expect(lines(ft.stdout)).toHaveLength(3);
    expect(ft.stderr.split('\n').slice(2)).toEqual([
      'react-repro: 3 fine-tuning examples from 1 run (method react); left out: 1 unsuccessful; skipped 2 unreadable run folders (see the warnings above)',
      '',
    ]);
  }, 60_000);

  it('none readable: one line naming what was given and what is expected, nothing written', async () => {
    const out = path.join(tmp, 'none.jsonl');
    const dir = path.join(results, 'broken-manifest');
    const r = await runCli(['export', dir, '--format', 'jsonl', '--out', out], { cwd: tmp });
    expect(r.code).toBe(2);
    const [head, tail] = r.stderr.split(': not valid JSON ');
    expect(head).toBe(`react-repro: export: ${dir} is not a readable run (${path.join(dir, 'manifest.json')}`);
    expect(tail).toMatch(
      /^\([^\n]*\)\); expected a run folder \(manifest\.json and episodes\.jsonl, as `react-repro run` writes them\) or a folder of run folders\n$/,
    );
    expect(fs.existsSync(out)).toBe(false);
  }, 60_000);
});
