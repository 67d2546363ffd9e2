// A combination's cost is its base runs' (docs/protocol.md §5: it makes no call), so whether it billed
// nothing is judged from every base run, not from one: a combination of a run at rates of 0 and one
// priced at known rates is not free, and when the priced base's calls came back without usage its cost
// is unknown, never a whole $0 (README "Reliability", src/run/meter.ts costFree).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { cleanEnv, runCli, runDirs, scriptedRespond } from '../run/cli-helpers.js';

let tmp: string;
let srv: OpenAIServer;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'combination-price-'));
  // A server that never reports usage: no call of any base run is counted.
  srv = await startOpenAIServer({ respond: scriptedRespond, usage: false });
});
afterAll(async () => {
  await srv.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const common = ['--task', 'hotpotqa', '--limit', '2', '--model', 'test-model', '--cache', 'off'];
const rates = {
  free: ['--price-prompt', '0', '--price-completion', '0'],
  priced: ['--price-prompt', '100', '--price-completion', '100'],
  unpriced: [] as string[],
};
type Rates = keyof typeof rates;
const manifestOf = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
const csvRow = (dir: string): Record<string, string> => {
  const [head, row] = fs.readFileSync(path.join(dir, 'summary.csv'), 'utf8').trim().split('\n');
  const cols = head.split(',');
  const vals = row.split(',');
  return Object.fromEntries(cols.map((c, i) => [c, vals[i]]));
};

/** A base run of `method` at `at` rates, in a results folder of its own; its run folder. */
async function base(method: string, at: Rates): Promise<string> {
  const results = path.join(tmp, `${method}-${at}`);
  if (!fs.existsSync(results)) {
    const flags = method === 'cot-sc' ? ['--samples', '3'] : [];
    const r = await runCli(
      ['run', ...common, '--method', method, ...flags, '--base-url', srv.baseURL, ...rates[at], '--results-dir', results],
      {
        cwd: tmp,
        env: cleanEnv(),
      },
    );
    expect(r.code, r.stderr).toBe(0);
  }
  return path.join(results, runDirs(results)[0]);
}

/** CoT-SC→ReAct made with --from-runs from a CoT-SC run and a ReAct run at the given rates. */
async function combine(cotSc: Rates, react: Rates): Promise<{ stdout: string; dir: string; md: string }> {
  const from = [await base('cot-sc', cotSc), await base('react', react)];
  const results = path.join(tmp, `combined-${cotSc}-${react}`);
  const r = await runCli(['run', ...common, '--method', 'cot-sc-react', '--from-runs', from.join(','), '--results-dir', results], {
    cwd: tmp,
    env: cleanEnv(),
  });
  expect(r.code, r.stderr).toBe(0);
  const dir = path.join(results, runDirs(results)[0]);
  const report = await runCli(['report', results, '--format', 'md'], { cwd: tmp });
  expect(report.code, report.stderr).toBe(0);
  const md = report.stdout.split('\n').find((l) => l.startsWith('|') && l.includes(path.basename(dir)))!;
  return { stdout: r.stdout, dir, md };
}

it('a priced base without usage and a base at rates of 0: not free, its cost unknown, whichever base is free', async () => {
  for (const [cotSc, react] of [
    ['priced', 'free'],
    ['free', 'priced'],
  ] as const) {
    const c = await combine(cotSc, react);
    const m = manifestOf(c.dir);
    expect(m.kind).toBe('combination');
    expect(m.sessions.map((s: { price?: string }) => s.price)).not.toContain('free');
    expect(c.stdout).toContain('cost unknown (+');
    expect(c.stdout).not.toContain('$0.0000');
    // summary.csv: blank when unknown.
    expect(csvRow(c.dir)).toMatchObject({ cost_usd: '' });
    // Calls, cached calls, tokens (total, spent), cost (total): unknown.
    expect(c.md).toMatch(/\| \d+ \| 0 \| \S+ \| \S+ \| unknown \|/);
  }
}, 180_000);

it('both bases at rates of 0: free, its cost the whole $0', async () => {
  const c = await combine('free', 'free');
  expect(manifestOf(c.dir).sessions.map((s: { price?: string }) => s.price)).toEqual(['free']);
  expect(c.stdout).toContain('cost $0.0000 (+');
  expect(csvRow(c.dir)).toMatchObject({ cost_usd: '0' });
}, 180_000);

it("a base without a known price: the combination's cost is unknown, and the line blames the base run, not the combination's flags", async () => {
  const c = await combine('unpriced', 'priced');
  expect(c.stdout).toContain('cost unknown (a base run has no known price)');
  expect(c.stdout).not.toContain('--price-prompt');
}, 180_000);
