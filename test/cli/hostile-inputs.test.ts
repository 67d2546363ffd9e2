// Bad and hostile input at start: paths under pseudo-filesystems, missing or read-only output folders,
// contradictions, out-of-range items, unknown runs in a labels sheet, unbounded counts, damaged or
// planted bundles and gzip bombs. Each is one line naming what to fix, exit 2, no stack trace, and
// nothing left behind; a process that has not exited after 10 s fails its test.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../servers/openai-server.js';
import { bin, cleanEnv, runDirs, scriptedRespond, startCli, type CliResult } from '../run/cli-helpers.js';
import { tarPack, tarUnpack } from '../../src/util/tar.js';
import { sha256 } from '../../src/util/hash.js';

let tmp: string;
let llm: OpenAIServer;
let cacheDir: string;
let runDir: string;

/** Runs the CLI; a process still running after 10 s is killed and fails the test. */
async function cli(args: string[], env: NodeJS.ProcessEnv = cleanEnv({}, cacheDir)): Promise<CliResult> {
  const { child, done } = startCli(args, { cwd: tmp, env });
  let killed = false;
  const t = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, 10_000);
  const r = await done;
  clearTimeout(t);
  expect(killed, `still running after 10 s: ${args.join(' ')}`).toBe(false);
  return r;
}

/** The contract: exit 2, one line on stderr (no stack trace), nothing on stdout. */
async function oneLine(args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  const r = await cli(args, env);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^react-repro: /);
  expect(lines[0]).not.toMatch(/internal error| {4}at /);
  expect(r.code).toBe(2);
  return lines[0];
}

