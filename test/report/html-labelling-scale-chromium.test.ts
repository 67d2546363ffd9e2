// The labelling section at a million-episode report's scale, in headless Chromium: a sample of 52,000
// trajectories (a million episodes sample 57,200) is listed virtualised, as the trajectory browser's
// episodes are: only the rows in view (and a few around them) are in the document, whether the list is
// scrolled, moved through with the keyboard or clicked; a row's label is the same when it is drawn
// again; a text-only zoom measures the rows again, a view at the end staying there. The page is built
// from the report's render functions (synthetic labelling data over the sweep of html-sweep-runs.ts,
// one row per episode), not from run folders: a report that samples 52,000 trajectories has ~900,000
// episodes. Skipped, saying why, when there is no chromium binary or no playwright-core.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chromiumSkipReason, openWrittenPage, warnIfSkipped } from '../support/chromium.js';
import { renderHtmlChunks } from '../../src/report/html/render.js';
import type { LabellingData, LabellingRow } from '../../src/report/html/labelling.js';
import { SHEET_COLUMNS } from '../../src/report/error-tags.js';
import { QA_CATEGORIES } from '../../src/benchmarks/qa/report/error-analysis.js';
import { sweepRuns } from './html-sweep-runs.js';

warnIfSkipped('html-labelling-scale-chromium.test.ts');

const PER_RUN = 13_000;
const N = 4 * PER_RUN;
const LAST = N - 1;

/** One labelling row per episode of the sweep, in run order: every third one correct. */
function labelling(): LabellingData {
  const runs = sweepRuns(PER_RUN);
  const rows: LabellingRow[] = runs.flatMap((run) =>
    run.records.map((r) => ({
      run: run.manifest.runId,
      benchmark: run.manifest.task,
      method: run.manifest.method,
      idx: r.idx,
      outcome: r.idx % 3 === 0 ? ('correct' as const) : ('incorrect' as const),
      question: `q-${r.idx}`,
      gold: 'a',
      answer: 'a',
      auto_tags: [],
      label_choices: '',
    })),
  );
  return { columns: SHEET_COLUMNS, categories: { hotpotqa: QA_CATEGORIES, fever: QA_CATEGORIES }, methodLabels: { react: 'ReAct' }, rows };
}

