import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerFleetMetrics } from '../../../gateway/metrics/register-fleet-metrics.js';
import { closedPort } from '../../helpers/closed-port.js';
import { closeAfterEach, createTestFleet, startSims, vllmSpec } from '../backends/fleet/fleet-test-helpers.js';
import { sampleValue } from './metric-value.js';

const { cleanups, track } = closeAfterEach();

describe('registerFleetMetrics', () => {
  it('exposes each replica by its id: in flight, calls, errors by code, sessions pinned, state, token ids, first token and tokens', async () => {
    const sims = await startSims(1);
    cleanups.push(sims.close);
    const port = await closedPort();
    const fleet = track(createTestFleet([vllmSpec('vllm-1', sims.urls[0]!), vllmSpec('vllm-2', `http://127.0.0.1:${port}`)]));
    const registry = new Registry();
    registerFleetMetrics(registry, fleet);
    await fleet.start();
    const open = fleet.pick({ model: null, sessionId: 'session-a', exclude: new Set() });
    fleet.pick({ model: null, sessionId: null, exclude: new Set() }).release({ ok: false, code: 'TT_BACKEND_ERROR' });
    fleet.pick({ model: null, sessionId: null, exclude: new Set() }).release({ ok: true });
    fleet.observeCall('vllm-1', { timeToFirstTokenMs: 120, totalMs: 900, completionTokens: 42 });
    fleet.observeCall('vllm-1', { timeToFirstTokenMs: null, totalMs: 10, completionTokens: 0 });

    const text = await registry.metrics();
    const one = { backend: 'vllm-1' };
    expect(open.id).toBe('vllm-1');
    expect(sampleValue(text, 'tokentap_backend_calls_in_flight', one)).toBe(1);
    expect(sampleValue(text, 'tokentap_backend_calls_total', one)).toBe(2);
    expect(sampleValue(text, 'tokentap_backend_errors_total', { ...one, code: 'TT_BACKEND_ERROR' })).toBe(1);
    expect(sampleValue(text, 'tokentap_backend_sessions_pinned', one)).toBe(1);
    expect(sampleValue(text, 'tokentap_backend_state', { ...one, state: 'up' })).toBe(1);
    expect(sampleValue(text, 'tokentap_backend_state', { backend: 'vllm-2', state: 'down' })).toBe(1);
    expect(sampleValue(text, 'tokentap_backend_state', { backend: 'vllm-2', state: 'up' })).toBe(0);
    expect(sampleValue(text, 'tokentap_backend_returns_token_ids', one)).toBe(1);
    // never probed successfully: no sample rather than a false 0
    expect(text).not.toMatch(/tokentap_backend_returns_token_ids\{backend="vllm-2"\}/);
    expect(sampleValue(text, 'tokentap_backend_time_to_first_token_seconds_count', one)).toBe(1);
    expect(sampleValue(text, 'tokentap_backend_time_to_first_token_seconds_sum', one)).toBeCloseTo(0.12);
    expect(sampleValue(text, 'tokentap_backend_completion_tokens_total', one)).toBe(42);

    open.release({ ok: true });
    fleet.drain('vllm-1');
    const later = await registry.metrics();
    expect(sampleValue(later, 'tokentap_backend_calls_in_flight', one)).toBe(0);
    expect(sampleValue(later, 'tokentap_backend_calls_total', one)).toBe(3);
    expect(sampleValue(later, 'tokentap_backend_state', { ...one, state: 'draining' })).toBe(1);
    expect(sampleValue(later, 'tokentap_backend_sessions_pinned', one)).toBe(0);
  });

  it('stops feeding the histogram once its returned function is called', async () => {
    const port = await closedPort();
    const fleet = track(createTestFleet([vllmSpec('vllm-1', `http://127.0.0.1:${port}`)]));
    const registry = new Registry();
    const stop = registerFleetMetrics(registry, fleet);
    fleet.observeCall('vllm-1', { timeToFirstTokenMs: 5, totalMs: 5, completionTokens: 1 });
    stop();
    fleet.observeCall('vllm-1', { timeToFirstTokenMs: 5, totalMs: 5, completionTokens: 1 });
    expect(sampleValue(await registry.metrics(), 'tokentap_backend_completion_tokens_total', { backend: 'vllm-1' })).toBe(1);
  });
});
