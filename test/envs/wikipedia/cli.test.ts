// `react-repro wiki ...` in-process: observations printed exactly, build/info, flag errors.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { startWikiServer, type WikiServer } from '../../servers/wiki-server.js';

process.env.REACT_REPRO_CACHE_DIR = path.join(os.tmpdir(), 'react-repro-test-cache');
const DUMPS = path.join(__dirname, '../../fixtures/wikipedia/dumps');

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((out += String(s)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((err += String(s)), true));
  try {
    const code = await main(args);
    return { code, out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

let server: WikiServer;
beforeAll(async () => {
  server = await startWikiServer();
});
afterAll(async () => server.close());

describe('react-repro wiki', () => {
  it('search and lookup print each observation exactly', async () => {
    const live = ['--wiki', 'live', '--wiki-url', server.url];
    const s = await cli('wiki', 'search', 'Colorado', ...live);
    expect(s.code).toBe(0);
    expect(s.out).toBe(
      `Could not find Colorado. Similar: ['Colorado orogeny', 'Colorado Plateau', 'Colorado Springs, Colorado (redirect from Colorado Springs)', 'The "Quoted" Colorado', 'Both \\' and " Colorado'].\n`,
    );
    const l = await cli('wiki', 'lookup', 'Colorado orogeny', 'eastern sector', ...live);
    expect(l.out.split('\n')[1]).toBe('(Result 1 / 1) The eastern sector extends into the High Plains and is called the Central Plains orogeny.');
  });

  it('step runs a sequence (snapshot by default), --json gives the info', async () => {
    const r = await cli('wiki', 'step', 'search[Pavel Urysohn]', 'lookup[Lemma]', 'lookup[Lemma]', '--json');
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n').map((x) => JSON.parse(x));
    expect(lines.map((x) => x.observation.slice(0, 16))).toEqual(['Pavel Samuilovic', '(Result 1 / 1) P', 'No more results.']);
    expect(lines[2].info).toEqual({ steps: 3, answer: null });
  });

  it('build and info', async () => {
    const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'wiki-cli-')), 'x.sqlite');
    const b = await cli('wiki', 'build', '--from', path.join(DUMPS, 'fever'), '--out', out);
    expect(b.code).toBe(0);
    expect(b.out).toMatch(new RegExp(`^${out}\\npages 2\\nsource sha256 [0-9a-f]{64}\\n`));
    const i = await cli('wiki', 'info', '--wiki-snapshot', out);
    expect(i.out).toMatch(/pages 2\nsource sha256 [0-9a-f]{64}\nsources wiki-001.jsonl/);
    const s = await cli('wiki', 'search', 'Nikolaj Coster-Waldau', '--wiki-snapshot', out);
    expect(s.out).toBe('Nikolaj William Coster-Waldau ( born 27 July 1970 ) is a Danish actor and producer ..\n');
  });

  it('bad input is one line and a non-zero exit', async () => {
    const r = await cli('wiki', 'search', 'x', '--wiki', 'dbpedia');
    expect(r.code).toBe(2);
    expect(r.err).toBe('react-repro: --wiki dbpedia: expected snapshot, live, api, record:FILE or replay:FILE\n');
    const b = await cli('wiki', 'build', '--from', path.join(DUMPS, 'bad.jsonl'), '--out', path.join(os.tmpdir(), 'never.sqlite'));
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/bad\.jsonl:2: not a JSON line/);
    const o = await cli('wiki', 'search', 'x', '--wiki', 'live', '--wiki-url', 'http://127.0.0.1:1', '--wiki-timeout', '1');
    expect(o.code).toBe(1);
    expect(o.err).toMatch(/^react-repro: Wikipedia \(live\): Wikipedia unreachable at http:\/\/127.0.0.1:1: .*\n$/);
  });
});
