import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface, type Interface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { BatchWriter } from '../../../gateway/recorder/batch-writer.js';
import { openStore } from '../../../store/index.js';
import type { Store } from '../../../store/types.js';
import { postgresAvailable, postgresUnavailable } from '../../helpers/test-postgres.js';
import { createTempWorkspace, sampleBeginInput, sampleFinishInput, type TempWorkspace } from '../../store/store-fixtures.js';

/**
 * A connection lost after the server got a batch's COMMIT and before its answer came back: the gateway cannot know
 * whether the batch committed. When it had, its calls' `in_progress` rows are there, and their ends must still be
 * written (under `serve` the harness got its answer); when it had not, an end finds no row and fails as its begin did.
 * Played for real: a TCP relay in another process (the store's connection waits synchronously, so nothing on this
 * thread could relay) passes a chunk holding COMMIT to PostgreSQL, then cuts both sides without the answer.
 */
const RELAY = `
import net from 'node:net';
import { createInterface } from 'node:readline';
const [host, port] = [process.argv[1], Number(process.argv[2])];
let armed = null;
const server = net.createServer((client) => {
  const upstream = net.connect(port, host);
  let cut = false;
  client.on('data', (chunk) => {
    const commit = armed !== null && chunk.includes(Buffer.from('COMMIT\\0'));
    // 'pass': the server gets the COMMIT and commits meanwhile; 'drop': it never gets it. No answer is relayed
    if (!commit || armed === 'pass') upstream.write(chunk);
    if (commit) {
      armed = null;
      cut = true;
      setTimeout(() => { client.destroy(); upstream.destroy(); }, 300);
    }
  });
  upstream.on('data', (chunk) => { if (!cut) client.write(chunk); });
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
createInterface({ input: process.stdin }).on('line', (line) => { armed = line; console.log('armed ' + line); });
`;

let workspace: TempWorkspace | undefined;
let relay: ChildProcess | undefined;
let store: Store | undefined;
afterEach(() => {
  store?.close();
  store = undefined;
  relay?.kill();
  relay = undefined;
  workspace?.cleanup();
  workspace = undefined;
});

async function startRelay(url: URL): Promise<{ port: number; lines: Interface }> {
  relay = spawn(process.execPath, ['--input-type=module', '-e', RELAY, url.hostname, url.port], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: relay.stdout! });
  const [port] = (await once(lines, 'line')) as [string];
  return { port: Number(port), lines };
}

async function arm(lines: Interface, mode: 'pass' | 'drop'): Promise<void> {
  relay!.stdin!.write(`${mode}\n`);
  const [answer] = (await once(lines, 'line')) as [string];
  expect(answer).toBe(`armed ${mode}`);
}

describe.skipIf(!postgresAvailable())(
  `a batch whose COMMIT answer was lost${postgresAvailable() ? '' : ` (skipped: ${postgresUnavailable()})`}`,
  () => {
    it('has its calls ended when the begin had committed, and fails the ends of one that had not', async () => {
      workspace = createTempWorkspace('postgres');
      const direct = new URL(workspace.databasePath);
      const { port, lines } = await startRelay(direct);
      const relayed = new URL(workspace.databasePath);
      relayed.port = String(port);
      store = openStore({ path: relayed.toString() });
      const writer = new BatchWriter(store);
      // warm: the session's history is known, so the next begin is one round trip holding its COMMIT
      expect(writer.write([{ kind: 'begin', input: { ...sampleBeginInput({ sessionId: 's' }), callId: 'warm' } }]).errors).toEqual([undefined]);

      await arm(lines, 'pass');
      const begun = writer.write([{ kind: 'begin', input: { ...sampleBeginInput({ sessionId: 's' }), callId: 'committed' } }]);
      expect(begun.committed).toBe(false);
      expect((begun.errors[0] as { code?: string }).code).toMatch(/^(PG_CONNECTION_LOST|ECONNRESET|57P01|08006)$/);
      const rowsOf = (): Array<{ id: string; status: string }> =>
        workspace!.inspect((database) => database.prepare<[], { id: string; status: string }>(`SELECT id, status FROM calls ORDER BY seq`).all());
      // it had committed: the row is there
      expect(rowsOf()).toEqual([
        { id: 'warm', status: 'in_progress' },
        { id: 'committed', status: 'in_progress' },
      ]);

      // its end is written (the connection comes back by itself)
      const ended = writer.write([{ kind: 'finish', callId: 'committed', result: sampleFinishInput() }]);
      expect(ended.errors).toEqual([undefined]);
      expect(rowsOf()).toEqual([
        { id: 'warm', status: 'in_progress' },
        { id: 'committed', status: 'ok' },
      ]);
      expect(writer.endsWaiting).toBe(0);

      // the same loss where the COMMIT never reached the server: nothing of the begin stayed, and its end fails as the
      // begin did, waiting for nothing
      await arm(lines, 'drop');
      const lost = writer.write([{ kind: 'begin', input: { ...sampleBeginInput({ sessionId: 's' }), callId: 'rolled-back' } }]);
      expect(lost.committed).toBe(false);
      expect(rowsOf().map((row) => row.id)).toEqual(['warm', 'committed']);
      const orphan = writer.write([{ kind: 'finish', callId: 'rolled-back', result: sampleFinishInput() }]);
      const error = orphan.errors[0] as Error & { code?: string };
      expect(error.message).toMatch(/^call rolled-back has no in_progress row to finish \(its begin failed: /);
      expect(error.code).toBe((lost.errors[0] as { code?: string }).code);
      expect([writer.endsWaiting, rowsOf().map((row) => row.id)]).toEqual([0, ['warm', 'committed']]);
    }, 60_000);
  },
);
