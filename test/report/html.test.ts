// The HTML report as text: self-contained, every piece of model text escaped or inside the JSON
// block with "<" escaped, the prompt once per run; the SVG plot never has NaN. (The same page in a
// real browser: html-chromium.test.ts.)
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { browserData, commonLinePrefix, recordedPrompt, runPrompt } from '../../src/report/html/episodes.js';
import { pageData, renderHtmlChunks, renderHtmlReport, scriptJson, tableHtml } from '../../src/report/html/render.js';
import { labellingData, type LabellingData, type LabellingRow } from '../../src/report/html/labelling.js';
import { analysisLookup, sampleRuns as table2Sample } from '../../src/report/table2.js';
import { methodLabels } from '../../src/report/names.js';
import { episodeCorrectness } from '../../src/report/correct.js';
import '../../src/benchmarks/builtin.js';
import { benchmarkNames, getBenchmark } from '../../src/benchmarks/registry.js';
import { loadRun } from '../../src/report/load.js';
import { qaRecords, writeRun } from './run-folders.js';
import { linePlotSvg } from '../../src/report/svg.js';
import { COT_PROMPT, PAYLOAD_CLOSE, PAYLOAD_IMG, PAYLOAD_SCRIPT, REACT_PROMPT, sampleRuns } from './sample-runs.js';
import { NASTY, table1, wideRuns } from './sample-tables.js';
import { SWEEP_PROMPT, sweepRun, sweepRuns } from './html-sweep-runs.js';
import type { EpisodeRecord } from '../../src/runlog/schema.js';
import type { ReportTable } from '../../src/report/model.js';

describe('few-shot prompt once per run', () => {
  it('commonLinePrefix stops at a line end', () => {
    expect(commonLinePrefix(['ab\ncd\nQuestion: x', 'ab\ncd\nQuestion: y'])).toBe('ab\ncd\n');
    expect(commonLinePrefix(['abc', 'abd'])).toBe('');
    expect(commonLinePrefix([])).toBe('');
  });

  it('runPrompt is the shared exemplars, also for a one-episode run', () => {
    const [react, cot] = sampleRuns();
    expect(runPrompt(react!.records)).toBe(REACT_PROMPT);
    expect(runPrompt(cot!.records)).toBe(COT_PROMPT);
    const one = react!.records.slice(0, 1);
    expect(runPrompt(one)).toBe(REACT_PROMPT);
  });

  it('a run whose every episode is an error before any trajectory has no prompt to show (null), not an empty one', () => {
    const idx = [0, 1, 2];
    const [react] = sampleRuns();
    const outage = { ...react!, records: qaRecords(idx, 'eee') };
    expect(outage.records.every((r) => r.traj === '' && r.error)).toBe(true);
    const d = browserData([outage, react!]);
    expect(d.runs.map((r) => r.prompt)).toEqual([null, REACT_PROMPT]);
    // Its episodes' own text is what they recorded: nothing.
    expect(d.episodes.slice(0, 3).map((e) => e.text)).toEqual(['', '', '']);
    // Trajectories that share no prompt: an empty one, known; the text printed before a trajectory stays ''.
    expect(
      recordedPrompt([
        { traj: 'abc', input: 'x' },
        { traj: 'abd', input: 'y' },
      ]),
    ).toBe('');
    expect(runPrompt(outage.records)).toBe('');
  });

  it("browserData keeps each episode's own text, outcome by the primary metric, tags and extras", () => {
    const d = browserData(sampleRuns());
    expect(d.runs.map((r) => [r.benchmark, r.method, r.primary])).toEqual([
      ['hotpotqa', 'react', 'em'],
      ['hotpotqa', 'cot', 'em'],
      ['alfworld', 'act', 'success'],
    ]);
    expect(d.episodes.map((e) => e.outcome)).toEqual(['correct', 'incorrect', 'error', 'incorrect', 'correct', 'correct', 'incorrect']);
    for (const e of d.episodes) expect(e.text).not.toContain('Musician and satirist');
    expect(d.episodes[0]!.text.startsWith('Question: What is the elevation range')).toBe(true);
    expect(d.episodes[1]!.extras).toMatchObject({ forced_finish: false, n_calls: 1 });
    expect(d.episodes[5]!.tags).toEqual(['repeated-action']);
    expect(d.episodes[2]!.error).toBe('llm: endpoint unreachable after 5 retries');
    const tagged = browserData(sampleRuns(), { extraTags: (_run, r) => (r.error ? ['infra'] : []) });
    expect(tagged.episodes[2]!.tags).toEqual(['infra']);
  });
});

