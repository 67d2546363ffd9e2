// The HTML report on a narrow window (700, 600, 480 and 375 px: a small laptop window down to a phone),
// in headless Chromium: over a results folder as the shipped experiments make it (every table, both
// figures, the label section showing its first trajectory), one question and one observation holding
// a long unbroken token, and an episode open in the trajectory browser, the page never scrolls
// sideways: text wraps, figures shrink, and only a table too wide to wrap scrolls, in its own section,
// with the lines under its rows (a published number's source and caveat) held in view.
// Skipped, saying why, when there is no chromium binary or no playwright-core.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chromiumSkipReason, launchChromium, openReport, warnIfSkipped } from '../support/chromium.js';
import '../../src/benchmarks/builtin.js';
import { benchmarkNames, getBenchmark } from '../../src/benchmarks/registry.js';
import { buildReport } from '../../src/report/build.js';
import { loadRuns } from '../../src/report/load.js';
import { renderHtml } from '../../src/report/render-html.js';
import { writeShippedResults } from './shipped-results.js';

warnIfSkipped('html-narrow-chromium.test.ts');

/** Wider than a phone's window in any font, with no place a line may break. */
const TOKEN = 'Arthurs_Magazine_and_First_for_Women_publication_history_compared_side_by_side_1844_to_1989';

/** HotpotQA CoT's item 0 (the label section's first trajectory) asks about TOKEN and sees it in an observation. */
function withLongToken(results: string): void {
  const file = path.join(results, 'hotpotqa-cot-react500-gpt-3.5-turbo-instruct-0914-3f9c2a1b', 'episodes.jsonl');
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const question = `Which magazine was started first, per ${TOKEN}?`;
  lines[0] = lines[0].replaceAll('question 0?', question).replaceAll('Item 0 is a thing.', `Item 0 is ${TOKEN}.`);
  fs.writeFileSync(file, lines.join('\n'));
}

describe.skipIf(chromiumSkipReason !== null)('the HTML report on a narrow window, in headless Chromium', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'react-html-narrow-'));
  const file = path.join(dir, 'report.html');
  let browser: Browser;
  const errors: string[] = [];

  beforeAll(async () => {
    const results = writeShippedResults(path.join(dir, 'results'));
    withLongToken(results);
    const content = buildReport(loadRuns([results], { warn: () => {} }), benchmarkNames().map(getBenchmark));
    fs.writeFileSync(file, renderHtml(content));
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The report at `width`, its first trajectory to label shown and the episode about TOKEN open, body and text. */
  async function open(width: number): Promise<Page> {
    const page = await openReport(browser, file, { width, height: 800 }, errors);
    await page.waitForSelector('#labelling[data-ready="1"]');
    await expect.poll(() => page.locator('#label-detail pre.label-trajectory').textContent(), { timeout: 10_000 }).toContain(TOKEN);
    expect(await page.locator('#label-detail .kv .v').nth(1).textContent()).toContain(TOKEN);
    await page.fill('#filter-search', TOKEN);
    await expect.poll(() => page.locator('#episode-count').getAttribute('data-count'), { timeout: 10_000 }).toBe('1');
    const ep = page.locator('details.episode').first();
    await ep.locator('summary').click();
    await ep.locator('ol.steps').waitFor();
    await ep.locator('details.raw > summary').click();
    expect(await ep.locator('details.raw pre').textContent()).toContain(TOKEN);
    return page;
  }

  for (const width of [700, 600, 480, 375])
    it(`fits a ${width} px window: the page does not scroll sideways, and only tables' sections do`, async () => {
      const page = await open(width);
      const seen = await page.evaluate(() => {
        // Boxes a reader would scroll sideways (boxes that clip, as a closed row's ellipsis does, are not).
        const scrolling = [...document.querySelectorAll('body *')]
          .filter((e) => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX) && e.scrollWidth > e.clientWidth + 1)
          .map((e) => (e.matches('section.report-table') ? 'a table section' : `${e.tagName.toLowerCase()}#${e.id}.${e.className}`));
        // Scrolled to its end, the published table's lines under its rows are still inside its section.
        const section = document.getElementById('table-published-elsewhere')!;
        section.scrollLeft = section.scrollWidth;
        const box = section.getBoundingClientRect();
        const lines = [...section.querySelectorAll('.row-line')].map((l) => l.getBoundingClientRect());
        return {
          page: document.documentElement.scrollWidth,
          window: innerWidth,
          detailRight: document.getElementById('label-detail')!.getBoundingClientRect().right,
          scrolling: [...new Set(scrolling)],
          tableScrolls: section.scrollLeft > 0,
          linesOutside: lines.filter((l) => l.left < box.left - 0.5 || l.right > box.right + 0.5).length,
          lines: lines.length,
        };
      });
      expect(seen.page).toBeLessThanOrEqual(seen.window);
      expect(seen.detailRight).toBeLessThanOrEqual(seen.window);
      expect(seen.scrolling).toEqual(['a table section']);
      expect(seen.tableScrolls).toBe(true);
      expect(seen.lines).toBeGreaterThan(20);
      expect(seen.linesOutside).toBe(0);
      await page.close();
    });

  it('logged no console error', () => {
    expect(errors).toEqual([]);
  });
});
