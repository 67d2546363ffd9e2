// The "Published elsewhere" table of the HTML report on a laptop's window, in headless Chromium: over a
// results folder as the shipped experiments make it (every benchmark, so every published number with
// its long sources, file paths and caveats), the table fits its section at 1024 px and 1280 px, so
// neither the page nor the table's box scrolls sideways, and every source and caveat is there whole.
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
import type { ReportTable } from '../../src/report/model.js';
import { writeShippedResults } from './shipped-results.js';

warnIfSkipped('html-published-layout-chromium.test.ts');

describe.skipIf(chromiumSkipReason !== null)('the Published elsewhere table of the HTML report on a laptop, in headless Chromium', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'react-html-published-'));
  const file = path.join(dir, 'report.html');
  let published: ReportTable;
  let browser: Browser;
  const errors: string[] = [];

  beforeAll(async () => {
    const content = buildReport(
      loadRuns([writeShippedResults(path.join(dir, 'results'))], { warn: () => {} }),
      benchmarkNames().map(getBenchmark),
    );
    published = content.sections.flatMap((s) => s.tables).find((t) => t.id === 'published-elsewhere')!;
    fs.writeFileSync(file, renderHtml(content));
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const open = (width: number): Promise<Page> => openReport(browser, file, { width, height: 800 }, errors);

  /** The page's and the table's widths against what the window and the table's section give them. */
  const widths = (page: Page) => tableWidths(page, '#table-published-elsewhere table');

  it('the report has the table, with sources long enough to need the room', () => {
    // Every benchmark's published numbers: the paper's tables, other repositories' files, threads.
    expect(new Set(published.rows.map((r) => r.cells.benchmark))).toEqual(new Set(['HotpotQA', 'FEVER', 'ALFWorld', 'WebShop']));
    expect(published.rows.length).toBeGreaterThan(20);
    expect(Math.max(...published.rows.map((r) => String(r.cells.source).length))).toBeGreaterThan(100);
  });

  for (const width of [1024, 1280])
    it(`fits a ${width} px window: neither the page nor the table's box scrolls sideways, every source and caveat there`, async () => {
      const page = await open(width);
      const w = await widths(page);
      expect(w.page).toBeLessThanOrEqual(w.window);
      expect(w.table).toBeLessThanOrEqual(w.section);
      expect(w.sectionScroll).toBeLessThanOrEqual(w.section);
      // No information lost: each row's source and caveat (where it has one) is in the table, whole.
      const text = (await page.locator('#table-published-elsewhere table').textContent())!;
      for (const r of published.rows) {
        expect(text).toContain(String(r.cells.source));
        if (r.cells.caveat) expect(text).toContain(String(r.cells.caveat));
      }
      await page.close();
    });

  it('logged no console error', () => {
    expect(errors).toEqual([]);
  });
});
