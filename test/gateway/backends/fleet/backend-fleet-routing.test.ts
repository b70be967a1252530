import { describe, expect, it } from 'vitest';
import { isTokentapError } from '../../../../core/errors/tokentap-error.js';
import type { BackendFleet, PickInput, ReplicaLease } from '../../../../gateway/backends/fleet/fleet-types.js';
import { closedPort } from '../../../helpers/closed-port.js';
import { closeAfterEach, createTestFleet, recordingLogger, sessionIds, startSims, vllmSpec } from './fleet-test-helpers.js';

const none: ReadonlySet<string> = new Set();
const call = (sessionId: string | null, model: string | null = null, exclude = none): PickInput => ({ model, sessionId, exclude });

/** Where each session's first call goes, releasing every lease. */
function placements(fleet: BackendFleet, sessions: string[], model: string | null = null): Map<string, string> {
  const placed = new Map<string, string>();
  for (const session of sessions) {
    const lease = fleet.pick(call(session, model));
    placed.set(session, lease.id);
    lease.release({ ok: true });
  }
  return placed;
}

/** Specs whose URLs nothing listens on: picking never touches the network, and these fleets are never started. */
async function offlineSpecs(count: number, models: string[] = []): Promise<ReturnType<typeof vllmSpec>[]> {
  const port = await closedPort();
  return Array.from({ length: count }, (_, index) => vllmSpec(`vllm-${index + 1}`, `http://127.0.0.1:${port}`, models));
}

const { cleanups, track } = closeAfterEach();

