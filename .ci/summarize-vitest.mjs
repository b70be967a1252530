// Sums vitest JSON reports into the plain closing line CI reads: "N passed, N failed[, N skipped]".
// A report that is missing (its run crashed before writing it) counts as one failure.
// `--step=NAME:0` (or `:N`, the step's exit status) counts a CI step that is no vitest run (the lint) as one test.
import { readFileSync, existsSync } from 'node:fs';

let passed = 0;
let failed = 0;
let skipped = 0;
for (const path of process.argv.slice(2)) {
  const step = /^--step=(.+):(\d+)$/.exec(path);
  if (step) {
    if (step[2] === '0') passed += 1;
    else {
      failed += 1;
      console.log(`step failed: ${step[1]}`);
    }
    continue;
  }
  if (!existsSync(path)) {
    failed += 1;
    continue;
  }
  const report = JSON.parse(readFileSync(path, 'utf8'));
  // a test file that failed to load has no assertion results: count it as a failure too
  const brokenFiles = report.testResults.filter((suite) => suite.status === 'failed' && suite.assertionResults.length === 0).length;
  passed += report.numPassedTests;
  failed += report.numFailedTests + brokenFiles;
  skipped += report.numPendingTests + report.numTodoTests;
}
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