describe('renderHtmlReport', () => {
  const html = renderHtmlReport({
    title: `Report ${NASTY}`,
    tables: [table1(), wideRuns()],
    figures: [
      {
        title: 'Figure 2',
        svg: linePlotSvg({
          xLabel: 'CoT-SC samples',
          yLabel: 'EM (%)',
          series: [
            {
              name: 'CoT-SC',
              points: [
                { x: 1, y: 30 },
                { x: 2, y: 32 },
              ],
            },
          ],
        }),
      },
    ],
    runs: sampleRuns(),
  });

  it('loads nothing from outside and runs only its own script', () => {
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
    expect(html).not.toMatch(/<link\b/);
    expect(html).toContain('default-src &#39;none&#39;');
    // One script runs (ours, by hash); every other script element is a data block: JSON, or a block's
    // compressed bodies (base64: no markup can be in it).
    expect(html.match(/<script>/g)).toHaveLength(1);
    const bodies = html.match(/<script type="application\/octet-stream" class="episode-bodies">[A-Za-z0-9+/=]*<\/script>/g)!;
    expect(bodies).toHaveLength(1);
    expect(html.match(/<script\b/g)!.length - 1).toBe(html.match(/<script type="application\/json"/g)!.length + bodies.length);
    expect(html).toMatch(/<script type="application\/json" id="report-data">/);
  });

  it('puts the default Runs table in a section of its own, which scrolls sideways instead of the page (style.ts)', () => {
    expect(html).toMatch(
      /<section id="runs"><h2>Runs<\/h2>\n<section class="report-table" id="table-runs"><table class="runs">[^]*?<\/table><\/section>/,
    );
  });

  it('escapes every piece of run and model text', () => {
    // The only "<script" are ours; no payload tag appears unescaped anywhere.
    for (const p of [PAYLOAD_SCRIPT, PAYLOAD_IMG, PAYLOAD_CLOSE]) expect(html).not.toContain(p);
    expect(html).not.toMatch(/<img\b/i);
    expect(html).toContain('<code>react-hotpotqa-paper500-aaaa</code>');
    expect(html).toContain('evil-model &lt;img src=x onerror=&quot;window.__pwned = 2; alert(&#39;img&#39;)&quot;&gt;');
    // The JSON block round-trips to the same data.
    const json = [...html.matchAll(/<script type="application\/json"[^>]*>([^]*?)<\/script>/g)].map((m) => m[1]!).join('\n');
    expect(json).not.toContain('<');
    expect(pageData(html)).toEqual(browserData(sampleRuns()));
    // The prompt is in the page once per run that has it.
    expect(json.split('Musician and satirist').length - 1).toBe(1);
  });

  it('closes a block early when its bodies pass about 16 million characters, and the page reads back the same', () => {
    // 40 episodes of ~1 MB trajectories: blocks of 16, 16 and 8 (each block holds what fits).
    const run = sweepRun(0, 40);
    const long = (r: EpisodeRecord) => ({ ...r, traj: `${SWEEP_PROMPT}${'x'.repeat(1_000_000)}${r.idx}` }) as EpisodeRecord;
    const source = run.source!;
    run.source = {
      ...source,
      read: (idx: number) => long(source.read(idx)),
      *each(idxs: Iterable<number>) {
        for (const r of source.each(idxs)) yield long(r);
      },
    };
    const page = renderHtmlReport({ tables: [], figures: [], runs: [run] });
    const sizes = [...page.matchAll(/<script type="application\/json" class="episode-block">([^<]*)<\/script>/g)].map(
      (m) => (JSON.parse(m[1]!.slice(m[1]!.lastIndexOf('\n') + 1)) as { n: number }).n,
    );
    expect(sizes).toEqual([16, 16, 8]);
    const episodes = pageData(page).episodes;
    expect(episodes.map((e) => e.idx)).toEqual(Array.from({ length: 40 }, (_, k) => k));
    expect(episodes[39]!.text.endsWith('x39')).toBe(true);
  });

  it('writes the episodes in blocks of 1,000 lines of JSON and their bodies compressed, which read back to the same data', () => {
    // 3,000 episodes over four runs: blocks that start and end inside a run, and a tag list in one.
    const runs = sweepRuns(750);
    const page = renderHtmlReport({ tables: [], figures: [], runs });
    const re =
      /<script type="application\/json" class="episode-block">([^<]*)<\/script>\n<script type="application\/octet-stream" class="episode-bodies">([^<]*)<\/script>/g;
    const pairs = [...page.matchAll(re)].map((m) => ({ block: m[1]!, bodies: m[2]! }));
    expect(pairs).toHaveLength(3);
    expect(page.match(/class="episode-(block|bodies)"/g)).toHaveLength(6);
    const blocks = pairs.map((p) => p.block);
    // A block: its rows, then its index; JSON holds no raw line break, so one line each.
    for (const b of blocks) expect(b.split('\n')).toHaveLength(1000 + 1);
    // Its bodies: one gzip member of the bodies' lines, base64; no trajectory text in the page as text.
    for (const p of pairs) {
      const lines = gunzipSync(Buffer.from(p.bodies, 'base64')).toString('utf8').split('\n');
      expect(lines).toHaveLength(1000);
      expect(Object.keys(JSON.parse(lines[999]!) as object).sort()).toEqual(['error', 'extras', 'input', 'steps', 'text']);
    }
    expect(page).not.toContain('Thought 1: think');
    expect(page).not.toContain('zebra-needle');
    expect(JSON.parse(blocks[1]!.split('\n')[1000]!)).toEqual({
      n: 1000,
      run: [1, 500, 2, 500],
      idx: [250, 500, 0, 500],
      outcome: expect.stringMatching(/^[cie]{1000}$/),
      sets: [[]],
      tags: Array(1000).fill(0),
    });
    expect(page).not.toContain('id="ep-');
    expect(pageData(page)).toEqual(browserData(runs));
    // a page whose blocks have no bodies after them (another layout) is refused, not read as empty
    expect(() => pageData(page.replace(/<script type="application\/octet-stream" class="episode-bodies">[^<]*<\/script>\n/g, ''))).toThrow(
      /without its bodies/,
    );
  });

  it('scriptJson escapes what could end a script element', () => {
    expect(scriptJson({ a: '</script><!-- & \u2028' })).toBe('{"a":"\\u003c/script\\u003e\\u003c!-- \\u0026 \\u2028"}');
  });

  it('tables: group headings, one decimal, — for nothing, paper rows marked', () => {
    const t = tableHtml(table1());
    expect(t).toContain('<th colspan="4" class="group">HotpotQA (EM)</th>');
    expect(t).toContain('<td class="num">78.9</td>');
    expect(t).toContain('<td class="num">—</td>');
    expect(t).toContain('<tr class="paper"><th scope="row">Supervised SoTA</th>');
    expect(t).not.toContain('NaN');
  });

  it("a note's `code` is set as code, as LaTeX sets it in typewriter type and Markdown as a code span, its text escaped", () => {
    const t = tableHtml({ ...table1(), notes: ['Label them: `react-repro report RUNS --label-sheet <FILE>`, then `--labels FILE`.'] });
    expect(t).toContain(
      '<li>Label them: <code>react-repro report RUNS --label-sheet &lt;FILE&gt;</code>, then <code>--labels FILE</code>.</li>',
    );
  });

  it('the Runs table sets its run id on a line under its row, not as a column', () => {
    const runs: ReportTable = {
      id: 'runs',
      title: 'Runs',
      rowHeader: 'Benchmark / method',
      columns: [
        { key: 'run', label: 'Run', underRow: true },
        { key: 'model', label: 'Model', identifies: true },
        { key: 'em', label: 'EM', numeric: true },
      ],
      rows: [
        {
          label: 'HotpotQA ReAct',
          source: 'ours',
          cells: { run: 'hotpotqa-react-<x>', model: 'm', em: 33.333 },
          ci: { em: { lo: 10, hi: 50 } },
        },
      ],
      notes: [],
    };
    expect(tableHtml(runs, { className: 'runs' })).toContain(
      [
        '<tr><th>Benchmark / method</th><th>Model</th><th class="num">EM</th><th>95% CI</th></tr>',
        '</thead>',
        '<tbody>',
        '<tr class="ours lined"><th scope="row">HotpotQA ReAct</th><td>m</td><td class="num">33.3</td><td>[10.0, 50.0]</td></tr>',
        '<tr class="ours under-row"><td colspan="4"><div class="row-line">Run: <span class="v">hotpotqa-react-&lt;x&gt;</span></div></td></tr>',
        '</tbody>',
      ].join('\n'),
    );
  });

  it("a published number's source and caveat go on lines under its row, as in LaTeX; a row without a caveat has no Caveat line", () => {
    const published: ReportTable = {
      id: 'published-elsewhere',
      title: 'Published elsewhere',
      columns: [
        { key: 'model', label: 'Model', identifies: true },
        { key: 'value', label: 'Value', numeric: true },
        { key: 'source', label: 'Source', underRow: true },
        { key: 'caveat', label: 'Caveat', underRow: true },
      ],
      rows: [
        {
          label: 'ReAct',
          source: 'paper',
          cells: { model: 'PaLM-540B', value: 29.4, source: 'Table 5, Yao et al.', caveat: 'a <b> caveat' },
        },
        { label: 'ReAct', source: 'published', cells: { model: 'text-davinci-003', value: 35.4, source: 'ysymyth/ReAct#9', caveat: null } },
      ],
      notes: [],
    };
    expect(tableHtml(published)).toContain(
      [
        '<tr><th></th><th>Model</th><th class="num">Value</th></tr>',
        '</thead>',
        '<tbody>',
        '<tr class="paper lined"><th scope="row">ReAct</th><td>PaLM-540B</td><td class="num">29.4</td></tr>',
        '<tr class="paper under-row"><td colspan="3"><div class="row-line">Source: <span class="v">Table 5, Yao et al.</span></div><div class="row-line">Caveat: <span class="v">a &lt;b&gt; caveat</span></div></td></tr>',
        '<tr class="published lined"><th scope="row">ReAct</th><td>text-davinci-003</td><td class="num">35.4</td></tr>',
        '<tr class="published under-row"><td colspan="3"><div class="row-line">Source: <span class="v">ysymyth/ReAct#9</span></div></td></tr>',
        '</tbody>',
      ].join('\n'),
    );
  });
});

