// End-to-end (README "Publishable runs and exports"): a ReAct run on live Wikipedia (the test wiki site) and
// the test OpenAI server is bundled; with both servers stopped, `run --from-bundle` re-runs it into
// another results folder and its episodes are identical to the bundled ones (latency_ms aside).
// A tampered recording is a one-line divergence naming the episode and the step; an altered bundle
// member is refused by its sha256; an ALFWorld run (another benchmark, another environment server)
// bundles and replays the same way.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer, type ServerCompletionRequest } from '../servers/openai-server.js';
import { startWikiServer, type WikiServer } from '../servers/wiki-server.js';
import { openings, solution, startAlfworldServer } from '../servers/alfworld-server.js';
import { cleanEnv, readLines, runCli, runDirs, scriptedWikiRespond, withoutSpent } from '../run/cli-helpers.js';
import { tarPack, tarUnpack } from '../../src/util/tar.js';

let tmp: string;
let llm: OpenAIServer | undefined;
let wiki: WikiServer | undefined;
let live: { results: string; dir: string; cacheDir: string };

/** Episode lines by idx with latency_ms removed, as the text the run log holds. */
function comparableLines(file: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const rec = JSON.parse(line);
    delete rec.latency_ms;
    out.set(rec.idx, JSON.stringify(rec));
  }
  return out;
}

const respond = scriptedWikiRespond;

function copyRun(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const f of fs.readdirSync(from)) if (f !== '.lock') fs.copyFileSync(path.join(from, f), path.join(to, f));
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-bundle-'));
  llm = await startOpenAIServer({ respond });
  wiki = await startWikiServer();
  const results = path.join(tmp, 'results');
  const cacheDir = path.join(tmp, 'cache');
  const r = await runCli(
    [
      'run',
      '--task',
      'hotpotqa',
      '--method',
      'react',
      '--indices',
      '0,1',
      '--wiki',
      'live',
      '--wiki-url',
      wiki.url,
      '--base-url',
      llm.baseURL,
      '--model',
      'test-model',
      '--results-dir',
      results,
    ],
    { cwd: tmp, env: cleanEnv({}, cacheDir) },
  );
  expect(r.stderr).not.toMatch(/internal error/);
  expect(r.code).toBe(0);
  const [dir] = runDirs(results);
  live = { results, dir: path.join(results, dir), cacheDir };
});

