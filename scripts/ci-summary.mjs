// Prints vitest's JSON report as the plain closing line CI reads: "N passed, N failed[, N skipped]".
// Exits with vitest's status, or 1 when the report is missing (vitest crashed) or no test ran. A third
// argument counts checks that failed outside vitest (the linter), added to the failed count.
import fs from 'node:fs';

const [file, statusArg, extraArg] = process.argv.slice(2);
const status = Number(statusArg ?? 1);
const extraFailed = Number(extraArg ?? 0);
let r;
try {
  r = JSON.parse(fs.readFileSync(file, 'utf8'));
} catch {
  console.log(`vitest wrote no report (${file}); exit status ${status}`);
  console.log(`0 passed, ${1 + extraFailed} failed`);
  process.exit(status || 1);
}
const passed = r.numPassedTests ?? 0;
// A failed file with no failed test (it did not load, or a hook threw) counts once; a file whose tests
// failed is already counted by them (numFailedTestSuites counts each describe block again).
const brokenFiles = (r.testResults ?? []).filter(
  (f) => f.status === 'failed' && !(f.assertionResults ?? []).some((a) => a.status === 'failed'),
).length;
const failed = (r.numFailedTests ?? 0) + brokenFiles + extraFailed;
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(status !== 0 ? status : passed === 0 || extraFailed > 0 ? 1 : 0);
