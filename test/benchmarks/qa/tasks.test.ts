// HotpotQA and FEVER tasks: data loading, the §2 splits against CPython's index lists, limits, and
// the errors for missing or malformed files.
import { afterAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UserError } from '../../../src/errors.js';
import { createFeverTask } from '../../../src/benchmarks/fever/data.js';
import { createHotpotQATask } from '../../../src/benchmarks/hotpotqa/data.js';
import { parseLimit } from '../../../src/options.js';
import { getTask, taskNames } from './run-method.js';
import { loadCoveredIndices, loadFever, loadHotpotQA } from '../../../src/benchmarks/qa/datasets.js';

const samples = JSON.parse(
  fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'fixtures', 'python-random', 'paper-samples.json'), 'utf8'),
);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'react-repro-tasks-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
function write(name: string, text: string): string {
  const f = path.join(tmp, name);
  fs.writeFileSync(f, text);
  return f;
}
function userError(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    const msg = (e as Error).message;
    expect(msg).not.toContain('\n');
    return msg;
  }
  throw new Error('expected a UserError');
}

describe('registry', () => {
  it('knows hotpotqa and fever, once each', () => {
    expect(taskNames).toEqual(['hotpotqa', 'fever']);
    expect(getTask('hotpotqa')).toBe(getTask('hotpotqa'));
    expect(userError(() => getTask('squad'))).toBe('unknown task "squad"; known tasks: hotpotqa, fever');
  });
});

describe('hotpotqa', () => {
  const t = getTask('hotpotqa');
  it('has 7405 questions with answers, in file order', () => {
    expect(t.size).toBe(7405);
    expect(t.observationLabel).toBe('Question');
    expect(t.example(0)).toEqual({
      index: 0,
      question: 'Were Scott Derrickson and Ed Wood of the same nationality?',
      answer: 'yes',
      meta: { type: 'comparison' },
    });
    expect(t.example(1).answer).toBe('Chief of Protocol');
    expect(userError(() => t.example(7405))).toMatch(/index 7405 is out of range .*0\.\.7404/);
    expect(userError(() => t.example(-1))).toMatch(/out of range/);
  });
  it('splits: dev, react500, offline, offline500 with descriptions', () => {
    expect(t.splitNames()).toEqual(['dev', 'react500', 'offline', 'offline500']);
    for (const name of t.splitNames()) {
      const s = t.split(name);
      expect(s.benchmark).toBe('hotpotqa');
      expect(s.name).toBe(name);
      expect(s.description.length).toBeGreaterThan(20);
      expect(new Set(s.indices).size).toBe(s.indices.length);
    }
    expect(t.split('dev').indices).toEqual(Array.from({ length: 7405 }, (_, i) => i));
  });
  it('react500 equals CPython: first ten, sum 1880737, same order', () => {
    const s = t.split('react500');
    expect(s.indices).toEqual(samples['hotpotqa/react500']);
    expect(s.indices.slice(0, 10)).toEqual([3687, 6238, 5388, 3522, 3824, 2866, 1551, 2544, 1557, 5762]);
    expect(s.indices.reduce((a, b) => a + b, 0)).toBe(1880737);
    expect(s.description).toContain('Random(233)');
  });
  it('offline: the 1906 covered indices ascending; offline500 ⊂ offline in shuffle order', () => {
    const offline = t.split('offline').indices;
    expect(offline.length).toBe(1906);
    expect(offline).toEqual([...offline].sort((a, b) => a - b));
    const o500 = t.split('offline500').indices;
    expect(o500).toEqual(samples['hotpotqa/offline500']);
    expect(o500.length).toBe(500);
    const covered = new Set(offline);
    expect(o500.every((i) => covered.has(i))).toBe(true);
    // Ordered by position in the seed-233 shuffle, and exactly the first 500 covered ones in it.
    const pos = new Map<number, number>(samples.shuffle7405.map((v: number, i: number) => [v, i]));
    const positions = o500.map((i) => pos.get(i)!);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    const skipped = samples.shuffle7405.slice(0, positions[499]).filter((i: number) => covered.has(i) && !o500.includes(i));
    expect(skipped).toEqual([]);
    const react = new Set(t.split('react500').indices);
    expect(o500.filter((i) => react.has(i)).length).toBe(123); // PROVENANCE.md: 123 covered in the paper's 500
  });
  it('limit takes a prefix; a bad limit names --limit', () => {
    expect(t.split('react500', { limit: 3 }).indices).toEqual([3687, 6238, 5388]);
    expect(t.split('react500', { limit: 100000 }).indices.length).toBe(500);
    for (const bad of [0, -3, 1.5, NaN])
      expect(userError(() => t.split('react500', { limit: bad }))).toMatch(/^--limit: expected a positive integer, got /);
    expect(t.split('react500').indices.length).toBe(500); // the memoised list was not truncated
  });
  it('unknown split lists the known ones', () => {
    expect(userError(() => t.split('test'))).toBe(
      'unknown split "test" for task hotpotqa; known splits: dev, react500, offline, offline500',
    );
  });
  it('scores like HotPotQAWrapper', () => {
    expect(t.score('The Chief of Protocol.', 'Chief of Protocol')).toEqual({ em: 1, f1: 1, reward: 1 });
    expect(t.score('Chief', 'Chief of Protocol')).toEqual({ em: 0, f1: 0.5, reward: 0 });
    expect(t.score(null, 'yes')).toEqual({ em: 0, f1: 0, reward: 0 });
  });
});