afterAll(async () => {
  await llm?.close();
  await wiki?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('bundle + run --from-bundle', () => {
  it('reproduces a live-Wikipedia run offline, identical, with both servers stopped', async () => {
    const wikiRequests = wiki!.requests.length;
    expect(wikiRequests).toBeGreaterThan(0); // the run did use the live site
    expect(llm!.requests.length).toBe(4); // 2 episodes × 2 turns
    const bundle = path.join(tmp, 'react.tar.gz');
    const b = await runCli(['bundle', live.dir, '--out', bundle], { cwd: tmp, env: cleanEnv({}, live.cacheDir) });
    expect(b.stderr).toBe('');
    expect(b.code).toBe(0);
    expect(b.stdout).toMatch(
      /react\.tar\.gz: 1 run, 2 episodes, 4 model calls \(4 cache entries: 4 from the cache, 0 from recordings\), 6 environment calls; [\d.]+ kB, sha256 [0-9a-f]{64}\n$/,
    );

    await llm!.close();
    await wiki!.close();
    llm = wiki = undefined;

    const rerun = path.join(tmp, 'rerun');
    // An empty cache folder: nothing may come from the completion cache either.
    const r = await runCli(['run', '--from-bundle', bundle, '--results-dir', rerun], {
      cwd: tmp,
      env: cleanEnv({}, path.join(tmp, 'no-cache')),
    });
    expect(r.stderr).not.toMatch(/internal error|warning/);
    expect(r.code).toBe(0);
    const runId = path.basename(live.dir);
    expect(r.stdout).toContain(
      `${runId}: re-ran 2 episodes from react.tar.gz with no model and no environment server: identical to the bundle`,
    );
    expect(runDirs(rerun)).toEqual([runId]); // the same run id: same settings, model and environment
    const again = comparableLines(path.join(rerun, runId, 'episodes.jsonl'));
    const orig = comparableLines(path.join(live.dir, 'episodes.jsonl'));
    expect([...again.keys()].sort()).toEqual([0, 1]);
    for (const [idx, line] of orig) expect(again.get(idx), `episode ${idx}`).toBe(line);
    // The records really are the live ones: a Wikipedia observation and the model's accounting.
    const ep0 = JSON.parse(orig.get(0)!);
    expect(ep0.steps[0].observation).toMatch(/^The Colorado orogeny was/);
    expect(ep0.usage.total_tokens).toBeGreaterThan(0);
    // The summary is the live run's, but for what this command paid for: nothing (test/cli/bundle-spend.test.ts).
    expect(withoutSpent(fs.readFileSync(path.join(rerun, runId, 'summary.csv'), 'utf8'))).toBe(
      withoutSpent(fs.readFileSync(path.join(live.dir, 'summary.csv'), 'utf8')),
    );
    const m = JSON.parse(fs.readFileSync(path.join(rerun, runId, 'manifest.json'), 'utf8'));
    expect(m.fromBundle).toMatchObject({ file: 'react.tar.gz', schema: 1, runId });
    expect(m.modelDescription.cache.mode).toBe('bundle');
    expect(fs.existsSync(path.join(tmp, 'no-cache', 'completions.sqlite'))).toBe(false);

    // The bundle is a plain tar.gz: bundle.json first, every member listed with its sha256.
    const members = tarUnpack(zlib.gunzipSync(fs.readFileSync(bundle)), bundle);
    expect(members[0].name).toBe('bundle.json');
    const bm = JSON.parse(members[0].data.toString('utf8'));
    expect(bm).toMatchObject({ schema: 1, kind: 'react-repro-bundle', nondeterministic: ['latency_ms'] });
    expect(members.slice(1).map((x) => x.name)).toEqual(bm.members.map((x: { path: string }) => x.path));
    expect(bm.members.map((x: { path: string }) => x.path)).toEqual([
      `runs/${runId}/episodes.jsonl`,
      `runs/${runId}/manifest.json`,
      `runs/${runId}/recording.jsonl`,
      `runs/${runId}/summary.csv`,
      'cache/completions.jsonl',
    ]);

    // Into the same folder again: refused, nothing overwritten.
    const twice = await runCli(['run', '--from-bundle', bundle, '--results-dir', rerun], { cwd: tmp });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/^react-repro: run --from-bundle: .* already exists; re-run into an empty --results-dir\n$/);
  });

  it('a tampered observation or action is a one-line divergence naming the episode and the step', async () => {
    const recording = (dir: string) => path.join(dir, 'recording.jsonl');
    const rewrite = (dir: string, edit: (l: Record<string, any>) => void) => {
      const lines = fs
        .readFileSync(recording(dir), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      for (const l of lines) edit(l);
      fs.writeFileSync(recording(dir), lines.map((l) => JSON.stringify(l) + '\n').join(''));
    };
    // Episode 0's first observation changed: the next prompt is one the bundle never saw.
    const obsRun = path.join(tmp, 'tamper-obs', path.basename(live.dir));
    copyRun(live.dir, obsRun);
    rewrite(obsRun, (l) => {
      if (l.t === 'env' && l.item === 0 && l.step === 1) l.result.observation = 'Something else entirely.';
    });
    const b1 = await runCli(['bundle', obsRun, '--out', path.join(tmp, 'obs.tar.gz')], { cwd: tmp, env: cleanEnv({}, live.cacheDir) });
    expect(b1.code).toBe(0);
    const r1 = await runCli(['run', '--from-bundle', path.join(tmp, 'obs.tar.gz'), '--results-dir', path.join(tmp, 'rerun-obs')], {
      cwd: tmp,
    });
    expect(r1.code).toBe(1);
    expect(r1.stderr.trim().split('\n').at(-1)).toMatch(
      /^react-repro: replay diverged at episode 0, step 2: the prompt of model call 2 is not in the bundle \(it differs from the recorded prompt at character \d+: recorded "The Colorado orogeny was[^"]*", now "Something else entirely\.\\nThought 2:"\)$/,
    );
    expect(r1.stderr).not.toMatch(/\n\s+at /);

    // Episode 1's first action recorded as another one: the replayed action is not in the bundle.
    const actRun = path.join(tmp, 'tamper-act', path.basename(live.dir));
    copyRun(live.dir, actRun);
    rewrite(actRun, (l) => {
      if (l.t === 'env' && l.item === 1 && l.step === 1) l.action = 'search[Ed Wood]';
    });
    const b2 = await runCli(['bundle', actRun, '--out', path.join(tmp, 'act.tar.gz')], { cwd: tmp, env: cleanEnv({}, live.cacheDir) });
    expect(b2.code).toBe(0);
    const r2 = await runCli(['run', '--from-bundle', path.join(tmp, 'act.tar.gz'), '--results-dir', path.join(tmp, 'rerun-act')], {
      cwd: tmp,
    });
    expect(r2.code).toBe(1);
    expect(r2.stderr.trim().split('\n').at(-1)).toBe(
      'react-repro: replay diverged at episode 1, step 1: action "search[Colorado orogeny]" is not in the bundle (recorded: action "search[Ed Wood]")',
    );
  });

  it('refuses a bundle whose member was altered after packing (sha256)', async () => {
    const good = path.join(tmp, 'good.tar.gz');
    expect((await runCli(['bundle', live.dir, '--out', good], { cwd: tmp, env: cleanEnv({}, live.cacheDir) })).code).toBe(0);
    const members = tarUnpack(zlib.gunzipSync(fs.readFileSync(good)), good);
    const ep = members.find((m) => m.name.endsWith('/episodes.jsonl'))!;
    ep.data = Buffer.from(ep.data.toString('utf8').replace('"answer":"yes"', '"answer":"no!"'));
    const bad = path.join(tmp, 'bad.tar.gz');
    fs.writeFileSync(bad, zlib.gzipSync(tarPack(members)));
    const r = await runCli(['run', '--from-bundle', bad, '--results-dir', path.join(tmp, 'rerun-bad')], { cwd: tmp });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^react-repro: .*bad\.tar\.gz: member runs\/.*\/episodes\.jsonl does not match bundle\.json \(sha256 [0-9a-f]{12}…, expected [0-9a-f]{12}…\): the bundle was altered or damaged\n$/,
    );
    expect(fs.existsSync(path.join(tmp, 'rerun-bad'))).toBe(false);
  });

  it('refuses other run flags with --from-bundle, and unfinished or unrecorded runs in bundle', async () => {
    const r = await runCli(['run', '--from-bundle', path.join(tmp, 'good.tar.gz'), '--model', 'x'], { cwd: tmp });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "react-repro: --from-bundle re-runs the bundle's runs with their recorded settings: it takes only --results-dir (not --model)\n",
    );
    const noRec = path.join(tmp, 'norec', path.basename(live.dir));
    copyRun(live.dir, noRec);
    fs.rmSync(path.join(noRec, 'recording.jsonl'));
    const b = await runCli(['bundle', noRec, '--out', path.join(tmp, 'x.tar.gz')], { cwd: tmp });
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/^react-repro: .*norec.*: no recording\.jsonl \(the run was made by a version that did not record/);
  });

  it('exports the run: the successful trajectory as FireAct-style prompt/completion, every episode flat', async () => {
    const ft = await runCli(['export', live.dir, '--format', 'finetune'], { cwd: tmp });
    expect(ft.code).toBe(0);
    const lines = ft.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const eps = readLines(path.join(live.dir, 'episodes.jsonl'));
    const good = eps.filter((e) => e.metrics.em === 1);
    expect(lines).toHaveLength(good.length);
    expect(lines[0].prompt).toBe(`${good[0].input}\n`);
    expect(lines[0].completion).toBe(
      `Thought: I need to search Colorado orogeny.\nAction: Search[Colorado orogeny]\nObservation: ${good[0].steps[0].observation.replace(/\n+$/, '')}\n` +
        'Thought: The answer is yes.\nAction: Finish[yes]\nObservation: Episode finished, reward = 1\n',
    );
    expect(ft.stderr).toBe('react-repro: 1 fine-tuning example from 1 run (method react); left out: 1 unsuccessful\n');
    const flat = await runCli(['export', live.dir, '--format', 'jsonl', '--out', path.join(tmp, 'flat.jsonl')], { cwd: tmp });
    expect(flat.code).toBe(0);
    const rows = readLines(path.join(tmp, 'flat.jsonl'));
    expect(rows.map((x) => x.idx).sort()).toEqual([0, 1]);
    expect(rows[0]).toMatchObject({ run_id: path.basename(live.dir), task: 'hotpotqa', method: 'react', model: 'test-model' });
    expect(Object.keys(rows[0])).toContain('metric_em');
  });
});

