// Prints vitest's JSON report as the plain closing line CI reads: "N passed, N failed[, N skipped]".
import { readFileSync, existsSync } from 'node:fs';

const path = process.argv[2];
if (!existsSync(path)) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const report = JSON.parse(readFileSync(path, 'utf8'));
const failedSuites = report.testResults.filter((suite) => suite.status === 'failed' && suite.assertionResults.length === 0).length;
const failed = report.numFailedTests + failedSuites;
const skipped = report.numPendingTests + report.numTodoTests;
console.log(`${report.numPassedTests} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || report.numPassedTests === 0 ? 1 : 0);
