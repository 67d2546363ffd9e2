// The HTML report in headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core): it
// opens from a file with no network, shows its tables and plots, logs no console error, the filters
// work, and injected <script>/<img onerror> payloads stay text (no dialog, no execution).
// Skipped, saying why, when there is no chromium binary or no playwright-core (.ci/run installs both).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { chromiumSkipReason, launchChromium, warnIfSkipped, recordErrors } from '../support/chromium.js';
import { renderHtmlReport } from '../../src/report/html/render.js';
import { linePlotSvg } from '../../src/report/svg.js';
import { PAYLOAD_CLOSE, PAYLOAD_IMG, PAYLOAD_SCRIPT, REACT_PROMPT, sampleRuns } from './sample-runs.js';
import { table1, table3, table4 } from './sample-tables.js';
import { runCli } from '../run/cli-helpers.js';
import { qa, qaRecords, writeRun } from './run-folders.js';

warnIfSkipped('html-chromium.test.ts');

/** Opens the report file offline in headless Chromium, recording console errors, dialogs and every request. */
async function openInChromium(
  file: string,
  width: number,
  seen: { consoleErrors: string[]; dialogs: string[]; requests: string[] },
): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await recordErrors(page, seen.consoleErrors);
  page.on('dialog', (d) => {
    seen.dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('request', (r) => seen.requests.push(r.url()));
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector('body[data-ready="1"]');
  return { browser, page };
}

function figure2(): string {
  const k = Array.from({ length: 21 }, (_, i) => i + 1);
  return linePlotSvg({
    xLabel: 'CoT-SC samples',
    yLabel: 'EM (%)',
    caption: 'HotpotQA, n = 87 questions scored in every run',
    series: [
      { name: 'CoT-SC', points: k.map((x) => ({ x, y: 28 + 5 * (1 - Math.exp(-x / 5)) })) },
      { name: 'CoT-SC→ReAct', points: k.map((x) => ({ x, y: 30 + 4.5 * (1 - Math.exp(-x / 3)) })) },
      { name: 'ReAct→CoT-SC', points: k.map((x) => ({ x, y: x === 4 ? null : 31 + 4 * (1 - Math.exp(-x / 2.5)) })) },
    ],
    refs: [
      { name: 'ReAct', y: 29.2 },
      { name: 'CoT', y: 28.1 },
    ],
  });
}

describe.skipIf(chromiumSkipReason !== null)('HTML report in headless Chromium', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'react-html-'));
  const file = path.join(dir, 'report.html');
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];
  const dialogs: string[] = [];
  const requests: string[] = [];

  beforeAll(async () => {
    fs.writeFileSync(
      file,
      renderHtmlReport({
        title: 'ReAct reproduction: report test',
        tables: [table1(), table3(), table4()],
        figures: [{ title: 'Figure 2: HotpotQA EM against CoT-SC samples', svg: figure2() }],
        runs: sampleRuns(),
        generatedNote: 'Built from 3 crafted runs.',
      }),
    );
    ({ browser, page } = await openInChromium(file, 1200, { consoleErrors, dialogs, requests }));
  });

  afterAll(async () => {
    await browser?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('shows the tables, the plot and the runs, with nothing fetched', async () => {
    // Tables 1, 3 and 4, and the Runs table (each in its section: it scrolls there on a narrow window).
    expect(await page.locator('section.report-table table').count()).toBe(4);
    expect(await page.locator('#table-table1 tbody tr').count()).toBe(8);
    expect(await page.locator('#figures svg polyline').count()).toBeGreaterThanOrEqual(3);
    expect(await page.locator('#figures svg').first().isVisible()).toBe(true);
    expect(await page.locator('table.runs tbody tr').count()).toBe(3);
    expect(requests).toEqual([pathToFileURL(file).href]);
  });

  it("shows each run's prompt once, and the episodes without it", async () => {
    expect(await page.locator('#run-prompts details.prompt').count()).toBe(3);
    const text = await page.evaluate(() => document.getElementById('episode-list')!.textContent);
    expect(text).not.toContain('Musician and satirist');
  });

  it('filters by method, outcome, benchmark, tag and text', async () => {
    const count = async () => Number(await page.locator('#episode-count').getAttribute('data-count'));
    expect(await count()).toBe(7);
    await page.selectOption('#filter-method', 'cot');
    expect(await count()).toBe(2);
    expect(await page.locator('details.episode').count()).toBe(2);
    await page.selectOption('#filter-outcome', 'correct');
    expect(await count()).toBe(1);
    await page.selectOption('#filter-method', '');
    await page.selectOption('#filter-outcome', 'error');
    expect(await count()).toBe(1);
    await page.selectOption('#filter-outcome', '');
    await page.selectOption('#filter-benchmark', 'alfworld');
    expect(await count()).toBe(2);
    await page.selectOption('#filter-tag', 'step-limit');
    expect(await count()).toBe(1);
    await page.selectOption('#filter-tag', '');
    await page.selectOption('#filter-benchmark', '');
    // A search decodes the episodes' bodies first (asynchronously): its count comes when it is done.
    await page.fill('#filter-search', 'colorado OROGENY');
    await expect.poll(count).toBe(2);
    await page.fill('#filter-search', '');
    expect(await count()).toBe(7);
  });

  it('keeps the question in view in a closed row whose answer and gold are long', async () => {
    const runs = sampleRuns();
    const rec = runs[0].records[0];
    runs[0].records[0] = { ...rec, answer: 'a long answer '.repeat(30), gold: 'a long gold answer '.repeat(30) };
    const longFile = path.join(dir, 'long.html');
    fs.writeFileSync(longFile, renderHtmlReport({ title: 'long answers', tables: [], figures: [], runs }));
    const p = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await p.goto(pathToFileURL(longFile).href);
    await p.waitForSelector('body[data-ready="1"]');
    const row = p.locator('details.episode').first();
    const box = async (sel: string) => (await row.locator(sel).boundingBox())!;
    const [summary, item, ans] = [await box('summary'), await box('.item'), await box('.ans')];
    expect(await row.locator('.item').textContent()).toContain('Colorado orogeny');
    expect(item.width).toBeGreaterThan(200);
    expect(ans.x + ans.width).toBeLessThanOrEqual(summary.x + summary.width + 1);
    await p.close();
  });

  it('keeps injected markup as text: no script runs, no image loads, no dialog', async () => {
    await page.fill('#filter-search', 'onerror');
    await expect.poll(() => page.locator('#episode-count').getAttribute('data-count')).toBe('1');
    const ep = page.locator('details.episode', { hasText: 'react #6238' });
    await ep.locator('summary').click();
    await ep.locator('ol.steps').waitFor();
    const body = await ep.textContent();
    expect(body).toContain(PAYLOAD_SCRIPT);
    expect(body).toContain(PAYLOAD_IMG);
    expect(body).toContain(PAYLOAD_CLOSE);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    // Our one script, and data blocks only: the runs, one block of episodes (up to 1,000 a block) and
    // its bodies (compressed).
    expect(await page.locator('script:not([type="application/json"]):not([type="application/octet-stream"])').count()).toBe(1);
    expect(await page.locator('script[type="application/json"]').count()).toBe(2);
    expect(await page.locator('script.episode-block').count()).toBe(1);
    expect(await page.locator('script[type="application/octet-stream"].episode-bodies').count()).toBe(1);
    expect(dialogs).toEqual([]);
    // The run's model name (a payload too) is text in the runs table.
    expect(await page.locator('table.runs').textContent()).toContain(`evil-model ${PAYLOAD_IMG}`);
  });

  it('lays out thoughts, actions and observations step by step', async () => {
    await page.fill('#filter-search', 'colorado');
    await page.selectOption('#filter-method', 'react');
    await expect.poll(() => page.locator('#episode-count').getAttribute('data-count')).toBe('1');
    const ep = page.locator('details.episode').first();
    await ep.locator('summary').click();
    // The body is built on the details' toggle event, which fires after the click returns.
    await ep.locator('ol.steps').waitFor();
    const steps = ep.locator('li.step');
    expect(await steps.count()).toBe(2);
    expect(await steps.nth(0).locator('.thought').textContent()).toBe('Thought I need to search Colorado orogeny.');
    expect(await steps.nth(0).locator('.action code').textContent()).toBe('search[Colorado orogeny]');
    expect(await steps.nth(1).locator('.observation').textContent()).toBe('Observation Episode finished, reward = 1');
    await page.selectOption('#filter-method', '');
    await page.fill('#filter-search', '');
    // A view a person would see, for the record.
    const shown = page.locator('details.episode', { hasText: 'react #6238' });
    await shown.locator('summary').click();
    await shown.locator('ol.steps').waitFor();
    await page.screenshot({ path: path.join(os.tmpdir(), 'report.png'), fullPage: true });
  });

  it('logged no console error', () => {
    expect(consoleErrors).toEqual([]);
  });
});