describe.skipIf(chromiumSkipReason !== null)(`labelling a sample of ${N.toLocaleString('en')} trajectories (Chromium)`, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'html-label-scale-'));
  const file = path.join(dir, 'report.html');
  let browser: Browser;
  let page: Page;
  let errors: string[] = [];

  beforeAll(async () => {
    const chunks = renderHtmlChunks({ title: 'Sample', tables: [], figures: [], runs: sweepRuns(PER_RUN), labelling: labelling() });
    ({ browser, page, errors } = await openWrittenPage(file, chunks, {
      ready: '#labelling[data-ready="1"]',
      timeoutMs: 60_000,
      viewport: { width: 1280, height: 900 },
    }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const items = () => page.locator('#label-list li:not(.spacer)');
  const item = (i: number) => page.locator(`#label-list li[data-index="${i}"]`);
  const drawn = () => items().evaluateAll((ns) => ns.map((n) => Number((n as HTMLElement).dataset.index)));
  const scrollTo = (where: 'top' | 'bottom') =>
    page.evaluate((w) => {
      const list = document.getElementById('label-list')!;
      list.scrollTop = w === 'top' ? 0 : list.scrollHeight;
    }, where);
  /** Whether row i is drawn wholly inside the list's visible box. */
  const inView = (i: number) =>
    page.evaluate((at) => {
      const list = document.getElementById('label-list')!;
      const li = list.querySelector(`li[data-index="${at}"]`);
      if (!li) return false;
      const box = list.getBoundingClientRect();
      const r = li.getBoundingClientRect();
      return r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
    }, i);
  const status = () => page.locator('#label-status').textContent();
  /** A text-only zoom: the root's font at `size` ('' for none), nothing resized or scrolled. */
  const zoomText = (size: string) =>
    page.evaluate((s) => {
      document.documentElement.style.fontSize = s;
    }, size);
  const twoFrames = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  /** How far the list's view is from its end (px). */
  const endGap = () =>
    page.evaluate(() => {
      const list = document.getElementById('label-list')!;
      return list.scrollHeight - list.clientHeight - list.scrollTop;
    });
  const shown = () => page.locator('#label-detail').getAttribute('data-index');

  it('lists every row with only those in view in the document, numbered and sized as the whole list', async () => {
    expect(errors).toEqual([]);
    expect(await status()).toBe(`0 of ${N} labelled · trajectory 1 of ${N}`);
    const first = await drawn();
    expect(first.length).toBeGreaterThan(5);
    expect(first.length).toBeLessThan(200);
    expect(first).toEqual(first.map((_, k) => k));
    expect(await item(0).getAttribute('class')).toBe('current ');
    expect(await item(0).getAttribute('aria-setsize')).toBe(String(N));
    // The list is as tall as every row, one row height each; its number is the row's.
    const geometry = await page.evaluate(() => {
      const list = document.getElementById('label-list')!;
      const li = list.querySelector('li:not(.spacer)')!;
      return { height: list.scrollHeight, row: li.getBoundingClientRect().height, view: list.clientHeight };
    });
    expect(Math.abs(geometry.height - N * geometry.row)).toBeLessThan(2);
    expect(geometry.view).toBeLessThanOrEqual(0.7 * 900 + 1);
    expect(await page.locator('#label-detail h3').textContent()).toBe(`1 of ${N}: hotpotqa / react #0 (correct)`);
  });

  it('scrolled to the bottom, draws the last rows; a click on one selects it, as the keys then move from it', async () => {
    await scrollTo('bottom');
    await expect.poll(async () => (await drawn()).includes(LAST)).toBe(true);
    // One scroll to the end stays at the end (a list measured short while it is redrawn clamps it back).
    expect(await endGap()).toBeLessThan(1);
    expect(await inView(LAST)).toBe(true);
    const rows = await drawn();
    expect(rows.length).toBeLessThan(200);
    expect(rows).toEqual(rows.map((_, k) => rows[0] + k));
    expect(await item(LAST).locator('.lab').textContent()).toBe('not labelled');
    expect(await item(LAST).getAttribute('value')).toBe(String(N));
    await item(LAST - 2).click();
    expect(await shown()).toBe(String(LAST - 2));
    expect(await item(LAST - 2).getAttribute('class')).toBe('current ');
    expect(await page.locator('#label-list li.current').count()).toBe(1);
    expect(await status()).toBe(`0 of ${N} labelled · trajectory ${N - 2} of ${N}`);
    // j to the last row (and no further): drawn, current, in view, its trajectory read from its block.
    for (let k = 0; k < 4; k++) await page.keyboard.press('j');
    expect(await shown()).toBe(String(LAST));
    expect(await item(LAST).getAttribute('class')).toBe('current ');
    expect(await inView(LAST)).toBe(true);
    expect(await status()).toBe(`0 of ${N} labelled · trajectory ${N} of ${N}`);
    await expect.poll(() => page.locator('#label-detail pre.label-trajectory').textContent()).toMatch(/^Question: q3-12999\n/);
  });

  it("keeps a row's label when it is scrolled away and back", async () => {
    // The last row: 12999 % 3 = 0, a correct one; 2 = success_false_positive (the last row stays current).
    await page.keyboard.press('2');
    expect(await item(LAST).getAttribute('data-label')).toBe('success_false_positive');
    await scrollTo('top');
    await expect.poll(async () => (await drawn())[0]).toBe(0);
    expect(await item(LAST).count()).toBe(0);
    await scrollTo('bottom');
    await expect.poll(async () => (await drawn()).includes(LAST)).toBe(true);
    expect(await item(LAST).getAttribute('class')).toBe('current done');
    expect(await item(LAST).getAttribute('data-label')).toBe('success_false_positive');
    expect(await item(LAST).locator('.lab').textContent()).toBe('success_false_positive');
    expect(await status()).toBe(`1 of ${N} labelled · trajectory ${N} of ${N}`);
  });

  it('moves with the keyboard to a row not drawn: the list scrolls to it (and keeps it in view)', async () => {
    await scrollTo('top');
    await expect.poll(async () => (await drawn())[0]).toBe(0);
    await item(3).click();
    // The current row scrolled out of the list's reach, k brings the list back to the row before it.
    await scrollTo('bottom');
    await expect.poll(async () => (await drawn()).includes(LAST)).toBe(true);
    expect(await item(3).count()).toBe(0);
    await page.keyboard.press('k');
    expect(await shown()).toBe('2');
    expect(await inView(2)).toBe(true);
    expect(await item(2).getAttribute('class')).toBe('current ');
    // Down past the list's height: the current row stays in view, the rows drawn stay few.
    for (let k = 0; k < 60; k++) await page.keyboard.press(k % 2 ? 'ArrowDown' : 'j');
    expect(await shown()).toBe('62');
    expect(await inView(62)).toBe(true);
    expect(await page.locator('#label-list li.current').getAttribute('data-index')).toBe('62');
    expect(await items().count()).toBeLessThan(200);
    expect(errors).toEqual([]);
  });

  it('measures its rows again after a text-only zoom (the font grows, nothing is resized or scrolled)', async () => {
    await scrollTo('top');
    await expect.poll(async () => (await drawn())[0]).toBe(0);
    const rowHeight = () => item(0).evaluate((n) => n.getBoundingClientRect().height);
    const before = await rowHeight();
    await zoomText('24px');
    const after = await rowHeight();
    expect(after).toBeGreaterThan(before * 1.3);
    // The list's height follows at once, before any scroll: every row at the new height.
    await expect.poll(() => page.evaluate(() => document.getElementById('label-list')!.scrollHeight)).toBeGreaterThan(N * after - 2);
    expect(await page.evaluate(() => document.getElementById('label-list')!.scrollHeight)).toBeLessThan(N * after + 2);
    // One scroll to the end reaches the last row.
    await scrollTo('bottom');
    await expect.poll(async () => (await drawn()).includes(LAST)).toBe(true);
    expect(await inView(LAST)).toBe(true);
    // Back from the end of the list: its height follows again.
    await zoomText('');
    await expect.poll(() => page.evaluate(() => document.getElementById('label-list')!.scrollHeight)).toBeLessThan(N * before + 2);
    // Two frames for a ResizeObserver's late report (an error event on window) to come.
    await twoFrames();
    expect(errors).toEqual([]);
  });

  it('keeps the row at the top of the view through a text-only zoom out, when the view is near the end but not at it', async () => {
    /** The row at the top of the list's view and how far into it the view's top is, as a fraction of its height. */
    const topRow = () =>
      page.evaluate(() => {
        const list = document.getElementById('label-list')!;
        const top = list.getBoundingClientRect().top;
        const li = [...list.querySelectorAll<HTMLElement>('li:not(.spacer)')].find((n) => n.getBoundingClientRect().bottom > top)!;
        const r = li.getBoundingClientRect();
        return { index: Number(li.dataset.index), into: (top - r.top) / r.height };
      });
    const rowHeight = () => item(0).evaluate((n) => n.getBoundingClientRect().height);
    await scrollTo('top');
    await expect.poll(async () => (await drawn())[0]).toBe(0);
    const small = await rowHeight();
    await zoomText('24px');
    await expect.poll(async () => (await rowHeight()) > small * 1.3).toBe(true);
    await scrollTo('bottom');
    await expect.poll(async () => (await drawn()).includes(LAST)).toBe(true);
    await twoFrames();
    const big = await item(LAST).evaluate((n) => n.getBoundingClientRect().height);
    const view = await page.evaluate(() => document.getElementById('label-list')!.clientHeight);
    // A gap to the end under what the rows drawn there lose zoomed out (those drawn at the end and
    // the gap's own: the browser then brings the scroll back to the list's new end before they are
    // measured again), with the row at the view's top far enough from the end to stay at the top.
    const most = (await drawn()).length * (big - small) * (big / small);
    const least = view * (big / small - 1) + big;
    expect(most).toBeGreaterThan(least + 2 * big);
    await page.evaluate(
      (gap) => {
        const list = document.getElementById('label-list')!;
        list.scrollTop = list.scrollHeight - list.clientHeight - gap;
      },
      Math.round((least + most) / 2),
    );
    await twoFrames();
    // The view's top halfway into its row: at a row's edge, which row is at the top is a px's choice.
    const t = await topRow();
    await page.evaluate(
      (by) => {
        document.getElementById('label-list')!.scrollTop += by;
      },
      Math.round((0.5 - t.into) * big),
    );
    await twoFrames();
    const before = await topRow();
    await zoomText('');
    await twoFrames();
    await twoFrames();
    const after = await topRow();
    expect({ index: after.index, inside: after.into > 0 && after.into < 1 }).toEqual({ index: before.index, inside: true });
    await scrollTo('top');
    await expect.poll(async () => (await drawn())[0]).toBe(0);
    expect(errors).toEqual([]);
  });

  const firstRowHeight = () =>
    items()
      .first()
      .evaluate((n) => n.getBoundingClientRect().height);
  /** The rows zoomed in (text at 24px), the view in the middle of the list, its frames passed. */
  async function zoomedInAtMiddle() {
    const small = await firstRowHeight();
    await zoomText('24px');
    await expect.poll(async () => (await firstRowHeight()) > small * 1.3).toBe(true);
    await page.evaluate(() => {
      const list = document.getElementById('label-list')!;
      list.scrollTop = list.scrollHeight / 2;
    });
    await twoFrames();
    await twoFrames();
  }

  it('keeps a scroll made in the same frame as a text-only zoom out (the view moves by it)', async () => {
    const topIndex = () =>
      page.evaluate(() => {
        const list = document.getElementById('label-list')!;
        const top = list.getBoundingClientRect().top;
        return Number(
          [...list.querySelectorAll<HTMLElement>('li:not(.spacer)')].find((n) => n.getBoundingClientRect().bottom > top)!.dataset.index,
        );
      });
    await zoomedInAtMiddle();
    const before = await topIndex();
    const big = await firstRowHeight();
    // Zoomed out, and scrolled by ten rows (read after the zoom: the rows drawn are shorter by then).
    await page.evaluate(
      (by) => {
        document.documentElement.style.fontSize = '';
        document.getElementById('label-list')!.scrollTop += by;
      },
      Math.round(10 * big),
    );
    await twoFrames();
    await twoFrames();
    const moved = (await topIndex()) - before;
    expect(moved >= 9 && moved <= 11 ? '10 rows' : moved).toBe('10 rows');
    await scrollTo('top');
    await expect.poll(async () => (await drawn())[0]).toBe(0);
    expect(errors).toEqual([]);
  });

  it('ends at the end after a scroll to it (the End key) in the same frame as a text-only zoom out', async () => {
    await zoomedInAtMiddle();
    await page.evaluate(() => {
      document.documentElement.style.fontSize = '';
      const list = document.getElementById('label-list')!;
      list.scrollTop = list.scrollHeight;
    });
    await twoFrames();
    await twoFrames();
    const gap = await endGap();
    expect({ gap: gap < 1 ? 'none' : gap, last: await inView(LAST) }).toEqual({ gap: 'none', last: true });
    await scrollTo('top');
    await expect.poll(async () => (await drawn())[0]).toBe(0);
    expect(errors).toEqual([]);
  });

  it('keeps the end through a text-only zoom in, and out, when the view is at the end', async () => {
    const rowHeight = () =>
      items()
        .first()
        .evaluate((n) => n.getBoundingClientRect().height);
    const listHeight = () => page.evaluate(() => document.getElementById('label-list')!.scrollHeight);
    const before = await rowHeight();
    for (const size of ['24px', '']) {
      await scrollTo('bottom');
      await expect.poll(async () => (await drawn()).includes(LAST)).toBe(true);
      expect(await endGap()).toBeLessThan(1);
      await zoomText(size);
      // Laid out at the new height: the list as tall as its rows at it; then the scroll's frames.
      await expect.poll(async () => Math.abs((await listHeight()) / N - (await rowHeight()))).toBeLessThan(0.01);
      await twoFrames();
      const gap = await endGap();
      expect.soft({ size, gap: gap < 1 ? 'none' : gap, last: await inView(LAST) }).toEqual({ size, gap: 'none', last: true });
    }
    expect(await rowHeight()).toBe(before);
    await scrollTo('top');
    await expect.poll(async () => (await drawn())[0]).toBe(0);
    expect(errors).toEqual([]);
  });
});