describe('fever', () => {
  const t = getTask('fever');
  it('has 9999 claims; question = claim, answer = label', () => {
    expect(t.size).toBe(9999);
    expect(t.observationLabel).toBe('Claim');
    expect(t.example(1)).toEqual({
      index: 1,
      question: 'Tilda Swinton is a vegan.',
      answer: 'NOT ENOUGH INFO',
      meta: { id: 194462, verifiable: 'NOT VERIFIABLE' },
    });
  });
  it('react500 is the notebook quirk (first 7405 claims only); react500-fixed draws over all 9999', () => {
    expect(t.splitNames()).toEqual(['dev', 'react500', 'react500-fixed', 'offline']); // offline: test/benchmarks/fever/offline.test.ts
    const r = t.split('react500').indices;
    const f = t.split('react500-fixed').indices;
    expect(r).toEqual(samples['fever/react500']);
    expect(f).toEqual(samples['fever/react500-fixed']);
    expect(r).toEqual(getTask('hotpotqa').split('react500').indices);
    expect(Math.max(...r)).toBeLessThan(7405);
    expect(f.some((i) => i >= 7405)).toBe(true);
    expect(t.split('dev').indices.length).toBe(9999);
  });
  it('scores like FeverWrapper (f1 = reward)', () => {
    expect(t.score('supports', 'SUPPORTS')).toEqual({ em: 1, f1: 1, reward: 1 });
    expect(t.score('NOT ENOUGH', 'NOT ENOUGH INFO')).toEqual({ em: 0, f1: 0, reward: 0 });
  });
});

describe('missing and malformed files', () => {
  it('HotpotQA file: missing, bad JSON, wrong shape, bad field', () => {
    expect(userError(() => loadHotpotQA(path.join(tmp, 'nope.json')))).toMatch(
      /nope\.json: cannot read the HotpotQA data \(file not found\)/,
    );
    expect(userError(() => loadHotpotQA(write('bad.json', '[{"question": "q", ')))).toMatch(/bad\.json: invalid JSON/);
    expect(userError(() => loadHotpotQA(write('multi.json', '[\n  {"question": "q",\n   "answer": }\n]\n')))).toMatch(
      /multi\.json: invalid JSON/,
    );
    expect(userError(() => loadHotpotQA(write('obj.json', '{"question": "q"}')))).toMatch(/obj\.json: expected a JSON array/);
    expect(
      userError(() => loadHotpotQA(write('field.json', '[{"question": "q", "answer": "a"}, {"question": "q2", "answer": 3}]'))),
    ).toMatch(/field\.json: entry 1: "answer" must be a string/);
  });
  it('FEVER file: the line number of a bad line', () => {
    const good = '{"id": 1, "claim": "c", "label": "SUPPORTS"}';
    expect(userError(() => loadFever(write('f1.jsonl', `${good}\n${good}\n{"claim": "x", \n`)))).toMatch(/f1\.jsonl:3: invalid JSON/);
    expect(userError(() => loadFever(write('f2.jsonl', `${good}\n{"claim": "x"}\n`)))).toMatch(/f2\.jsonl:2: "label" must be a string/);
    expect(userError(() => loadFever(write('f3.jsonl', `${good}\n\n${good}\n`)))).toMatch(/f3\.jsonl:2: empty line/);
    expect(userError(() => loadFever(write('f4.jsonl', '')))).toMatch(/f4\.jsonl: no claims/);
    expect(loadFever(write('f5.jsonl', `${good}\n${good}`)).size).toBe(2);
  });
  it('covered indices: out of range or unordered', () => {
    expect(userError(() => loadCoveredIndices(write('c1.json', '[1, 2, 99]'), 10))).toMatch(
      /c1\.json: entry 2: expected an integer index in 0\.\.9/,
    );
    expect(userError(() => loadCoveredIndices(write('c2.json', '[3, 2]'), 10))).toMatch(/c2\.json: entry 1: indices must be ascending/);
  });
  it('errors surface lazily from the task, and splits check the file is big enough', () => {
    const t = createFeverTask({ dataFile: write('bad.jsonl', '{"claim": "c", "label": "SUPPORTS"}\nnot json\n') });
    expect(t.name).toBe('fever'); // constructing does not read the file
    expect(userError(() => t.size)).toMatch(/bad\.jsonl:2: invalid JSON/);
    const small = createHotpotQATask({ dataFile: write('small.json', '[{"question": "q", "answer": "a"}]') });
    expect(small.split('dev').indices).toEqual([0]);
    expect(userError(() => small.split('react500'))).toMatch(/small\.json: split react500 needs at least 7405 examples, the file has 1/);
  });
  it('a task reads its file once', () => {
    const f = write('once.json', '[{"question": "q", "answer": "a", "type": "bridge"}]');
    const t = createHotpotQATask({ dataFile: f });
    expect(t.size).toBe(1);
    fs.rmSync(f);
    expect(t.example(0)).toEqual({ index: 0, question: 'q', answer: 'a', meta: { type: 'bridge' } });
    expect(t.split('dev').indices).toEqual([0]);
  });
  it('parseLimit accepts positive integers only', () => {
    expect(parseLimit(undefined)).toBeUndefined();
    expect(parseLimit('12')).toBe(12);
    expect(parseLimit(5)).toBe(5);
    for (const bad of ['0', '-3', 'abc', '1.5', '', 0, -3])
      expect(userError(() => parseLimit(bad))).toMatch(/^--limit: expected a positive integer, got /);
  });
});