// The same page as `react-repro report --format html` writes it, from crafted run folders: Table 1,
// Figure 2, comparisons, the runs, and the trajectory browser with the automatic Table 2 tags.
describe.skipIf(chromiumSkipReason !== null)('`react-repro report --out report.html` in headless Chromium', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'react-html-cli-'));
  const results = path.join(dir, 'results');
  const file = path.join(dir, 'report.html');
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];
  const dialogs: string[] = [];
  const requests: string[] = [];

  beforeAll(async () => {
    const idx = Array.from({ length: 12 }, (_, i) => i);
    // ReAct with an injected answer and observation, an error episode, and a step-limit episode.
    writeRun(results, {
      runId: 'hotpotqa-react-x',
      method: 'react',
      indices: idx,
      records: qaRecords(idx, 'rrrrrrwwpprr', (i) =>
        i === 6
          ? { answer: PAYLOAD_IMG, input: `question 6? ${PAYLOAD_SCRIPT}`, item: `question 6? ${PAYLOAD_SCRIPT}` }
          : i === 7
            ? { forced_finish: true }
            : {},
      ).map((r) => (r.idx === 11 ? qa(11, 'error') : r)),
    });
    writeRun(results, {
      runId: 'hotpotqa-cot-sc-x',
      method: 'cot-sc',
      indices: idx,
      records: idx.map((i) =>
        qa(i, i % 4 === 0 ? 'wrong' : 'right', {
          samples: i % 4 === 0 ? ['nothing', `gold ${i}`, 'nothing'] : [`gold ${i}`, 'x', `gold ${i}`],
        }),
      ),
    });
    writeRun(results, { runId: 'hotpotqa-cot-x', method: 'cot', indices: idx, records: qaRecords(idx, 'rrrrrwwwwwrr') });
    writeRun(results, { runId: 'hotpotqa-act-x', method: 'act', indices: idx, records: qaRecords(idx, 'rrrwwwwwwwrr') });
    const r = await runCli(['report', results, '--out', file], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    ({ browser, page } = await openInChromium(file, 1280, { consoleErrors, dialogs, requests }));
  });

  afterAll(async () => {
    await browser?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('shows Table 1 with intervals, Figure 2 as SVG, the comparisons and the runs, fetching nothing', async () => {
    const t1 = page.locator('#table-table1');
    expect(await t1.locator('tbody tr').count()).toBe(7);
    expect(await t1.locator('thead').textContent()).toContain('95% CI');
    expect(await t1.locator('tbody tr', { hasText: 'ReAct' }).first().textContent()).toMatch(/ReAct63\.6\[\d+\.\d, \d+\.\d\]1127\.430\.8/);
    expect(await page.locator('#figures svg polyline').count()).toBeGreaterThanOrEqual(3);
    expect(await page.locator('#figures figcaption').first().textContent()).toContain('n = 11 questions');
    expect(await page.locator('#comparisons table').count()).toBe(1);
    // A row per run (its run id on a line of its own under it).
    expect(await page.locator('table.runs tbody tr:not(.under-row)').count()).toBe(4);
    expect(await page.locator('table.runs tbody tr.under-row').count()).toBe(4);
    expect(requests).toEqual([pathToFileURL(file).href]);
    expect(await page.locator('body').textContent()).not.toMatch(/NaN/);
  });

  it('the trajectory browser filters by method, outcome and automatic tag; the payload stays text', async () => {
    const count = async () => Number(await page.locator('#episode-count').getAttribute('data-count'));
    expect(await count()).toBe(48);
    await page.selectOption('#filter-method', 'react');
    expect(await count()).toBe(12);
    await page.selectOption('#filter-outcome', 'error');
    expect(await count()).toBe(1);
    await page.selectOption('#filter-outcome', '');
    await page.selectOption('#filter-tag', 'step-limit');
    expect(await count()).toBe(1);
    await page.selectOption('#filter-tag', 'label-ambiguity');
    expect(await count()).toBe(2);
    await page.selectOption('#filter-tag', '');
    await page.fill('#filter-search', 'onerror');
    await expect.poll(count).toBe(1);
    const ep = page.locator('details.episode').first();
    await ep.locator('summary').click();
    await ep.locator('ol.steps').waitFor();
    expect(await ep.textContent()).toContain(PAYLOAD_IMG);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
    await page.fill('#filter-search', '');
    await page.selectOption('#filter-method', '');
    await page.screenshot({ path: path.join(os.tmpdir(), 'report-cli.png'), fullPage: true });
  });

  it('logged no console error', () => {
    expect(consoleErrors).toEqual([]);
  });
});

// A run whose every episode failed before any trajectory (an outage from its first call): its few-shot
// prompt is unknown from the records, so the list says so in a line, not "few-shot prompt (0 characters)".
describe.skipIf(chromiumSkipReason !== null)('the few-shot prompts of a run with no trajectory, in headless Chromium', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'react-html-noprompt-'));
  const file = path.join(dir, 'report.html');

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('names the run and says that no episode recorded a trajectory; a run whose episodes share no prompt says that; the others keep theirs', async () => {
    const [react, cot] = sampleRuns();
    const outage = {
      ...react!,
      manifest: { ...react!.manifest, runId: 'hotpotqa-react-outage' },
      records: qaRecords([0, 1, 2], 'eee'),
    };
    // Trajectories that share no line: no prompt shared, each episode's text its whole trajectory.
    const unshared = { ...cot!, records: cot!.records.map((r, k) => ({ ...r, traj: `${k} ${r.traj}` })) };
    fs.writeFileSync(file, renderHtmlReport({ tables: [], figures: [], runs: [outage, react!, unshared] }));
    const seen = { consoleErrors: [] as string[], dialogs: [] as string[], requests: [] as string[] };
    const { browser, page } = await openInChromium(file, 1024, seen);
    try {
      const prompts = page.locator('#run-prompts');
      expect(await prompts.locator('details.prompt').count()).toBe(1);
      expect(await prompts.textContent()).not.toContain('0 characters');
      const model = react!.manifest.model;
      expect(await prompts.locator('> *').first().textContent()).toBe(
        `hotpotqa / react · ${model} · hotpotqa-react-outage: no few-shot prompt to show (no episode recorded a trajectory)`,
      );
      expect(await prompts.locator('details.prompt summary').textContent()).toBe(
        `hotpotqa / react · ${model} · react-hotpotqa-paper500-aaaa: few-shot prompt (${REACT_PROMPT.length} characters)`,
      );
      expect(await prompts.locator('> *').last().textContent()).toBe(
        `hotpotqa / cot · ${cot!.manifest.model} · ${cot!.manifest.runId}: no few-shot prompt shared by the episodes (each shows its whole trajectory)`,
      );
      // Its episodes open to their error.
      await page.selectOption('#filter-outcome', 'error');
      const ep = page.locator('details.episode').first();
      await ep.locator('summary').click();
      await expect.poll(() => ep.textContent()).toContain('endpoint unreachable after 5 retries');
      expect(seen.consoleErrors).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
