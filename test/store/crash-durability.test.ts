import { spawnSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineSuiteName, engineUnavailable, STORE_ENGINES, workspaceForEachTest } from './store-fixtures.js';
import { transpileStore } from './transpile-store.js';

/** Writes `count` finished calls, begins one more, then dies by SIGKILL without closing anything. */
const CHILD_SCRIPT = `
import { openStore } from './store/index.js';
const [path, countText] = process.argv.slice(2);
const count = Number(countText);
const store = openStore({ path });
const begin = (index) => store.beginCall({
  sessionId: 'killed', frontDoor: 'openai-chat', path: '/v1/chat/completions', requestedModel: 'm', backendModel: 'm',
  stream: true, samplingParams: {}, metadata: {}, startedAt: index,
  requestBody: { messages: Array.from({ length: index + 1 }, (_, turn) => ({ role: 'user', content: 'turn ' + turn })) },
  backendRequestBody: { model: 'm' },
});
for (let index = 0; index < count; index++) {
  const { callId } = begin(index);
  store.finishCall(callId, {
    status: 'ok', tokenSource: 'backend',
    promptTokenIds: Array.from({ length: 10 + index * 3 }, (_, id) => id),
    completionTokenIds: [1000 + index, 1001 + index, 1002 + index], completionLogprobs: [-1, -2, -3],
    finishReason: 'stop', stopReason: null, responseBody: { index }, responseStream: 'data: ' + index + '\\n\\n',
    usage: null, error: null, httpStatus: 200, flags: [], timeToFirstTokenMs: 1, totalMs: 2, endedAt: index + 1,
  });
}
begin(count);
process.kill(process.pid, 'SIGKILL');
`;

for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(`${engineSuiteName(engine)}: durability`, () => {
    const workspace = workspaceForEachTest(engine);

    it('every call committed before a SIGKILL is there after reopening, and the store passes its integrity check', () => {
      transpileStore(workspace.dir);
      const scriptPath = join(workspace.dir, 'kill-after-writes.mjs');
      writeFileSync(scriptPath, CHILD_SCRIPT);
      const committed = 25;

      const child = spawnSync(process.execPath, [scriptPath, workspace.databasePath, String(committed)], { encoding: 'utf8' });
      expect(child.stderr).toBe('');
      expect(child.signal).toBe('SIGKILL');
      // SQLite: the commits live in the WAL, never checkpointed into the main file: reopening must recover them
      if (engine === 'sqlite') expect(statSync(`${workspace.databasePath}-wal`).size).toBeGreaterThan(0);

      const store = workspace.open();
      expect(store.integrityCheck()).toBe('ok');
      const calls = store.listCalls('killed');
      expect(calls.map((call) => [call.seq, call.status])).toEqual([
        ...Array.from({ length: committed }, (_, index) => [index + 1, 'ok']),
        [committed + 1, 'in_progress'],
      ]);
      calls.slice(0, committed).forEach((call, index) => {
        expect(Array.from(call.promptTokenIds ?? [])).toEqual(Array.from({ length: 10 + index * 3 }, (_, id) => id));
        expect(Array.from(call.completionTokenIds ?? [])).toEqual([1000 + index, 1001 + index, 1002 + index]);
        expect(store.getCallBodies(call.id)?.responseBody).toEqual({ index });
      });
      expect(store.recoverOrphanedCalls(() => false).calls).toBe(1);
    });
  });
}