describe('linePlotSvg', () => {
  it('leaves gaps for missing points and never writes NaN', () => {
    const svg = linePlotSvg({
      xLabel: 'CoT-SC samples',
      yLabel: 'EM (%)',
      caption: 'n = 87 questions scored in every run',
      series: [
        { name: 'CoT-SC', points: Array.from({ length: 21 }, (_, i) => ({ x: i + 1, y: 28 + i / 2 })) },
        {
          name: 'ReAct→CoT-SC',
          points: [
            { x: 1, y: 30 },
            { x: 2, y: Number.NaN },
            { x: 3, y: null },
            { x: 4, y: 33 },
            { x: 5, y: 34 },
          ],
        },
        { name: 'ReAct <b>', points: [{ x: 1, y: null }] },
      ],
      refs: [
        { name: 'CoT-SC (paper, 21)', y: 33.4 },
        { name: 'bad', y: Number.NaN },
      ],
    });
    expect(svg).not.toMatch(/NaN|Infinity|undefined/);
    expect(svg).toContain('ReAct &lt;b&gt;');
    // The broken series: a lone dot at x=1 and a line from 4 to 5.
    const g = /<g class="series" data-series="ReAct→CoT-SC">([\s\S]*?)<\/g>/.exec(svg)![1]!;
    expect(g.match(/<polyline/g)).toHaveLength(1);
    expect(g.match(/<circle/g)).toHaveLength(3);
    expect(svg).toContain('n = 87 questions scored in every run');
  });

  it('draws empty axes that say so when nothing is scored', () => {
    const svg = linePlotSvg({
      xLabel: 'k',
      yLabel: 'EM',
      series: [
        {
          name: 'ReAct',
          points: [
            { x: 1, y: null },
            { x: 2, y: Number.NaN },
          ],
        },
      ],
    });
    expect(svg).toContain('no scored points');
    expect(svg).not.toMatch(/NaN|Infinity/);
  });
});

