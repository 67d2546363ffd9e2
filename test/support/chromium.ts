// Headless Chromium for the report's page tests (Debian's /usr/bin/chromium driven by playwright-core;
// .ci/run installs both): where it is, why a test file is skipped without it, and one launch with the
// flags that keep the browser offline and quiet.
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let playwright: typeof import('playwright-core') | null = null;
try {
  playwright = await import('playwright-core');
} catch {
  playwright = null;
}

/** Why the Chromium tests cannot run here (null: they can). */
export const chromiumSkipReason: string | null = !fs.existsSync(CHROMIUM)
  ? `no chromium at ${CHROMIUM} (apt-get install chromium; .ci/run does)`
  : !playwright
    ? 'playwright-core is not installed (devDependency)'
    : null;

/** Says, once per test file, that it is skipped and why. */
export function warnIfSkipped(file: string): void {
  if (chromiumSkipReason) console.warn(`${file} skipped: ${chromiumSkipReason}`);
}

export function launchChromium(): Promise<Browser> {
  return playwright!.chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * The page's uncaught errors and console errors from now on, in `into` (a fresh list by default); with
 * the error events on window that carry no exception, which Chromium reports as neither (e.g.
 * "ResizeObserver loop completed with undelivered notifications."), for pages loaded after the call.
 */
export async function recordErrors(page: Page, into: string[] = []): Promise<string[]> {
  await page.addInitScript(() => {
    window.addEventListener('error', (e) => {
      if (!e.error) console.error(`window error event: ${e.message}`);
    });
  });
  page.on('pageerror', (e) => into.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') into.push(m.text());
  });
  return into;
}

/** A new page of `browser` at `viewport`, its errors recorded in `errors`, with the report at `file` loaded and ready. */
export async function openReport(
  browser: Browser,
  file: string,
  viewport: { width: number; height: number },
  errors: string[],
): Promise<Page> {
  const page = await browser.newPage({ viewport });
  await recordErrors(page, errors);
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector('body[data-ready="1"]');
  return page;
}

/** What a layout test compares: the page's width against the window's, a table's against its section's. */
export interface TableWidths {
  page: number;
  window: number;
  table: number;
  section: number;
  sectionScroll: number;
}

/** The widths of the first table `tableSelector` finds and of the section holding it, and of the page and window. */
export function tableWidths(page: Page, tableSelector: string): Promise<TableWidths> {
  return page.evaluate((selector) => {
    const table = document.querySelector(selector)!;
    const section = table.closest('section')!;
    return {
      page: document.documentElement.scrollWidth,
      window: innerWidth,
      table: Math.ceil(table.getBoundingClientRect().width),
      section: section.clientWidth,
      sectionScroll: section.scrollWidth,
    };
  }, tableSelector);
}

/**
 * Writes a page's pieces to `file` as they come (a sweep's page is larger than one string may be),
 * opens it in a new browser, errors recorded, and waits for `ready`.
 */
export async function openWrittenPage(
  file: string,
  chunks: Iterable<string>,
  opts: { ready: string; timeoutMs: number; viewport?: { width: number; height: number } },
): Promise<{ browser: Browser; page: Page; errors: string[] }> {
  const fd = fs.openSync(file, 'w');
  try {
    for (const chunk of chunks) fs.writeSync(fd, chunk);
  } finally {
    fs.closeSync(fd);
  }
  const browser = await launchChromium();
  const page = await browser.newPage(opts.viewport ? { viewport: opts.viewport } : {});
  const errors = await recordErrors(page);
  await page.goto(pathToFileURL(file).href, { timeout: opts.timeoutMs });
  await page.waitForSelector(opts.ready, { timeout: opts.timeoutMs });
  return { browser, page, errors };
}
