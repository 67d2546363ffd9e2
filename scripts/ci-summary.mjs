// Prints vitest's JSON report as the plain closing line CI reads: "N passed, N failed[, N skipped]".
// Exits with vitest's status, or 1 when the report is missing (vitest crashed) or no test ran.
import fs from 'node:fs';

const [file, statusArg] = process.argv.slice(2);
const status = Number(statusArg ?? 1);
let r;
try {
  r = JSON.parse(fs.readFileSync(file, 'utf8'));
} catch {
  console.log(`vitest wrote no report (${file}); exit status ${status}`);
  console.log('0 passed, 1 failed');
  process.exit(status || 1);
}
const passed = r.numPassedTests ?? 0;
const failed = (r.numFailedTests ?? 0) + (r.numFailedTestSuites ?? 0);
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(status !== 0 ? status : passed === 0 ? 1 : 0);
