import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { copyStore } from '../../../store/copy-store.js';
import { openStore, type Store } from '../../../store/index.js';
import { createViewerApp } from '../../../ui/server/index.js';
import type { SessionDetail, SessionListResponse } from '../../../ui/viewer-api.js';
import { recordViewerFixture, type ViewerFixture } from '../../helpers/record-viewer-fixture.js';
import { createTestDatabase, dropTestDatabase, postgresAvailable, postgresUnavailable } from '../../helpers/test-postgres.js';

/**
 * The viewer answers the same on both engines: the fixture recorded into SQLite is copied exactly into PostgreSQL
 * (tokentap migrate's copy), and every route's JSON must be the same from each, the store's own name aside.
 */
describe.skipIf(!postgresAvailable())(postgresAvailable() ? 'the viewer API on SQLite and PostgreSQL' : `skipped: ${postgresUnavailable()}`, () => {
  let fixture: ViewerFixture;
  let postgres: string;
  const stores: Store[] = [];
  const apps: FastifyInstance[] = [];
  beforeAll(async () => {
    fixture = await recordViewerFixture();
    postgres = createTestDatabase('viewer');
    await copyStore({ from: fixture.dbPath, to: postgres, isGatewayLive: () => false });
    for (const path of [fixture.dbPath, postgres]) {
      const store = openStore({ path, readonly: true });
      stores.push(store);
      apps.push(createViewerApp({ store, storeLocation: path }));
    }
  }, 90_000);
  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const store of stores) store.close();
    if (postgres !== undefined) dropTestDatabase(postgres);
    await fixture?.remove();
  });

  async function onBoth(url: string): Promise<unknown> {
    const [sqlite, pg] = await Promise.all(apps.map((app) => app.inject({ url })));
    expect(sqlite!.statusCode, url).toBe(200);
    expect(pg!.statusCode, url).toBe(200);
    expect(pg!.json(), url).toEqual(sqlite!.json());
    return sqlite!.json();
  }

  it('every route, every sort and filter, each session, sample, call and group', async () => {
    const [sqliteSummary, pgSummary] = await Promise.all(apps.map(async (app) => (await app.inject({ url: '/ui/api/summary' })).json()));
    expect({ ...pgSummary, store: null }).toEqual({ ...sqliteSummary, store: null });
    expect(pgSummary.store.engine).toBe('postgres');
    for (const sort of ['lastCallAt', 'createdAt', 'callCount', 'promptTokens', 'completionTokens', 'reward', 'id'])
      for (const order of ['asc', 'desc']) await onBoth(`/ui/api/sessions?sort=${sort}&order=${order}&limit=4&offset=1`);
    for (const query of [
      'search=rollout',
      'search=task-',
      `group=${fixture.groupId}`,
      'minReward=0.5',
      'drift=history-edited',
      'status=completed',
      'model=nope',
    ])
      await onBoth(`/ui/api/sessions?${query}`);
    const { sessions } = (await onBoth('/ui/api/sessions')) as SessionListResponse;
    for (const { id } of sessions) {
      const detail = (await onBoth(`/ui/api/sessions/${id}`)) as SessionDetail;
      for (const strategy of ['merge', 'per-call'] as const)
        for (const summary of detail.samples[strategy]) await onBoth(`/ui/api/sessions/${id}/samples/${strategy}/${summary.index}`);
      await onBoth(`/ui/api/calls/${detail.calls[0]!.id}`);
    }
    await onBoth('/ui/api/groups');
    await onBoth(`/ui/api/groups/${fixture.groupId}`);
    await onBoth('/ui/api/stats');
    await onBoth('/ui/api/stats?strategy=per-call');
  });
});
