// Headless Chromium for the report's page tests (Debian's /usr/bin/chromium driven by playwright-core;
// .ci/run installs both): where it is, why a test file is skipped without it, and one launch with the
// flags that keep the browser offline and quiet.
import fs from 'node:fs';
import type { Browser } from 'playwright-core';

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