describe('label data', () => {
  it("names each sampled method as the tables do (CoT, not cot) for the page's sentences; the rows keep the key", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'html-label-names-'));
    const idx = [0, 1, 2, 3];
    const runs = (['react', 'cot'] as const).map((method) =>
      loadRun(writeRun(dir, { runId: `hotpotqa-${method}-x`, method, indices: idx, records: qaRecords(idx, 'rrww') })),
    );
    fs.rmSync(dir, { recursive: true, force: true });
    const benchmarks = benchmarkNames().map(getBenchmark);
    const d = labellingData(table2Sample(runs, analysisLookup(benchmarks), episodeCorrectness(benchmarks)), methodLabels(benchmarks))!;
    expect(d.methodLabels).toEqual({ react: 'ReAct', cot: 'CoT' });
    expect([...new Set(d.rows.map((r) => r.method))].sort()).toEqual(['cot', 'react']);
  });

  it('is written in pieces of rows, the same text as scriptJson of the whole', () => {
    const row = (i: number): LabellingRow => ({
      run: `run-${i % 7}`,
      benchmark: 'hotpotqa',
      method: 'react',
      idx: i,
      outcome: i % 2 ? 'incorrect' : 'correct',
      question: `${NASTY} question ${i} \u2028 & ${'x'.repeat(400)}?`,
      gold: `gold ${i}`,
      answer: `</script> ${i}`,
      auto_tags: i % 3 ? ['repeated-action'] : [],
      label_choices: 'success_a | success_b',
    });
    const labelling: LabellingData = {
      columns: ['run', 'idx', 'label'],
      categories: { hotpotqa: [{ key: 'success_a', label: 'A' }] },
      methodLabels: { react: 'ReAct' },
      rows: Array.from({ length: 5000 }, (_, i) => row(i)),
    };
    const chunks = [...renderHtmlChunks({ tables: [], figures: [], runs: [], labelling })];
    const page = chunks.join('');
    const element = /<script type="application\/json" id="label-data">(.*?)<\/script>/s.exec(page)![1];
    expect(element).toBe(scriptJson(labelling));
    expect(element.length).toBeGreaterThan(2_000_000);
    // No piece holds the whole sample: the largest is a thousand rows.
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(element.length / 4);
    expect(page.endsWith('</body></html>\n')).toBe(true);
  });
});
