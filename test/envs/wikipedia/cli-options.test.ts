// The Wikipedia switches every run records: --wiki-query (snapshot search term) and --clean-str-errors.
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { UserError } from '../../../src/errors.js';
import { createWikiBackend, wikiEnvOptionsFromArgv, wikiBackendFromArgv } from '../../../src/envs/wikipedia/index.js';
import { createHotpotQABenchmark } from '../../../src/benchmarks/hotpotqa/index.js';

const run = promisify(execFile);
const bin = path.resolve(__dirname, '../../../bin/react-repro.js');

describe('Wikipedia CLI switches', () => {
  it('--clean-str-errors maps to WikiEnv options and rejects other values', () => {
    expect(wikiEnvOptionsFromArgv({})).toEqual({});
    expect(wikiEnvOptionsFromArgv({ 'clean-str-errors': 'throw' })).toEqual({ cleanStrErrors: 'throw' });
    expect(() => wikiEnvOptionsFromArgv({ 'clean-str-errors': 'ignore' })).toThrow(UserError);
  });

  it('--wiki-query verbatim is refused for backends that send the notebook URL', async () => {
    await expect(createWikiBackend('live', { query: 'verbatim' })).rejects.toThrow(/only --wiki snapshot can search verbatim/);
    await expect(wikiBackendFromArgv({ wiki: 'snapshot', 'wiki-query': 'exact' })).rejects.toThrow(/--wiki-query exact: expected notebook-url or verbatim/);
  });

  it('the snapshot searches the notebook-URL term by default and the entity verbatim on request; both are described', async () => {
    const faithful = await createWikiBackend('snapshot');
    const verbatim = await createWikiBackend('snapshot', { query: 'verbatim' });
    try {
      // The notebook's URL leaves '&' unescaped, so the site read "Hall " (§6): not the page.
      expect((await faithful.search('Hall & Oates')).kind).toBe('similar');
      const v = await verbatim.search('Hall & Oates');
      expect(v.kind).toBe('page');
      expect(String(faithful.describe().query)).toMatch(/^notebook-url/);
      expect(verbatim.describe().query).toBe('verbatim entity');
    } finally {
      await faithful.close?.();
      await verbatim.close?.();
    }
  });

  it('a bad choice is one line on stderr and exit 2', async () => {
    const r = await run(process.execPath, [bin, 'wiki', 'search', 'X', '--clean-str-errors', 'nope']).catch((e) => e);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/clean-str-errors.*"nope".*keep.*throw/);
  });

  it('a run passes both switches to the environment it describes (the manifest), and checks them before opening a backend', async () => {
    const bench = createHotpotQABenchmark();
    const f = await bench.createEnv(bench.parseOptions({ wiki: 'snapshot', wikiQuery: 'verbatim', cleanStrErrors: 'throw' }));
    try {
      const d = f.describe();
      expect(d.query).toBe('verbatim entity');
      expect(d.env).toMatchObject({ cleanStrErrors: 'throw' });
    } finally {
      await f.close?.();
    }
    // the bad value is named, not the missing replay file the backend would have opened first
    await expect(bench.createEnv(bench.parseOptions({ wiki: 'replay:/nonexistent/rec.jsonl', cleanStrErrors: 'ignore' }))).rejects.toThrow(
      /^--clean-str-errors ignore: expected keep or throw$/,
    );
  });
});
