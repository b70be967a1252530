import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { recordFailedCalls, type FailedCallsFixture } from '../helpers/record-failed-calls.js';

/** The built CLI (npm test builds first, as `npx tokentap` runs the built files). */
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

function runCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

let fixture: FailedCallsFixture;
beforeAll(async () => {
  fixture = await recordFailedCalls();
}, 60_000);
afterAll(() => fixture?.remove());

// issue 14: a 404 was explained as "the backend returned no token ids", as if the backend withheld them
describe('a failed call is explained by its failure, not by its missing ids', () => {
  it('diagnose names the status, HTTP status, code and message of a 404 from the backend', () => {
    const result = runCli(['diagnose', 'agent', '--db', fixture.db]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('session agent: 3 calls -> 1 sample (merge), no breaks');
    expect(result.stdout).toMatch(
      /#3 \w{8} backend_error: the call failed \(backend_error, HTTP 404, TT_BACKEND_ERROR\)\n {5}error: The model `gpt-4o` does not exist\.\n/,
    );
    expect(result.stdout).not.toContain('no token ids');
  });

  it('diagnose names an unreachable backend, and --json carries the error', () => {
    const result = runCli(['diagnose', 'down', '--db', fixture.db]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /#1 \w{8} backend_error: the call failed \(backend_error, HTTP 502, TT_BACKEND_UNREACHABLE\)\n {5}error: Inference backend unreachable \(ECONNREFUSED\)\n/,
    );
    const json = JSON.parse(runCli(['diagnose', 'down', '--db', fixture.db, '--json']).stdout) as { skipped: unknown[] };
    expect(json.skipped).toEqual([
      {
        callId: expect.any(String),
        seq: 1,
        status: 'backend_error',
        reason: 'the call failed (backend_error, HTTP 502, TT_BACKEND_UNREACHABLE)',
        error: { httpStatus: 502, code: 'TT_BACKEND_UNREACHABLE', message: 'Inference backend unreachable (ECONNREFUSED)' },
      },
    ]);
  });

  it('the export summary counts the calls with no sample under their failure', () => {
    const result = runCli(['export', '--db', fixture.db, '--format', 'jsonl', '--out', `${fixture.dir}/out.jsonl`]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      'calls with no sample: the call failed (backend_error, HTTP 404, TT_BACKEND_ERROR) 1, the call failed (backend_error, HTTP 502, TT_BACKEND_UNREACHABLE) 1\n',
    );
  });
});
