// CPU of parsing a Wikipedia article the way the live backend does (parseSoup, then every <p>'s and
// <ul>'s get_text, docs/protocol.md §6), on the Wikipedia stand-in's 5 KB "Colorado orogeny" page:
// - cold: the first 48 parses in a fresh process (a 48-question run parses about that many pages
//   before V8 has optimised the parser), median of --rounds fresh processes;
// - warm: CPU per parse over 2,000 parses after those.
//   npx tsx bench/html-parse.ts [--rounds 5] [--compare /work/main/src/util/bs4-html-parser.ts]
// --compare runs another checkout's parser module in the same rounds, interleaved, for a side-by-side figure.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(import.meta.url);
const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};

interface Parser {
  parseSoup(html: string): unknown;
  findAll(root: unknown, name: string): unknown[];
  getText(el: unknown): string;
}

async function child(modulePath: string, htmlFile: string): Promise<void> {
  const p = (await import(pathToFileURL(modulePath).href)) as Parser;
  const html = readFileSync(htmlFile, 'utf8');
  const once = () => {
    const soup = p.parseSoup(html);
    return [...p.findAll(soup, 'p'), ...p.findAll(soup, 'ul')].map((e) => p.getText(e)).join('').length;
  };
  let sink = 0;
  const c0 = process.cpuUsage();
  for (let k = 0; k < 48; k++) sink += once();
  const c1 = process.cpuUsage(c0);
  const W = 2000;
  const c2 = process.cpuUsage();
  for (let k = 0; k < W; k++) sink += once();
  const c3 = process.cpuUsage(c2);
  const ms = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
  process.stdout.write(JSON.stringify({ cold48: ms(c1), warm: ms(c3) / W, sink }) + '\n');
}

async function main(): Promise<void> {
  const rounds = Number(arg('rounds', '5'));
  const compare = arg('compare', '');
  const ours = path.join(path.dirname(here), '../src/util/bs4-html-parser.ts');
  const { startWikiServer } = await import('../test/servers/wiki-server.js');
  const wiki = await startWikiServer();
  const html = await (await fetch(`${wiki.url}/w/index.php?search=Colorado+orogeny`)).text();
  await wiki.close();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'html-parse-'));
  const file = path.join(dir, 'page.html');
  writeFileSync(file, html);
  const subjects = compare
    ? [
        ['this checkout', ours],
        ['--compare', compare],
      ]
    : [['this checkout', ours]];
  const results = new Map<string, { cold48: number; warm: number }[]>(subjects.map(([n]) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [name, mod] of subjects) {
      const out = spawnSync(process.execPath, ['--import', 'tsx', here, '--child', mod, file], { encoding: 'utf8' });
      if (out.status !== 0) throw new Error(`${name}: ${out.stderr}`);
      results.get(name)!.push(JSON.parse(out.stdout.trim().split('\n').pop()!));
    }
  }
  rmSync(dir, { recursive: true, force: true });
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`page: ${html.length} characters; ${rounds} fresh processes each`);
  for (const [name, mod] of subjects) {
    const rs = results.get(name)!;
    console.log(
      `${name} (${mod}): first 48 parses ${median(rs.map((x) => x.cold48)).toFixed(1)} ms CPU (median; ` +
        `${rs.map((x) => x.cold48.toFixed(1)).join(', ')}), warm ${(median(rs.map((x) => x.warm)) * 1000).toFixed(0)} µs a parse`,
    );
  }
}

const c = process.argv.indexOf('--child');
if (c > 0) await child(process.argv[c + 1], process.argv[c + 2]);
else await main();
