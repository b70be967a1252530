import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { harnessBin, harnessPin } from './harness-bin.js';
import { runHarness } from './run-harness.js';
import { PROOF_ANSWER, PROOF_CONTENT, PROOF_FILE, PROOF_PROMPT, proofScript, proofStepEntries } from './proof-task.js';
import { startProofRun, type ProofRun } from './start-proof-run.js';
import { expectSessionMatchesSim } from './expect-session-matches-sim.js';
import { HARNESS_BACKEND_LABEL } from './harness-backend.js';

const SESSION = 'opencode-proof';
const MODEL = 'Qwen/Qwen3-8B';
const PROVIDER = 'tokentap';
const TITLE = 'Harness proof';

let run: ProofRun;

beforeEach(async () => {
  run = await startProofRun({ replies: [] });
  const file = join(run.workdir.path, PROOF_FILE);
  // tool names and argument shapes as OpenCode 1.18.33 offers them (write/read take an absolute filePath);
  // it first asks for a session title, without tools
  run.sim.setScript(
    proofScript(
      {
        write: { name: 'write', arguments: { filePath: file, content: PROOF_CONTENT } },
        writeResultContains: 'Wrote file successfully',
        read: { name: 'read', arguments: { filePath: file } },
        shell: { name: 'bash', arguments: { command: `tr a-z A-Z < ${PROOF_FILE}`, description: 'Print the notes in capitals' } },
      },
      [{ match: { hasTools: false }, times: 'forever', content: TITLE }],
    ),
  );
  const configDir = join(run.home.path, '.config', 'opencode');
  mkdirSync(join(configDir, 'node_modules'), { recursive: true });
  writeFileSync(
    join(configDir, 'opencode.json'),
    JSON.stringify({
      provider: {
        [PROVIDER]: {
          npm: '@ai-sdk/openai-compatible',
          name: 'tokentap',
          options: { baseURL: run.openaiBase(SESSION), apiKey: 'sk-tokentap-fake' },
          models: { [MODEL]: { name: 'Qwen3 8B via tokentap' } },
        },
      },
      model: `${PROVIDER}/${MODEL}`,
      autoupdate: false,
      share: 'disabled',
    }),
  );
  // OpenCode npm-installs @opencode-ai/plugin into every config folder at start-up unless the folder's
  // package.json and package-lock.json already list it; they do here, so nothing is downloaded
  const dependencies = { '@opencode-ai/plugin': harnessPin('opencode').version };
  writeFileSync(join(configDir, 'package.json'), JSON.stringify({ dependencies }));
  writeFileSync(join(configDir, 'package-lock.json'), JSON.stringify({ packages: { '': { dependencies } } }));
});

afterEach(async () => {
  await run.close();
});

describe(`OpenCode ${harnessPin('opencode').version} (opencode run, OpenAI Chat Completions) through the gateway ${HARNESS_BACKEND_LABEL}`, () => {
  it('writes, reads and shouts a file with its own tools, answers, and every call is recorded token-exact', async () => {
    const result = await runHarness({
      bin: harnessBin('opencode'),
      args: ['run', '--model', `${PROVIDER}/${MODEL}`, PROOF_PROMPT],
      cwd: run.workdir.path,
      home: run.home.path,
      // no models.dev catalog, update check, LSP downloads, default plugins or sharing (they would leave the machine)
      env: {
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
        OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
        OPENCODE_DISABLE_SHARE: '1',
        OPENCODE_DISABLE_CLAUDE_CODE: '1',
      },
    });
    expect(result.exitCode, result.describe()).toBe(0);
    expect(result.stdout.trim(), result.describe()).toBe(PROOF_ANSWER);
    expect(readFileSync(run.workdir.file(PROOF_FILE), 'utf8')).toBe(PROOF_CONTENT);

    const pairs = expectSessionMatchesSim(run.gateway.store, SESSION, run.sim.log);
    const steps = proofStepEntries(1);
    const main = pairs.filter(({ record }) => record.scriptEntry !== 0);
    expect(main.map(({ record }) => record.scriptEntry)).toEqual([steps.write, steps.read, steps.shell, steps.answer]);
    expect(main.map(({ record }) => record.toolCalls.map((call) => call.name))).toEqual([['write'], ['read'], ['bash'], []]);
    // the title request is a call of the session too, recorded like the others
    expect(pairs.filter(({ record }) => record.scriptEntry === 0).map(({ record }) => record.content)).toEqual([TITLE]);
    for (const { call } of pairs) {
      expect(call.frontDoor).toBe('openai-chat');
      expect(call.metadata).toMatchObject({ sessionSource: 'path' });
      expect(String(call.metadata['user-agent'])).toContain('opencode/1.18.33');
    }
  });
});