describe('session placement', () => {
  it('spreads new sessions over the replicas by rendezvous hashing, about evenly', async () => {
    const fleet = track(createTestFleet(await offlineSpecs(4)));
    const counts = new Map<string, number>();
    for (const replica of placements(fleet, sessionIds(2000)).values()) counts.set(replica, (counts.get(replica) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual(['vllm-1', 'vllm-2', 'vllm-3', 'vllm-4']);
    for (const count of counts.values()) expect(count).toBeGreaterThan(400);
  });

  it('a fifth replica takes about a fifth of the new placements, and only those move', async () => {
    const four = track(createTestFleet(await offlineSpecs(4)));
    const five = track(createTestFleet(await offlineSpecs(5)));
    const sessions = sessionIds(2000);
    const before = placements(four, sessions);
    const after = placements(five, sessions);
    const moved = sessions.filter((session) => before.get(session) !== after.get(session));
    // every session that moved went to the new replica; none moved between the old ones
    expect(new Set(moved.map((session) => after.get(session)))).toEqual(new Set(['vllm-5']));
    expect(moved.length).toBeGreaterThan(300);
    expect(moved.length).toBeLessThan(500);
  });

  it('places a session the same way in every fleet (a restarted gateway keeps prefix caches warm)', async () => {
    const specs = await offlineSpecs(3);
    const first = placements(track(createTestFleet(specs)), sessionIds(50));
    expect(placements(track(createTestFleet(specs)), sessionIds(50))).toEqual(first);
  });

  it('keeps a pinned session on its replica when a replica comes back into service', async () => {
    const fleet = track(createTestFleet(await offlineSpecs(4)));
    fleet.drain('vllm-4');
    const sessions = sessionIds(400);
    const before = placements(fleet, sessions);
    expect(new Set(before.values()).has('vllm-4')).toBe(false);
    await fleet.undrain('vllm-4');
    expect(placements(fleet, sessions)).toEqual(before);
    expect(fleet.snapshot().find((replica) => replica.id === 'vllm-4')?.sessionsPinned).toBe(0);
  });

  it('moves the sessions of a failed replica, and counts sessions pinned per replica', async () => {
    const fleet = track(createTestFleet(await offlineSpecs(3)));
    const sessions = sessionIds(300);
    const before = placements(fleet, sessions);
    const pinned = Object.fromEntries(fleet.snapshot().map((replica) => [replica.id, replica.sessionsPinned]));
    expect(pinned['vllm-1']! + pinned['vllm-2']! + pinned['vllm-3']!).toBe(300);
    fleet.markFailed('vllm-2', 'connection refused');
    expect(fleet.snapshot()[1]).toMatchObject({ state: 'down', sessionsPinned: 0 });
    const after = placements(fleet, sessions);
    for (const session of sessions) {
      if (before.get(session) === 'vllm-2') expect(after.get(session)).not.toBe('vllm-2');
      else expect(after.get(session)).toBe(before.get(session));
    }
  });

  it('forgets the least recently used session beyond pinLimit', async () => {
    const fleet = track(createTestFleet(await offlineSpecs(3), { pinLimit: 10 }));
    placements(fleet, sessionIds(25));
    expect(fleet.snapshot().reduce((sum, replica) => sum + replica.sessionsPinned, 0)).toBe(10);
  });

  it('skips the replicas a call excludes, and pins the session where it went', async () => {
    const fleet = track(createTestFleet(await offlineSpecs(2)));
    const first = fleet.pick(call('s-1'));
    first.release({ ok: false, code: 'TT_BACKEND_ERROR' });
    const retried = fleet.pick(call('s-1', null, new Set([first.id])));
    expect(retried.id).not.toBe(first.id);
    retried.release({ ok: true });
    const next = fleet.pick(call('s-1'));
    expect(next.id).toBe(retried.id);
    next.release({ ok: true });
  });
});

describe('calls without a session', () => {
  it('go to the replica with the fewest calls in flight', async () => {
    const fleet = track(createTestFleet(await offlineSpecs(3)));
    const held: ReplicaLease[] = [fleet.pick(call(null)), fleet.pick(call(null)), fleet.pick(call(null))];
    expect(held.map((lease) => lease.id).sort()).toEqual(['vllm-1', 'vllm-2', 'vllm-3']);
    const snapshot = fleet.snapshot();
    expect(snapshot.map((replica) => replica.inFlight)).toEqual([1, 1, 1]);
    held[1]!.release({ ok: true });
    expect(fleet.pick(call(null)).id).toBe(held[1]!.id);
  });

  it('take turns among equally idle replicas', async () => {
    const fleet = track(createTestFleet(await offlineSpecs(3)));
    const order: string[] = [];
    for (let index = 0; index < 6; index += 1) {
      const lease = fleet.pick(call(null));
      order.push(lease.id);
      lease.release({ ok: true });
    }
    expect(order).toEqual(['vllm-1', 'vllm-2', 'vllm-3', 'vllm-1', 'vllm-2', 'vllm-3']);
  });

  it('count calls and errors by code once per lease', async () => {
    const fleet = track(createTestFleet(await offlineSpecs(1)));
    const lease = fleet.pick(call(null));
    lease.release({ ok: false, code: 'TT_BACKEND_UNREACHABLE' });
    lease.release({ ok: true });
    fleet.pick(call(null)).release({ ok: true });
    expect(fleet.snapshot()[0]).toMatchObject({ inFlight: 0, calls: 2, errors: { TT_BACKEND_UNREACHABLE: 1 } });
  });
});

describe('pools per model', () => {
  it('routes by model name, lists the union of models, and refuses a model nobody serves with TT_MODEL_NOT_FOUND', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    const fleet = track(
      createTestFleet([vllmSpec('policy-1', url, ['policy']), vllmSpec('policy-2', url, ['policy']), vllmSpec('judge-1', url, ['judge', 'small'])]),
    );
    expect(fleet.models()).toEqual(['policy', 'judge', 'small']);
    for (const session of sessionIds(20)) expect(fleet.pick(call(session, 'policy')).id).toMatch(/^policy-/);
    expect(fleet.pick(call('s', 'small')).id).toBe('judge-1');
    // no model: the first pool
    expect(fleet.pick(call(null, null)).id).toMatch(/^policy-/);
    let thrown: unknown;
    try {
      fleet.pick(call('s', 'gpt-4o'));
    } catch (error) {
      thrown = error;
    }
    expect(isTokentapError(thrown, 'TT_MODEL_NOT_FOUND')).toBe(true);
    expect((thrown as Error).message).toContain("'gpt-4o'");
    expect((thrown as { status: number }).status).toBe(404);
  });

  it('a fleet of one pool takes any model name (the backend answers an unknown one itself)', async () => {
    const fleet = track(createTestFleet(await offlineSpecs(2, ['Qwen/Qwen3-8B'])));
    expect(['vllm-1', 'vllm-2']).toContain(fleet.pick(call('s', 'some-alias')).id);
  });

  it('sends a model no listed replica serves to the replicas whose models are unknown', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    const fleet = track(createTestFleet([vllmSpec('a', url, ['m1']), vllmSpec('b', url, ['m2']), vllmSpec('unlisted', url)]));
    expect(fleet.pick(call('s', 'm3')).id).toBe('unlisted');
    expect(fleet.pick(call('s', 'm2')).id).toBe('b');
  });

  it('leases the replica down longest when none of the pool is up (a restarting backend keeps being tried)', async () => {
    const fleet = track(createTestFleet(await offlineSpecs(3)));
    fleet.markFailed('vllm-2', 'Inference backend unreachable (ECONNREFUSED)');
    fleet.markFailed('vllm-1', 'Inference backend unreachable (ECONNREFUSED)');
    expect(fleet.pick(call('s')).id).toBe('vllm-3');
    fleet.markFailed('vllm-3', 'Inference backend unreachable (ECONNREFUSED)');
    expect(fleet.pick(call('s')).id).toBe('vllm-2');
    expect(fleet.pick(call(null, null, new Set(['vllm-2']))).id).toBe('vllm-1');
  });

  it('answers TT_BACKEND_UNAVAILABLE naming each replica when every one of the pool is drained or failed this call', async () => {
    const fleet = track(createTestFleet(await offlineSpecs(2)));
    fleet.markFailed('vllm-1', 'Inference backend unreachable (ECONNREFUSED)');
    fleet.drain('vllm-2');
    let thrown: unknown;
    try {
      fleet.pick(call('s', null, new Set(['vllm-1'])));
    } catch (error) {
      thrown = error;
    }
    expect(isTokentapError(thrown, 'TT_BACKEND_UNAVAILABLE')).toBe(true);
    expect((thrown as Error).message).toContain('vllm-1 failed this call, down (Inference backend unreachable (ECONNREFUSED))');
    expect((thrown as Error).message).toContain('vllm-2 draining');
    expect((thrown as { status: number }).status).toBe(503);
  });
});