/** Plays each game's winning actions (the model of test/benchmarks/alfworld/cli.test.ts, briefly). */
function householdModel(req: ServerCompletionRequest): string {
  const header = '\nHere is the task.\n';
  const task = req.prompt.slice(req.prompt.lastIndexOf(header) + header.length);
  const [room, goal] = task.split('\n');
  const name = [...openings].find(([, o]) => o === `${room}\n\n${goal}`)?.[0];
  if (!name) return ' look\n';
  const turn = task.split('\n>').length - 2;
  return ` ${solution(name)[turn] ?? 'look'}\n> next`;
}

describe('the recording wrapper serves every benchmark', () => {
  it('bundles an ALFWorld run and replays it with no household server', async () => {
    const model = await startOpenAIServer({ respond: householdModel });
    const house = await startAlfworldServer();
    const results = path.join(tmp, 'alf-results');
    const cacheDir = path.join(tmp, 'alf-cache');
    let dir: string;
    try {
      const r = await runCli(
        [
          'run',
          '--task',
          'alfworld',
          '--method',
          'react',
          '--env-url',
          house.url,
          '--indices',
          '0,1',
          '--base-url',
          model.baseURL,
          '--model',
          'test-model',
          '--results-dir',
          results,
        ],
        { cwd: tmp, env: cleanEnv({}, cacheDir) },
      );
      expect(r.stderr).not.toMatch(/internal error/);
      expect(r.code).toBe(0);
      dir = path.join(results, runDirs(results)[0]);
      const b = await runCli(['bundle', results, '--out', path.join(tmp, 'alf.tar.gz')], { cwd: tmp, env: cleanEnv({}, cacheDir) });
      expect(b.code).toBe(0);
      expect(b.stdout).toMatch(/1 run, 2 episodes/);
    } finally {
      await model.close();
      await house.close();
    }
    const rerun = path.join(tmp, 'alf-rerun');
    const r = await runCli(['run', '--from-bundle', path.join(tmp, 'alf.tar.gz'), '--results-dir', rerun], { cwd: tmp });
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/re-ran 2 episodes .* identical to the bundle/);
    const orig = comparableLines(path.join(dir, 'episodes.jsonl'));
    const again = comparableLines(path.join(rerun, path.basename(dir), 'episodes.jsonl'));
    for (const [idx, line] of orig) expect(again.get(idx), `game ${idx}`).toBe(line);
    expect(JSON.parse(orig.get(0)!).metrics.success).toBe(1);
    expect(JSON.parse(orig.get(0)!).steps.length).toBeGreaterThan(1);
  });
});
