// The trajectory browser's compressed bodies in headless Chromium: a page of 5,000 episodes (five
// blocks; html-sweep-runs.ts) holds no trajectory text as text, yet an opened episode shows its full
// trajectory and a search finds a word that is only inside one trajectory, in the fourth block; a
// search replaced by a newer query before it is done never marks its matches.
// Skipped, saying why, when there is no chromium binary or no playwright-core. No timed assertion.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { chromiumSkipReason, launchChromium, warnIfSkipped, recordErrors } from '../support/chromium.js';
import { renderHtmlChunks } from '../../src/report/html/render.js';
import { sweepRuns } from './html-sweep-runs.js';

warnIfSkipped('html-bodies-chromium.test.ts');

const PER_RUN = 1_250;
/** The one episode whose trajectory holds "zebra-needle": run 2's last (html-sweep-runs.ts). */
const NEEDLE = 2 * PER_RUN + PER_RUN - 1;

describe.skipIf(chromiumSkipReason !== null)('compressed episode bodies in headless Chromium', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'react-html-bodies-'));
  const file = path.join(dir, 'report.html');
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  const count = () => page.locator('#episode-count').getAttribute('data-count');
  const ready = async () => {
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-ready="1"]');
  };

  beforeAll(async () => {
    const fd = fs.openSync(file, 'w');
    for (const chunk of renderHtmlChunks({ title: 'Sweep', tables: [], figures: [], runs: sweepRuns(PER_RUN) })) fs.writeSync(fd, chunk);
    fs.closeSync(fd);
    browser = await launchChromium();
    page = await browser.newPage();
    await recordErrors(page, errors);
    await ready();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('holds no trajectory as text, and an opened episode shows its full trajectory', async () => {
    const html = fs.readFileSync(file, 'utf8');
    expect(html).not.toContain('Thought 1: think');
    expect(html).not.toContain('zebra-needle');
    expect(await page.locator('script.episode-bodies').count()).toBe(5);
    expect(await count()).toBe('5000');
    const first = page.locator('#episode-list > details[data-episode="0"]');
    await first.locator(':scope > summary').click();
    const raw = first.locator('details.raw > pre');
    await raw.waitFor({ state: 'attached' });
    expect(await raw.textContent()).toBe('Question: q0-0\nThought 1: think\nAction 1: Finish[a]\n');
    expect(await first.locator('.kv .v').nth(1).textContent()).toBe('q0-0');
    expect(await page.locator('body').getAttribute('data-decoded')).toBe('1');
    await first.locator(':scope > summary').click();
    expect(errors).toEqual([]);
  });

  it('finds a word only inside one trajectory, in a later block, and opens it', async () => {
    await page.fill('#filter-search', 'ZEBRA-needle');
    await expect.poll(count).toBe('1');
    const row = page.locator('#episode-list > details').first();
    expect(await row.getAttribute('data-episode')).toBe(String(NEEDLE));
    await row.locator(':scope > summary').click();
    await row.locator('details.raw > pre').waitFor({ state: 'attached' });
    expect(await row.locator('details.raw > pre').textContent()).toBe(
      `Question: q2-${PER_RUN - 1}\nThought 1: zebra-needle\nAction 1: Finish[a]\n`,
    );
    // A word in every other trajectory, and nowhere else.
    await page.fill('#filter-search', 'think');
    await expect.poll(count).toBe('4999');
    await page.fill('#filter-search', '');
    await expect.poll(count).toBe('5000');
    expect(errors).toEqual([]);
  });

  it('a block whose bodies cannot be decoded: search stops saying which episodes, an opened one says so', async () => {
    await ready();
    // as a damaged page would be: block 0's bodies not base64 (atob throws rather than rejecting)
    await page.evaluate(() => {
      document.querySelectorAll('script.episode-bodies')[0].textContent = '!!not base64!!';
    });
    await page.fill('#filter-search', 'zebra-needle');
    await expect
      .poll(() => page.locator('#episode-count').textContent())
      .toMatch(/^Search stopped: episodes 0–999 could not be decoded \(/);
    await page.fill('#filter-search', '');
    await expect.poll(count).toBe('5000');
    const first = page.locator('#episode-list > details[data-episode="0"]');
    await first.locator(':scope > summary').click();
    await expect.poll(() => first.locator('.episode-body').first().textContent()).toMatch(/^This episode could not be decoded: /);
    expect(errors).toEqual([]);
  });

  it('a search replaced by a newer one before it is done marks nothing', async () => {
    // A fresh page: no block decoded, so the first query is still reading when the second comes.
    await ready();
    const seen = await page.evaluate(async () => {
      const count = document.getElementById('episode-count')!;
      const search = document.getElementById('filter-search') as HTMLInputElement;
      // Every value data-count takes (a record's old value is the one before it: each value once,
      // even when several are set in one task), and the texts shown.
      const olds: (string | null)[] = [];
      const texts: string[] = [];
      new MutationObserver((records) => records.forEach((r) => olds.push(r.oldValue))).observe(count, {
        attributeFilter: ['data-count'],
        attributeOldValue: true,
      });
      new MutationObserver(() => texts.push(count.textContent!)).observe(count, { childList: true, characterData: true, subtree: true });
      for (const q of ['zebra-needle', 'q1-12']) {
        search.value = q;
        search.dispatchEvent(new Event('input'));
      }
      // Waits (30 s at most: then what was shown says what went wrong) for a count.
      const until = async (n: string) => {
        for (let t = 0; t < 1500 && count.dataset.count !== n; t++) await new Promise((r) => setTimeout(r, 20));
      };
      // q1-12, q1-120..129, q1-1200..1249.
      await until('61');
      // A third search over the texts the second kept: anything the first still had to mark is done by then.
      search.value = 'zebra-needle';
      search.dispatchEvent(new Event('input'));
      await until('1');
      await new Promise((r) => setTimeout(r, 0));
      return { counts: [...olds.slice(1), count.dataset.count ?? null].filter((c) => c !== null), texts };
    });
    expect(seen.counts).toEqual(['61', '1']);
    expect(seen.texts[0]).toBe('Searching… 0 of 5000 episodes read');
    expect(seen.texts.every((t) => /^(Searching… \d+ of 5000 episodes read|\d+ of 5000 episodes)$/.test(t))).toBe(true);
    expect(errors).toEqual([]);
  });
});