describe('failures, health checks and drain', () => {
  it('markFailed takes a replica out, logs it once, and a passing health check brings it back', async () => {
    const sims = await startSims(2);
    cleanups.push(sims.close);
    const { logger, lines } = recordingLogger();
    const fleet = track(createTestFleet([vllmSpec('vllm-1', sims.urls[0]!), vllmSpec('vllm-2', sims.urls[1]!)], { logger }));
    await fleet.start();
    fleet.markFailed('vllm-1', 'Inference backend unreachable (ECONNRESET)');
    fleet.markFailed('vllm-1', 'Inference backend unreachable (ECONNRESET)');
    expect(lines.filter((line) => line.level === 'warn' && line.fields.backend === 'vllm-1')).toHaveLength(1);
    expect(fleet.snapshot()[0]).toMatchObject({ state: 'down', lastError: 'Inference backend unreachable (ECONNRESET)' });
    for (const session of sessionIds(20)) expect(fleet.pick(call(session)).id).toBe('vllm-2');
    await fleet.checkHealth();
    expect(fleet.snapshot()[0]).toMatchObject({ state: 'up', lastError: null });
    expect(new Set(sessionIds(200).map((session) => fleet.pick(call(`new-${session}`)).id))).toEqual(new Set(['vllm-1', 'vllm-2']));
  });

  it('a health check takes down a replica that stopped answering', async () => {
    const sims = await startSims(2);
    cleanups.push(sims.close);
    const fleet = track(createTestFleet([vllmSpec('vllm-1', sims.urls[0]!), vllmSpec('vllm-2', sims.urls[1]!)]));
    await fleet.start();
    await sims.sims[1]!.close();
    await fleet.checkHealth();
    expect(fleet.snapshot()[1]).toMatchObject({ state: 'down' });
    expect(fleet.snapshot()[1]!.lastError).toMatch(/^GET \/health: Inference backend unreachable/);
  });

  it('drain stops new calls and moves its sessions while in-flight calls finish; undrain puts it back', async () => {
    const fleet = track(createTestFleet(await offlineSpecs(2)));
    const sessions = sessionIds(100);
    const before = placements(fleet, sessions);
    const running = fleet.pick(call(null));
    const drained = fleet.drain(running.id);
    expect(drained).toMatchObject({ id: running.id, state: 'draining', draining: true, inFlight: 1, sessionsPinned: 0 });
    for (const session of sessions) expect(fleet.pick(call(session)).id).not.toBe(running.id);
    running.release({ ok: true });
    expect(fleet.snapshot().find((replica) => replica.id === running.id)?.inFlight).toBe(0);
    expect((await fleet.undrain(running.id)).state).toBe('up');
    // the sessions that moved stay where they went (their new replica has their prefix now)
    const moved = sessions.filter((session) => before.get(session) === running.id);
    for (const session of moved) expect(fleet.pick(call(session)).id).not.toBe(running.id);
  });

  it('undrain of a down replica checks its health first', async () => {
    const sims = await startSims(1);
    cleanups.push(sims.close);
    const fleet = track(createTestFleet([vllmSpec('vllm-1', sims.urls[0]!)]));
    fleet.drain('vllm-1');
    fleet.markFailed('vllm-1', 'Inference backend unreachable (ECONNREFUSED)');
    expect(fleet.snapshot()[0]!.state).toBe('down');
    const undrained = await fleet.undrain('vllm-1');
    expect(undrained).toMatchObject({ state: 'up', draining: false, lastError: null });
  });

  it('drain and undrain of an unknown id throw TT_BACKEND_NOT_FOUND', async () => {
    const fleet = track(createTestFleet(await offlineSpecs(1)));
    expect(() => fleet.drain('nope')).toThrow(/No backend replica 'nope'/);
    await expect(fleet.undrain('nope')).rejects.toMatchObject({ code: 'TT_BACKEND_NOT_FOUND', status: 404 });
  });
});
