// The Runs table of the HTML report on a laptop's window, in headless Chromium: fourteen runs over
// HotpotQA and FEVER (EM, F1 and Acc with their intervals, tokens, cost, status) as `react-repro run`
// names them fit the page at 1280 px with every column, each run id whole on its line under its row;
// at 1024 px the page does not scroll sideways, and where the table is wider than its section
// (a narrower window) the section scrolls with the row labels and run ids held in view.
// Skipped, saying why, when there is no chromium binary or no playwright-core.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chromiumSkipReason, launchChromium, openReport, tableWidths, warnIfSkipped } from '../support/chromium.js';
import '../../src/benchmarks/builtin.js';
import { benchmarkNames, getBenchmark } from '../../src/benchmarks/registry.js';
import { buildReport } from '../../src/report/build.js';
import { loadRuns } from '../../src/report/load.js';
import { renderHtml } from '../../src/report/render-html.js';
import { qaRecords, writeRun } from './run-folders.js';

warnIfSkipped('html-runs-layout-chromium.test.ts');

const MODEL = 'gpt-3.5-turbo-instruct';
const METHODS = ['standard', 'cot', 'cot-sc', 'act', 'react', 'react-cot-sc', 'cot-sc-react'];
const COMBINED = new Set(['react-cot-sc', 'cot-sc-react']);
/** The run ids as `react-repro run` names runs over --indices (task, method, split, model, hash). */
const runId = (task: string, method: string) =>
  `${task}-${method}-indices-${MODEL}-${(task.length * 31 + method.length * 7).toString(16).padStart(8, '0')}`;

const HEADERS = [
  'Benchmark / method',
  'Split',
  'Model',
  'Done',
  'Errors',
  'EM',
  '95% CI',
  'F1',
  '95% CI',
  'Acc',
  '95% CI',
  'Calls',
  'Cached calls',
  'Tokens (total)',
  'Tokens (spent)',
  'Cost USD (total)',
  'Cost USD (spent)',
  'Status',
];

describe.skipIf(chromiumSkipReason !== null)('the Runs table of the HTML report on a laptop, in headless Chromium', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'react-html-runs-'));
  const results = path.join(dir, 'results');
  const file = path.join(dir, 'report.html');
  const ids: string[] = [];
  let browser: Browser;
  const errors: string[] = [];

  beforeAll(async () => {
    const idx = [0, 1, 2, 3, 4, 5];
    for (const task of ['hotpotqa', 'fever'])
      for (const method of METHODS) {
        const id = runId(task, method);
        ids.push(id);
        writeRun(results, {
          runId: id,
          task,
          method,
          split: 'indices',
          model: MODEL,
          indices: idx,
          records: qaRecords(idx, 'rwrpwr'),
          kind: COMBINED.has(method) ? 'combination' : 'run',
          sessions: [{ startedAt: '2026-01-01T00:00:00.000Z', endedAt: '2026-01-01T00:01:00.000Z', status: 'complete' }],
        });
      }
    const content = buildReport(loadRuns([results], { warn: () => {} }), benchmarkNames().map(getBenchmark));
    fs.writeFileSync(file, renderHtml(content));
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const open = (width: number, height: number): Promise<Page> => openReport(browser, file, { width, height }, errors);

  /** The page's and the Runs table's widths against what the window and its section give them. */
  const widths = (page: Page) => tableWidths(page, 'table.runs');

  it('fits a 1280 px window with every column, each run id whole under its row', async () => {
    const page = await open(1280, 900);
    const w = await widths(page);
    expect(w.page).toBeLessThanOrEqual(w.window);
    expect(w.table).toBeLessThanOrEqual(w.section);
    expect(w.sectionScroll).toBeLessThanOrEqual(w.section);
    expect(await page.locator('table.runs thead tr:last-child th').allTextContents()).toEqual(HEADERS);
    const rows = page.locator('table.runs tbody tr:not(.under-row)');
    expect(await rows.count()).toBe(14);
    expect(await rows.first().locator('td').count()).toBe(HEADERS.length - 1);
    // A run id on one line: its line is one text line high, and no wider than the section.
    const lines = await page.locator('table.runs .row-line').evaluateAll((ns) =>
      ns.map((n) => {
        const r = n.getBoundingClientRect();
        return { text: n.textContent, height: r.height, lineHeight: parseFloat(getComputedStyle(n).lineHeight) };
      }),
    );
    expect(lines.map((l) => l.text).sort()).toEqual(ids.map((id) => `Run: ${id}`).sort());
    for (const l of lines) expect(l.height).toBeLessThan(1.5 * l.lineHeight);
    await page.close();
  });

  /** The Runs section scrolled to its right end: what of the table is then inside its visible box. */
  const scrolledToEnd = (page: Page) =>
    page.evaluate(() => {
      const table = document.querySelector('table.runs')!;
      const section = table.closest('section')!;
      section.scrollLeft = section.scrollWidth;
      const box = section.getBoundingClientRect();
      const inView = (el: Element) => {
        const r = el.getBoundingClientRect();
        return r.left >= box.left - 0.5 && r.right <= box.right + 0.5;
      };
      return {
        labels: [...table.querySelectorAll('tbody th')].map(inView),
        runIds: [...table.querySelectorAll('.row-line')].map(inView),
        lastColumn: inView(table.querySelector('thead tr:last-child th:last-child')!),
      };
    });
  const allInView = { labels: Array(14).fill(true), runIds: Array(14).fill(true), lastColumn: true };

  it('at 1024 px the page does not scroll sideways and the table reads whole', async () => {
    const page = await open(1024, 768);
    const w = await widths(page);
    expect(w.page).toBeLessThanOrEqual(w.window);
    expect(await scrolledToEnd(page)).toEqual(allInView);
    await page.close();
  });

  it('a table wider than its section scrolls in it, the row labels and run ids held in view', async () => {
    const page = await open(800, 768);
    const w = await widths(page);
    expect(w.sectionScroll).toBeGreaterThan(w.section + 100);
    expect(await scrolledToEnd(page)).toEqual(allInView);
    await page.close();
  });

  it('logged no console error', () => {
    expect(errors).toEqual([]);
  });
});