const model = () => ['--base-url', llm.baseURL, '--model', 'test-model'];

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-hostile-in-'));
  cacheDir = path.join(tmp, 'cache');
  llm = await startOpenAIServer({ respond: scriptedRespond });
  const results = path.join(tmp, 'results');
  const r = await cli(['run', '--method', 'cot', '--indices', '0,1', ...model(), '--results-dir', results]);
  expect(r.code).toBe(0);
  runDir = path.join(results, runDirs(results)[0]);
});
afterAll(async () => {
  await llm.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('paths under /proc and /sys, missing or read-only folders', () => {
  it('each /proc path ends at once with one line naming the flag', async () => {
    const r = path.join(tmp, 'r-proc');
    expect(await oneLine(['merge', runDir, runDir, '--out', '/proc/1/m'])).toMatch(
      /^react-repro: merge --out: \/proc\/1\/m is under \/proc, a kernel pseudo-filesystem/,
    );
    expect(
      await oneLine(['run', '--method', 'cot', '--limit', '1', ...model(), '--cache-path', '/proc/1/x/c.sqlite', '--results-dir', r]),
    ).toMatch(/^react-repro: --cache-path: \/proc\/1\/x\/c\.sqlite is under \/proc/);
    expect(await oneLine(['run', '--method', 'cot', '--limit', '1', ...model(), '--results-dir', r], cleanEnv({}, '/proc/1/x'))).toMatch(
      /^react-repro: REACT_REPRO_CACHE_DIR: \/proc\/1\/x is under \/proc/,
    );
    for (const rec of ['/proc/1/x/rec.jsonl', '/proc/x.jsonl']) {
      expect(
        await oneLine([
          'run',
          '--method',
          'react',
          '--limit',
          '1',
          ...model(),
          '--cache',
          'off',
          '--wiki',
          `record:${rec}`,
          '--results-dir',
          r,
        ]),
      ).toMatch(/^react-repro: --wiki record:.*is under \/proc/);
    }
    expect(await oneLine(['report', runDir, '--out', '/proc/1/r.md'])).toMatch(/^react-repro: --out: \/proc\/1\/r\.md is under \/proc/);
    expect(await oneLine(['bundle', runDir, '--out', '/proc/x.tar.gz'])).toMatch(
      /^react-repro: bundle --out: \/proc\/x\.tar\.gz is under \/proc/,
    );
    expect(await oneLine(['export', runDir, '--format', 'jsonl', '--out', '/proc/x.jsonl'])).toMatch(
      /^react-repro: --out: \/proc\/x\.jsonl is under \/proc/,
    );
    expect(await oneLine(['export', runDir, '--format', 'jsonl', '--out', '/sys/x.jsonl'])).toMatch(/is under \/sys/);
    expect(fs.existsSync(r)).toBe(false);
  });

  it('--out in a folder that does not exist: bundle and export name it', async () => {
    expect(await oneLine(['bundle', runDir, '--out', 'missing/b.tar.gz'])).toBe(
      `react-repro: bundle --out missing/b.tar.gz: the folder ${path.join(tmp, 'missing')} does not exist`,
    );
    expect(await oneLine(['export', runDir, '--format', 'jsonl', '--out', 'missing/e.jsonl'])).toBe(
      `react-repro: --out missing/e.jsonl: the folder ${path.join(tmp, 'missing')} does not exist`,
    );
    expect(fs.existsSync(path.join(tmp, 'missing'))).toBe(false);
  });

  it('merge --out on a read-only file system', async (ctx) => {
    const ro = path.join(tmp, 'ro');
    fs.mkdirSync(ro);
    let mounted = false;
    try {
      if (process.getuid?.() === 0) {
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=64k', 'tmpfs', ro], { stdio: 'ignore' });
        mounted = true;
      } else fs.chmodSync(ro, 0o555);
    } catch {
      return ctx.skip('root without permission to mount a read-only tmpfs');
    }
    try {
      expect(await oneLine(['merge', runDir, '--out', path.join(ro, 'merged')])).toMatch(
        new RegExp(
          `^react-repro: merge --out: ${ro}/merged: ${ro} (is on a read-only file system|is not writable by this user): choose a writable folder$`,
        ),
      );
    } finally {
      if (mounted) execFileSync('umount', [ro]);
      else fs.chmodSync(ro, 0o755);
    }
  });
});

describe('bad flags and files at start', () => {
  it('--games with two games and --indices 42: refused before any run folder', async () => {
    const games = JSON.parse(
      fs.readFileSync(path.join(path.dirname(bin), '..', 'envs/alfworld/eval_out_of_distribution_134_games.json'), 'utf8'),
    );
    const two = path.join(tmp, 'two.json');
    fs.writeFileSync(two, JSON.stringify(Array.isArray(games) ? games.slice(0, 2) : games));
    const r = path.join(tmp, 'r-games');
    const line = await oneLine([
      'run',
      '--task',
      'alfworld',
      '--games',
      two,
      '--indices',
      '42',
      '--env-url',
      'http://127.0.0.1:1',
      ...model(),
      '--results-dir',
      r,
    ]);
    expect(line).toBe(`react-repro: --indices: 42 is not one of the 2 games of --games ${two} (its items: 0, 1)`);
    expect(fs.existsSync(r)).toBe(false);
  });

  it('--resume ID --method X names --method, not the identity field', async () => {
    const id = path.basename(runDir);
    const line = await oneLine(['run', '--resume', id, '--method', 'standard', ...model(), '--results-dir', path.dirname(runDir)]);
    expect(line).toBe(
      `react-repro: --resume ${id}: --method is standard here but cot in that run: drop --method to resume it, or leave out --resume to start a new run`,
    );
  });

  it('--env-url with --wiki snapshot is a contradiction, not a silent live run', async () => {
    expect(
      await oneLine([
        'run',
        '--method',
        'react',
        '--limit',
        '1',
        '--env-url',
        'http://127.0.0.1:1',
        '--wiki',
        'snapshot',
        ...model(),
        '--results-dir',
        path.join(tmp, 'r-c'),
      ]),
    ).toBe(
      'react-repro: --env-url and --wiki snapshot contradict each other: --env-url names a live site, --wiki snapshot the offline pages (give one)',
    );
  });

  it('a Wikipedia site that is not an http(s) URL is refused naming the flag it was given with', async () => {
    const r = path.join(tmp, 'r-env-scheme');
    const run = (...flags: string[]) => oneLine(['run', '--method', 'react', '--limit', '1', ...flags, ...model(), '--results-dir', r]);
    const expected = (flag: string) =>
      `react-repro: ${flag} ftp://127.0.0.1:1: expected an http(s) base URL such as https://en.wikipedia.org`;
    expect(await run('--env-url', 'ftp://127.0.0.1:1')).toBe(expected('--env-url'));
    expect(await run('--wiki', 'live', '--wiki-url', 'ftp://127.0.0.1:1')).toBe(expected('--wiki-url'));
    expect(fs.existsSync(r)).toBe(false);
  });

  it('an environment URL with a query or fragment is refused in one line naming the flag, never showing the query; nothing written', async () => {
    // The servers take no query: a key put there would never be sent (README "Reliability").
    const secret = 'QUERYVAL0123456789';
    const refusal = (flag: string, shown: string) =>
      `react-repro: ${flag} ${shown}: the URL may not carry a query or fragment: give the site's base URL; this server takes no query (a key in it would never be sent)`;
    const r = path.join(tmp, 'r-env-query');
    const run = (task: string, ...flags: string[]) =>
      oneLine(['run', '--task', task, '--method', 'react', '--limit', '1', ...flags, ...model(), '--results-dir', r]);
    const cases: [() => Promise<string>, string][] = [
      [
        () => run('hotpotqa', '--wiki', 'live', '--wiki-url', `http://127.0.0.1:1/w?token=${secret}&v=${secret}`),
        refusal('--wiki-url', 'http://127.0.0.1:1/w?...'),
      ],
      // a pool of mirrors: the member with the fragment is named, its userinfo redacted
      [
        () => run('fever', '--wiki', 'api', '--wiki-url', `http://127.0.0.1:1,http://u:${secret}@127.0.0.1:2/#${secret}`),
        refusal('--wiki-url', 'http://***@127.0.0.1:2/#...'),
      ],
      // QA's --env-url names the Wikipedia site (it stands for --wiki-url): the message names --env-url
      [() => run('hotpotqa', '--env-url', `http://127.0.0.1:1/?Key=${secret}`), refusal('--env-url', 'http://127.0.0.1:1/?...')],
      [() => run('alfworld', '--env-url', `http://127.0.0.1:1?x=${secret}`), refusal('--env-url', 'http://127.0.0.1:1?...')],
      [
        () => run('alfworld', '--env-url', `http://127.0.0.1:1,http://127.0.0.1:2/?key=${secret}`),
        refusal('--env-url', 'http://127.0.0.1:2/?...'),
      ],
      [() => run('webshop', '--env-url', `http://127.0.0.1:1/?api-version=${secret}`), refusal('--env-url', 'http://127.0.0.1:1/?...')],
    ];
    for (const [line, expected] of cases) {
      const got = await line();
      expect(got).toBe(expected);
      expect(got).not.toContain(secret);
    }
    expect(fs.existsSync(r)).toBe(false);
  });

  it('--dry-run refuses an environment URL with a query or fragment as the run does (the same line, exit 2)', async () => {
    const refusal = (flag: string, shown: string) =>
      `react-repro: ${flag} ${shown}: the URL may not carry a query or fragment: give the site's base URL; this server takes no query (a key in it would never be sent)`;
    const r = path.join(tmp, 'r-env-query-dry');
    const dry = (task: string, ...flags: string[]) =>
      oneLine(['run', '--task', task, '--method', 'react', '--limit', '1', ...flags, ...model(), '--results-dir', r, '--dry-run']);
    expect(await dry('hotpotqa', '--wiki', 'live', '--wiki-url', 'http://127.0.0.1:1/w?token=QV')).toBe(
      refusal('--wiki-url', 'http://127.0.0.1:1/w?...'),
    );
    expect(await dry('fever', '--wiki', 'api', '--wiki-url', 'http://127.0.0.1:1,http://u:p@127.0.0.1:2/#QV')).toBe(
      refusal('--wiki-url', 'http://***@127.0.0.1:2/#...'),
    );
    expect(await dry('hotpotqa', '--env-url', 'http://127.0.0.1:1/?Key=QV')).toBe(refusal('--env-url', 'http://127.0.0.1:1/?...'));
    expect(await dry('alfworld', '--env-url', 'http://127.0.0.1:1,http://127.0.0.1:2/?key=QV')).toBe(
      refusal('--env-url', 'http://127.0.0.1:2/?...'),
    );
    expect(await dry('webshop', '--env-url', 'http://127.0.0.1:1/?api-version=QV')).toBe(refusal('--env-url', 'http://127.0.0.1:1/?...'));
    expect(fs.existsSync(r)).toBe(false);
  });

  it('--samples 100000 and --max-steps 99999999999999 are bounded', async () => {
    const r = path.join(tmp, 'r-bounds');
    expect(await oneLine(['run', '--method', 'cot-sc', '--limit', '1', '--samples', '100000', ...model(), '--results-dir', r])).toBe(
      'react-repro: --samples: expected a positive integer up to 128 (CoT-SC samples), got 100000',
    );
    expect(
      await oneLine(['run', '--method', 'react', '--limit', '1', '--max-steps', '99999999999999', ...model(), '--results-dir', r]),
    ).toBe('react-repro: --max-steps: expected code, paper or a positive integer up to 1000, got "99999999999999"');
    expect(fs.existsSync(r)).toBe(false);
  });

  it('a labels sheet naming an unknown run is refused', async () => {
    const labels = path.join(tmp, 'labels.csv');
    fs.writeFileSync(labels, 'run,method,idx,outcome,label,auto_tags,note\nno-such-run,cot,0,incorrect,,,\n');
    expect(await oneLine(['report', path.dirname(runDir), '--labels', labels])).toBe(
      `react-repro: ${labels}:2: run "no-such-run" is not one of the runs of this report: report the folder that holds it, or remove its rows`,
    );
  });

  it('wiki search "" and bundle with no argument answer in our words', async () => {
    expect(await oneLine(['wiki', 'search', ''])).toBe(
      'react-repro: wiki: the entity is empty: give a page title, e.g. wiki search "Pavel Urysohn"',
    );
    expect(await oneLine(['bundle'])).toBe(
      'react-repro: bundle: name the finished run folders to pack, e.g. react-repro bundle results/RUN_ID --out run.tar.gz',
    );
  });
});

describe('bundles: damaged inputs, killed writers, bombs, planted settings', () => {
  it('a damaged completions.sqlite is one line', async () => {
    const bad = path.join(tmp, 'bad.sqlite');
    fs.writeFileSync(bad, Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(4096, 0xab)]));
    const line = await oneLine(['bundle', runDir, '--out', path.join(tmp, 'd.tar.gz'), '--cache-path', bad]);
    expect(line).toMatch(
      new RegExp(`^react-repro: bundle: the completion cache ${bad} cannot be read \\(.+\\); name a sound copy with --cache-path$`),
    );
    expect(fs.existsSync(path.join(tmp, 'd.tar.gz'))).toBe(false);
  });

  it('a bundle killed while writing leaves no temp file once bundle runs again', async () => {
    const out = path.join(tmp, 'k.tar.gz');
    // what a kill -9 between the temp write and the rename leaves (PID 2^22+1 is not a live process)
    const stale = `${out}.tmp-4194305-deadbeef`;
    fs.writeFileSync(stale, 'partial');
    const r = await cli(['bundle', runDir, '--out', out]);
    expect(r.code).toBe(0);
    expect(fs.readdirSync(tmp).filter((n) => n.startsWith('k.tar.gz.tmp-'))).toEqual([]);
    expect(fs.existsSync(out)).toBe(true);
  });

  it('after a cut recording.jsonl, bundle names the file and the line', async () => {
    const cut = path.join(tmp, 'cut', path.basename(runDir));
    fs.mkdirSync(cut, { recursive: true });
    for (const f of fs.readdirSync(runDir)) if (f !== '.lock') fs.copyFileSync(path.join(runDir, f), path.join(cut, f));
    const rec = path.join(cut, 'recording.jsonl');
    const text = fs.readFileSync(rec, 'utf8');
    fs.writeFileSync(rec, text.slice(0, text.length - 40)); // cut inside the last line
    const lines = text.slice(0, text.length - 40).split('\n').length;
    const line = await oneLine([
      'bundle',
      cut,
      '--out',
      path.join(tmp, 'cut.tar.gz'),
      '--cache-path',
      path.join(cacheDir, 'completions.sqlite'),
    ]);
    expect(line).toMatch(
      new RegExp(
        `^react-repro: bundle: ${rec}:${lines}: the recording is cut short there \\(a torn line\\), so item \\d+ has no complete recording`,
      ),
    );
    expect(line).not.toMatch(/before recordings existed/);
  });

  it('a 1 MB bundle inflating to 1 GB is refused while the process stays under 600 MB', async (ctx) => {
    if (!fs.existsSync('/usr/bin/time')) return ctx.skip('/usr/bin/time is not installed');
    // 16 gzip members of 64 MB of zeros each: one valid gzip stream of 1 GB, about 1 MB on disk
    const member = zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
    const bomb = path.join(tmp, 'bomb.tar.gz');
    fs.writeFileSync(bomb, Buffer.concat(Array.from({ length: 16 }, () => member)));
    expect(fs.statSync(bomb).size).toBeLessThan(2 * 1024 * 1024);
    const res = spawnSync(
      '/usr/bin/time',
      ['-v', process.execPath, bin, 'run', '--from-bundle', bomb, '--results-dir', path.join(tmp, 'r-bomb')],
      {
        cwd: tmp,
        env: cleanEnv({}, cacheDir),
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    const lines = res.stderr.split('\n').filter((l) => l.startsWith('react-repro:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/bomb\.tar\.gz: refused: it inflates to more than \d+ bytes .*a compression bomb$/);
    expect(res.stderr).toMatch(/Exit status: 2/);
    const rssKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(res.stderr)?.[1]);
    expect(rssKb).toBeGreaterThan(0);
    expect(rssKb).toBeLessThan(600 * 1024);
    expect(fs.existsSync(path.join(tmp, 'r-bomb'))).toBe(false);
  });

  /** The bundle of the cot run with its run manifest's settings edited (bundle.json's sha256 and size updated). */
  async function plantedBundle(name: string, edit: (settings: Record<string, unknown>) => void): Promise<string> {
    const good = path.join(tmp, 'good.tar.gz');
    if (!fs.existsSync(good)) expect((await cli(['bundle', runDir, '--out', good])).code).toBe(0);
    const members = tarUnpack(zlib.gunzipSync(fs.readFileSync(good)), good);
    const i = members.findIndex((m) => /^runs\/[^/]+\/manifest\.json$/.test(m.name));
    const manifest = JSON.parse(members[i].data.toString('utf8'));
    edit(manifest.settings);
    members[i] = { ...members[i], data: Buffer.from(JSON.stringify(manifest, null, 2) + '\n') };
    const head = JSON.parse(members[0].data.toString('utf8'));
    for (const m of head.members)
      if (m.path === members[i].name) Object.assign(m, { size: members[i].data.length, sha256: sha256(members[i].data) });
    members[0] = { ...members[0], data: Buffer.from(JSON.stringify(head, null, 2) + '\n') };
    const out = path.join(tmp, `${name}.tar.gz`);
    fs.writeFileSync(out, zlib.gzipSync(tarPack(members)));
    return out;
  }

  it('a bundle planting an unknown setting is refused in one line', async () => {
    const b = await plantedBundle('unknown', (s) => (s.plantedKey = 'x'));
    const line = await oneLine(['run', '--from-bundle', b, '--results-dir', path.join(tmp, 'r-unknown')]);
    expect(line).toMatch(/unknown\.tar\.gz:runs\/.*\/manifest\.json: unknown field "settings\.plantedKey"$/);
    expect(fs.existsSync(path.join(tmp, 'r-unknown'))).toBe(false);
  });

  it('paths in a bundle are never taken: the re-run and a later --resume create nothing outside --results-dir', async () => {
    const elsewhere = path.join(tmp, 'elsewhere');
    const b = await plantedBundle('paths', (s) => {
      s.cachePath = path.join(elsewhere, 'planted.sqlite');
      s.wiki = `record:${path.join(elsewhere, 'rec.jsonl')}`;
      s.resultsDir = path.join(elsewhere, 'results');
    });
    const results = path.join(tmp, 'r-paths');
    const r = await cli(['run', '--from-bundle', b, '--results-dir', results]);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    const [id] = runDirs(results);
    const settings = JSON.parse(fs.readFileSync(path.join(results, id, 'manifest.json'), 'utf8')).settings;
    expect(settings.cachePath).toBeUndefined();
    expect(String(settings.wiki ?? '')).not.toMatch(/record:|replay:/);
    expect(settings.resultsDir).toBe(results);
    const again = await cli(['run', '--resume', id, ...model(), '--results-dir', results]);
    expect(again.stderr).not.toMatch(/internal error/);
    expect(fs.existsSync(elsewhere)).toBe(false);
  });
});
