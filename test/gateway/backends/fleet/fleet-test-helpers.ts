import { afterEach } from 'vitest';
import { createBackendFleet, type BackendFleetOptions } from '../../../../gateway/backends/fleet/create-backend-fleet.js';
import type { FleetLogger } from '../../../../gateway/backends/fleet/fleet-logger.js';
import type { BackendFleet, BackendSpec } from '../../../../gateway/backends/fleet/fleet-types.js';
import { createVllmBackend } from '../../../../gateway/backends/vllm.js';
import { createSimBackend, type SimBackend, type SimBackendOptions } from '../../../../sim/index.js';

/** One line a fleet logged. */
export interface LoggedLine {
  level: 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  message: string;
}

/** A logger that keeps what it is given, for assertions on the fleet's log lines. */
export function recordingLogger(): { logger: FleetLogger; lines: LoggedLine[] } {
  const lines: LoggedLine[] = [];
  const at =
    (level: LoggedLine['level']) =>
    (fields: Record<string, unknown>, message: string): void => {
      lines.push({ level, fields, message });
    };
  return { logger: { info: at('info'), warn: at('warn'), error: at('error') } as unknown as FleetLogger, lines };
}

/** A vLLM replica spec for a URL. */
export function vllmSpec(id: string, url: string, models: string[] = []): BackendSpec {
  return { id, flavour: 'vllm', url, models };
}

/** The fleet the gateway builds: one undici client per replica. Health checks only when a test asks (`checkHealth()`). */
export function createTestFleet(specs: BackendSpec[], options: Partial<BackendFleetOptions> = {}): BackendFleet {
  return createBackendFleet({
    specs,
    createClient: (spec) =>
      createVllmBackend({ backendUrl: spec.url, backendKey: spec.key, headersTimeoutMs: 10_000, bodyTimeoutMs: 10_000, connections: 4 }),
    healthIntervalMs: 3_600_000,
    ...options,
  });
}

/** N simulated vLLM servers on port 0 (fast mode unless asked otherwise), closed together. */
export async function startSims(
  count: number,
  options: SimBackendOptions = {},
): Promise<{ sims: SimBackend[]; urls: string[]; close(): Promise<void> }> {
  const sims = await Promise.all(Array.from({ length: count }, () => createSimBackend({ fast: true, ...options })));
  const urls = await Promise.all(sims.map((sim) => sim.listen()));
  return { sims, urls, close: async () => void (await Promise.all(sims.map((sim) => sim.close()))) };
}

/**
 * What a test opened, closed after each test, newest first: push a close to `cleanups`, or wrap a fleet in `track`.
 * Call it once at a test file's top level (it registers the `afterEach` hook there).
 *
 * @example
 * const { cleanups, track } = closeAfterEach();
 * const fleet = track(createTestFleet(specs));
 */
export function closeAfterEach(): { cleanups: Array<() => Promise<void>>; track(fleet: BackendFleet): BackendFleet } {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const track = (fleet: BackendFleet): BackendFleet => {
    cleanups.push(() => fleet.close());
    return fleet;
  };
  return { cleanups, track };
}

/** Session ids `session-0` ... `session-(count-1)`. */
export function sessionIds(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `session-${index}`);
}
