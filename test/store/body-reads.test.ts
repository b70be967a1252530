import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStore } from '../../store/create-store.js';
import { PgDatabase } from '../../store/postgres/pg-database.js';
import type { Store } from '../../store/index.js';
import {
  createTempWorkspace,
  engineSuiteName,
  engineUnavailable,
  recordCall,
  STORE_ENGINES,
  type StoreEngineName,
  type TempWorkspace,
  workspaceForEachTest,
} from './store-fixtures.js';

/**
 * Reading a call's bodies, as reconstruction reads them at a chain break: the call that opened a chain, then the one
 * before it in its session (reconstruct/reconstruct-calls.ts describeBreaks). On PostgreSQL every statement waited
 * for is a round trip; the export's were nearly all such reads (issue 17, export speed).
 */

/** A tools array far over the 256-byte blob threshold, as harnesses send it every turn. */
const TOOLS = Array.from({ length: 8 }, (_, index) => ({
  type: 'function',
  function: { name: `tool_${index}`, description: `tool ${index} `.repeat(30), parameters: { type: 'object', properties: {} } },
}));

/** The request bodies of a session of `turns` calls, each resending the history and adding two messages. */
function sessionBodies(turns: number, tag: string): Array<{ requestBody: object; backendRequestBody: object }> {
  const messages: Array<Record<string, unknown>> = [{ role: 'system', content: `You are the ${tag} agent. `.repeat(40) }];
  const bodies: Array<{ requestBody: object; backendRequestBody: object }> = [];
  for (let turn = 1; turn <= turns; turn++) {
    messages.push({ role: 'user', content: `${tag} turn ${turn}: é 中文 🙂 ${'x'.repeat(turn * 7)}` });
    const history = messages.map((message) => ({ ...message }));
    bodies.push({
      requestBody: { model: 'gpt-test', messages: history, tools: TOOLS, stream: true },
      backendRequestBody: { model: 'Qwen/Qwen3-0.6B', messages: history, tools: TOOLS, stream: true, max_tokens: 64 },
    });
    messages.push({
      role: 'assistant',
      content: `${tag} answer ${turn}`,
      tool_calls: [{ id: `c${turn}`, function: { name: 'tool_1', arguments: '{}' } }],
    });
  }
  return bodies;
}

/** Records the bodies as one session's calls; returns their ids in seq order. */
function recordSession(store: Store, sessionId: string, bodies: ReturnType<typeof sessionBodies>): string[] {
  return bodies.map((body) => recordCall(store, { sessionId, ...body }));
}

/** Every field of a call's bodies as JSON text: what a reader (and an export) sees. */
function bodiesText(store: Store, callId: string): string {
  return JSON.stringify(store.getCallBodies(callId));
}

for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(engineSuiteName(engine), () => {
    const workspace = workspaceForEachTest(engine);

    it('bodies read back as written whichever calls are read first: prefixes remembered, a long history, texts past the cache', () => {
      const writer = workspace.open();
      const main = sessionBodies(6, 'main');
      // more messages than one statement fetches (16), and one text too long to be cached
      const long = sessionBodies(12, 'long');
      const huge = { role: 'user', content: 'y'.repeat(1_200_000) };
      long.push({
        requestBody: { model: 'gpt-test', messages: [huge, { role: 'user', content: 'after the paste' }] },
        backendRequestBody: { model: 'Qwen/Qwen3-0.6B', messages: [huge, { role: 'user', content: 'after the paste' }] },
      });
      const mainIds = recordSession(writer, 'main', main);
      const longIds = recordSession(writer, 'long', long);
      writer.close();
      const written = new Map([...mainIds.map((id, index) => [id, main[index]] as const), ...longIds.map((id, index) => [id, long[index]] as const)]);
      const reader = workspace.open({ readonly: true });
      // a chain break's order (a later call, then the one before it), then back and forth, then the same again
      const order = [mainIds[4], mainIds[3], mainIds[0], mainIds[5], longIds[12], longIds[11], longIds[2], mainIds[3], longIds[12]] as string[];
      for (const callId of order) {
        const bodies = reader.getCallBodies(callId);
        const body = written.get(callId) as { requestBody: object; backendRequestBody: object };
        expect(JSON.stringify(bodies?.requestBody)).toBe(JSON.stringify(body.requestBody));
        expect(JSON.stringify(bodies?.backendRequestBody)).toBe(JSON.stringify(body.backendRequestBody));
        expect(bodies?.responseBody).not.toBeNull();
      }
    });
  });
}

/** The JSON of every call's bodies of both sessions, read in a chain break's order, on one engine. */
function readAllBodies(engine: StoreEngineName): string[] {
  const workspace = createTempWorkspace(engine);
  try {
    const writer = workspace.open();
    const ids = [...recordSession(writer, 'main', sessionBodies(5, 'main')), ...recordSession(writer, 'other', sessionBodies(3, 'other'))];
    writer.close();
    const reader = workspace.open({ readonly: true });
    return [...ids].reverse().map((callId) => bodiesText(reader, callId));
  } finally {
    workspace.cleanup();
  }
}

describe.skipIf(engineUnavailable('postgres'))(`both engines ${engineSuiteName('postgres')}`, () => {
  it('read the same bodies, byte for byte', () => {
    const [sqlite, postgres] = [readAllBodies('sqlite'), readAllBodies('postgres')];
    expect(postgres).toHaveLength(8);
    expect(postgres).toEqual(sqlite);
  });
});

describe.skipIf(engineUnavailable('postgres'))(`round trips of body reads ${engineSuiteName('postgres')}`, () => {
  let workspace: TempWorkspace;
  beforeEach(() => {
    workspace = createTempWorkspace('postgres');
  });
  afterEach(() => workspace.cleanup());

  /** A store over a connection of its own, so its statements and round trips can be counted (nothing cached yet). */
  function countedReader(): { store: Store; database: PgDatabase } {
    const database = new PgDatabase({ connectionString: workspace.databasePath, readonly: true });
    const store = createStore({
      database,
      label: 'counted',
      readonly: true,
      bytesOnDisk: () => 0,
      integrityCheck: () => 'ok',
      close: () => database.close(),
    });
    return { store, database };
  }

  /**
   * Before (2026-12): the opener's row, its request's walk and one read per blob not cached yet (8 messages and the
   * tools), its backend request's walk: 12; the row and two walks for the call before it: 3. Now the row of the call
   * before comes with the opener's, its list is a prefix of the opener's (remembered from the walk), and a body's
   * missing texts come in one statement: 3 and 0.
   */
  it('a chain break reads the opening call in three round trips and the call before it in none', () => {
    const writer = workspace.open();
    const bodies = sessionBodies(4, 'main');
    const ids = recordSession(writer, 'main', bodies);
    writer.close();
    const { store, database } = countedReader();
    try {
      const waits = (read: () => void): number => {
        const before = database.sent.roundTrips;
        read();
        return database.sent.roundTrips - before;
      };
      let opener = '';
      let previous = '';
      const roundTrips = {
        opener: waits(() => (opener = bodiesText(store, ids[3] as string))),
        previous: waits(() => (previous = bodiesText(store, ids[2] as string))),
      };
      expect(roundTrips).toEqual({ opener: 3, previous: 0 });
      expect(JSON.parse(opener).requestBody).toEqual(bodies[3]?.requestBody);
      expect(JSON.parse(previous).backendRequestBody).toEqual(bodies[2]?.backendRequestBody);
    } finally {
      store.close();
    }
  });
});
