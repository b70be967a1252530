import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createSimBackend } from '../../../../sim/index.js';
import { closedPort } from '../../../helpers/closed-port.js';
import { closeAfterEach, createTestFleet, recordingLogger, startSims, vllmSpec } from './fleet-test-helpers.js';

const CLI = fileURLToPath(new URL('../../../../dist/cli/main.js', import.meta.url));

const { cleanups, track } = closeAfterEach();

describe('the start-up probe', () => {
  it('finds a vLLM replica: its flavour, version, models, and that it returns token ids (asked for a token when its version says nothing)', async () => {
    const sim = await createSimBackend({ fast: true, modelName: 'Qwen/Qwen3-8B', serverVersion: 'tokentap-sim' });
    const generations: unknown[] = [];
    sim.app.addHook('preHandler', async (request) => {
      if (request.url === '/v1/completions') generations.push(request.body);
    });
    const url = await sim.listen();
    cleanups.push(() => sim.close());
    const { logger, lines } = recordingLogger();
    const fleet = track(createTestFleet([vllmSpec('vllm-1', url)], { logger }));
    await fleet.start();
    expect(fleet.snapshot()[0]).toMatchObject({
      id: 'vllm-1',
      flavour: 'vllm',
      state: 'up',
      models: ['Qwen/Qwen3-8B'],
      capabilities: {
        version: 'tokentap-sim',
        detectedFlavour: 'vllm',
        models: ['Qwen/Qwen3-8B'],
        returnsTokenIds: true,
        tokenIdsNote: null,
        incrementalStreaming: false,
      },
    });
    expect(fleet.models()).toEqual(['Qwen/Qwen3-8B']);
    // the probe's one generation: one token, token ids asked, the served model named
    expect(generations).toEqual([{ model: 'Qwen/Qwen3-8B', prompt: 'Hi', max_tokens: 1, temperature: 0, stream: false, return_token_ids: true }]);
    expect(sim.log.map((record) => record.completionTokenIds.length)).toEqual([1]);
    expect(lines.find((line) => line.message === 'backend replica ready')?.fields).toMatchObject({ backend: 'vllm-1', returnsTokenIds: true });
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
  });

  it('takes a vLLM at 0.10.2 or later at its version: it returns token ids, and nothing is generated', async () => {
    const sim = await createSimBackend({ fast: true, modelName: 'Qwen/Qwen3-8B', serverVersion: '0.10.2' });
    const url = await sim.listen();
    cleanups.push(() => sim.close());
    const fleet = track(createTestFleet([vllmSpec('vllm-1', url)]));
    await fleet.start();
    expect(fleet.snapshot()[0]).toMatchObject({ state: 'up', capabilities: { version: '0.10.2', detectedFlavour: 'vllm', returnsTokenIds: true } });
    expect(sim.log).toEqual([]);
    // 0.10.1 predates return_token_ids: asked, and the one token shows whether it comes back
    const old = await createSimBackend({ fast: true, modelName: 'Qwen/Qwen3-8B', serverVersion: '0.10.1' });
    const oldUrl = await old.listen();
    cleanups.push(() => old.close());
    const oldFleet = track(createTestFleet([vllmSpec('vllm-old', oldUrl)]));
    await oldFleet.start();
    expect(old.log.map((record) => record.completionTokenIds.length)).toEqual([1]);
  });

  it('finds an SGLang replica: its version and streaming mode from /get_server_info, its models, its token ids', async () => {
    const sim = await createSimBackend({ flavour: 'sglang', fast: true, modelName: 'Qwen/Qwen3-8B', incrementalStreamingOutput: true });
    const url = await sim.listen();
    cleanups.push(() => sim.close());
    const { logger, lines } = recordingLogger();
    // configured as vLLM and asked to detect: the single --backend-url replica pointed at SGLang
    const fleet = track(createTestFleet([{ id: 'backend', flavour: 'vllm', url, models: [], detectFlavour: true }], { logger }));
    await fleet.start();
    expect(fleet.snapshot()[0]).toMatchObject({
      flavour: 'sglang',
      state: 'up',
      models: ['Qwen/Qwen3-8B'],
      capabilities: { version: '0.5.10', detectedFlavour: 'sglang', returnsTokenIds: true, tokenIdsNote: null, incrementalStreaming: true },
    });
    expect(fleet.pick({ model: 'Qwen/Qwen3-8B', sessionId: 's', exclude: new Set() }).flavour).toBe('sglang');
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
  });

  it('notes that an SGLang without return_token_ids on its OpenAI endpoints still has token ids on /generate', async () => {
    // SGLang before PR #30917: the request model has no return_token_ids, and the answer no token-id fields
    const sim = await createSimBackend({ flavour: 'sglang', fast: true });
    sim.app.addHook('preHandler', async (request) => {
      if (request.body !== null && typeof request.body === 'object') delete (request.body as Record<string, unknown>).return_token_ids;
    });
    const url = await sim.listen();
    cleanups.push(() => sim.close());
    const { logger, lines } = recordingLogger();
    const fleet = track(createTestFleet([{ id: 'sglang-1', flavour: 'sglang', url, models: [] }], { logger }));
    await fleet.start();
    const { capabilities } = fleet.snapshot()[0]!;
    expect(capabilities.returnsTokenIds).toBe(false);
    expect(capabilities.tokenIdsNote).toContain('/generate always returns output_ids');
    expect(capabilities.tokenIdsNote).toContain('--token-faithful');
    expect(lines.find((line) => line.level === 'error')).toMatchObject({
      message: 'backend replica returns no token ids',
      fields: { backend: 'sglang-1' },
    });
  });

  it('says loudly, with what to do, when a replica answers without token ids (vLLM before 0.10.2)', async () => {
    // vLLM before 0.10.2 ignores return_token_ids (its request models allow extra fields) and has no token-id fields
    const sim = await createSimBackend({ fast: true, unrequestedTokenIds: 'absent', serverVersion: '0.10.1' });
    sim.app.addHook('preHandler', async (request) => {
      if (request.body !== null && typeof request.body === 'object') delete (request.body as Record<string, unknown>).return_token_ids;
    });
    const url = await sim.listen();
    cleanups.push(() => sim.close());
    const { logger, lines } = recordingLogger();
    const fleet = track(createTestFleet([vllmSpec('old-vllm', url)], { logger }));
    await fleet.start();
    const [replica] = fleet.snapshot();
    expect(replica).toMatchObject({ state: 'up', capabilities: { returnsTokenIds: false } });
    expect(replica!.capabilities.tokenIdsNote).toContain('vLLM 0.10.2');
    const error = lines.find((line) => line.level === 'error');
    expect(error).toMatchObject({ message: 'backend replica returns no token ids', fields: { backend: 'old-vllm' } });
    expect(String(error!.fields.note)).toContain('token_source: none');
  });

  it('starts with a replica down: it is down with its error, the others serve, and a health check brings it up once it listens', async () => {
    const sims = await startSims(1);
    cleanups.push(sims.close);
    const port = await closedPort();
    const { logger, lines } = recordingLogger();
    const fleet = track(createTestFleet([vllmSpec('vllm-1', sims.urls[0]!), vllmSpec('vllm-2', `http://127.0.0.1:${port}`)], { logger }));
    await fleet.start();
    const down = fleet.snapshot()[1]!;
    expect(down).toMatchObject({ state: 'down', capabilities: { returnsTokenIds: null } });
    expect(down.lastError).toMatch(/ECONNREFUSED/);
    expect(lines.some((line) => line.level === 'warn' && line.fields.backend === 'vllm-2')).toBe(true);
    expect(fleet.pick({ model: null, sessionId: 's', exclude: new Set() }).id).toBe('vllm-1');

    const late = await createSimBackend({ fast: true });
    await late.listen({ port });
    cleanups.push(() => late.close());
    await fleet.checkHealth();
    expect(fleet.snapshot()[1]).toMatchObject({
      state: 'up',
      lastError: null,
      capabilities: { returnsTokenIds: true, version: '0.11.0+tokentap.sim' },
    });
    expect(lines.some((line) => line.message === 'backend replica back up' && line.fields.backend === 'vllm-2')).toBe(true);
  });

  it('takes the detected flavour for a replica configured to detect it, and flags a configured one that differs', async () => {
    const sims = await startSims(2);
    cleanups.push(sims.close);
    const { logger, lines } = recordingLogger();
    const fleet = track(
      createTestFleet(
        [
          { id: 'detected', flavour: 'sglang', url: sims.urls[0]!, models: [], detectFlavour: true },
          { id: 'misconfigured', flavour: 'sglang', url: sims.urls[1]!, models: [] },
        ],
        { logger },
      ),
    );
    await fleet.start();
    expect(fleet.snapshot().map((replica) => replica.flavour)).toEqual(['vllm', 'sglang']);
    expect(fleet.pick({ model: null, sessionId: null, exclude: new Set(['misconfigured']) }).flavour).toBe('vllm');
    const mismatch = lines.filter((line) => line.level === 'error');
    expect(mismatch).toHaveLength(1);
    expect(mismatch[0]).toMatchObject({ fields: { backend: 'misconfigured', configured: 'sglang', detected: 'vllm' } });
  });
});

describe('the health checks', () => {
  it('take down a replica whose simulator process was killed, on their own interval', async () => {
    const port = await closedPort();
    const child = spawn(process.execPath, [CLI, 'sim-backend', '--port', String(port), '--fast'], { stdio: 'ignore' });
    cleanups.push(() => killed(child));
    const fleet = track(createTestFleet([vllmSpec('vllm-1', `http://127.0.0.1:${port}`)], { healthIntervalMs: 50 }));
    // the process listens a moment after it starts: the interval's checks find it up
    await fleet.start();
    await expect.poll(() => fleet.snapshot()[0]!.state, { timeout: 20_000 }).toBe('up');
    child.kill('SIGKILL');
    await expect.poll(() => fleet.snapshot()[0]!.state, { timeout: 20_000 }).toBe('down');
    expect(fleet.snapshot()[0]!.lastError).toMatch(/GET \/health/);
  });
});

async function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
