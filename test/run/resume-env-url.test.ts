// A resume of a run whose environment server's URL had credentials, as an older version recorded it: the
// message says where they were, URL by URL in a pool (src/envs/http/base-url.ts resumableBaseUrl, the rule
// the printed resume command follows too).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import '../../src/benchmarks/builtin.js';
import { UserError } from '../../src/errors.js';
import { resolveRuns } from '../../src/run/resolve-runs.js';

let results: string;
beforeEach(() => {
  results = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-env-url-'));
});
afterEach(() => fs.rmSync(results, { recursive: true, force: true }));

/** A run folder whose manifest recorded --env-url as `envUrl`. */
function oldRun(envUrl: string): void {
  const dir = path.join(results, 'r1');
  fs.mkdirSync(dir);
  const manifest = { runId: 'r1', task: 'webshop', method: 'react', split: 'dev', model: 'm', indices: [0], settings: { envUrl } };
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
}

const inQuery = new UserError(
  "--resume r1: --env-url had credentials in its URL's query, which runs never record and this server does not take: give --env-url again without its query (credentials go in the URL's userinfo, e.g. http://user:KEY@host, sent as Basic auth)",
);
const elsewhere = new UserError('--resume r1: --env-url had credentials in its URL, which runs never record: give --env-url again');

describe('resuming a run whose --env-url had credentials', () => {
  it('says which: in a query (refused now), or in a userinfo beside a harmless query, each URL of a pool on its own', () => {
    const resume = () => resolveRuns({ resume: 'r1', resultsDir: results });
    oldRun('http://e:1/?key=***');
    expect(resume).toThrow(inQuery);
    fs.rmSync(path.join(results, 'r1'), { recursive: true });
    oldRun('http://***@e:1,http://f:2/?key=***');
    expect(resume).toThrow(inQuery);
    fs.rmSync(path.join(results, 'r1'), { recursive: true });
    oldRun('http://e:1/?lang=en,http://***@f:2');
    expect(resume).toThrow(elsewhere);
    fs.rmSync(path.join(results, 'r1'), { recursive: true });
    oldRun('http://***@e:1/?lang=en');
    expect(resume).toThrow(elsewhere);
  });
});
