import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../store/index.js';
import { createSimBackend, type SimBackend } from '../../sim/index.js';
import { startGatewayProcess, type GatewayProcess } from '../../bench/gateway-process.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { closedPort } from '../helpers/closed-port.js';

/** About 30 tokens: at 5 tokens/s a stream of it lasts six seconds, long enough to start another gateway process in its middle on a loaded 2-core machine (one start took 2.7 s there: at 20 tokens/s the stream had ended). */
const REPLY =
  'This answer is still streaming from the first gateway while a second one starts on the same database file, and it must be recorded in full.';

let temp: ReturnType<typeof makeTempDir> | undefined;
let sim: SimBackend | undefined;
const gateways: GatewayProcess[] = [];

afterEach(async () => {
  for (const gateway of gateways.splice(0)) {
    gateway.child.kill('SIGKILL');
    await gateway.exited;
  }
  await sim?.close();
  temp?.remove();
  [temp, sim] = [undefined, undefined];
});

async function startSim(): Promise<string> {
  temp = makeTempDir();
  sim = await createSimBackend({ fast: true, acceptAnyModel: true, tokensPerSecond: 5, script: { replies: [{ content: REPLY, times: 'forever' }] } });
  return sim.listen();
}

async function startServe(backendUrl: string, db: string): Promise<GatewayProcess> {
  const gateway = await startGatewayProcess({ backendUrl, db, port: await closedPort(), args: ['--shutdown-timeout-ms', '30000'] });
  gateways.push(gateway);
  return gateway;
}

/** Starts a stream and waits for its first bytes; `rest()` reads it to the end. */
async function startStream(url: string, session: string): Promise<{ callId: string; rest(): Promise<string> }> {
  const response = await fetch(`${url}/s/${session}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'Qwen/Qwen3-8B', stream: true, messages: [{ role: 'user', content: `hello from ${session}` }] }),
  });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = decoder.decode((await reader.read()).value, { stream: true });
  return {
    callId: response.headers.get('x-tokentap-call-id')!,
    async rest() {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value, { stream: true });
      return text;
    },
  };
}

function readCalls(db: string, session: string): ReturnType<ReturnType<typeof openStore>['listCalls']> {
  const store = openStore({ path: db, readonly: true });
  try {
    return store.listCalls(session);
  } finally {
    store.close();
  }
}

describe('several gateways on one database', () => {
  it('a rolling restart: the new gateway starts while the old one drains a stream, and that stream is recorded ok, token-exact', async () => {
    const backendUrl = await startSim();
    const db = temp!.file('shared.db');
    const old = await startServe(backendUrl, db);
    const stream = await startStream(old.url, 'rolling');
    old.child.kill('SIGTERM');
    await old.waitForLine('draining');
    // the replacement opens the same file while the old process still streams; it must not take that call for lost
    const replacement = await startServe(backendUrl, db);
    expect(readCalls(db, 'rolling').map((call) => call.status)).toEqual(['in_progress']);
    const text = await stream.rest();
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(await old.exited).toEqual({ code: 0, signal: null });
    const next = await startStream(replacement.url, 'rolling');
    await next.rest();
    const calls = readCalls(db, 'rolling');
    expect(calls.map((call) => [call.id, call.seq, call.status])).toEqual([
      [stream.callId, 1, 'ok'],
      [next.callId, 2, 'ok'],
    ]);
    for (const [index, call] of calls.entries()) {
      expect(Array.from(call.promptTokenIds!)).toEqual(sim!.log[index]!.promptTokenIds);
      expect(Array.from(call.completionTokenIds!)).toEqual(sim!.log[index]!.completionTokenIds);
    }
    expect(replacement.lines.some((line) => line.includes('marked incomplete'))).toBe(false);
  }, 60_000);

  it('two gateways serve at once; when one is SIGKILLed, the next to start marks only its call incomplete', async () => {
    const backendUrl = await startSim();
    const db = temp!.file('shared.db');
    const first = await startServe(backendUrl, db);
    const second = await startServe(backendUrl, db);
    const onFirst = await startStream(first.url, 'first');
    const onSecond = await startStream(second.url, 'second');
    first.child.kill('SIGKILL');
    await first.exited;
    // a third gateway starts while the second still streams: the dead one's call is recovered, the live one's kept
    const third = await startServe(backendUrl, db);
    const recovery = third.lines.find((line) => line.includes('marked incomplete'));
    expect(JSON.parse(recovery!)).toMatchObject({ calls: 1 });
    expect(readCalls(db, 'first').map((call) => [call.id, call.status])).toEqual([[onFirst.callId, 'incomplete']]);
    expect(readCalls(db, 'second').map((call) => [call.id, call.status])).toEqual([[onSecond.callId, 'in_progress']]);
    expect((await onSecond.rest()).trimEnd().endsWith('data: [DONE]')).toBe(true);
    const [secondCall] = readCalls(db, 'second');
    expect(secondCall!.status).toBe('ok');
    const sent = sim!.log.find((record) => JSON.stringify(record.promptTokenIds) === JSON.stringify(Array.from(secondCall!.promptTokenIds!)));
    expect(Array.from(secondCall!.completionTokenIds!)).toEqual(sent!.completionTokenIds);
    // stopped cleanly, a gateway leaves no row behind; the killed one's row went with the recovery
    for (const gateway of [second, third]) {
      gateway.child.kill('SIGTERM');
      expect(await gateway.exited).toEqual({ code: 0, signal: null });
    }
    gateways.splice(0);
    const database = new Database(db, { readonly: true });
    expect(database.prepare('SELECT count(*) AS n FROM gateway_instances').get()).toEqual({ n: 0 });
    database.close();
  }, 60_000);
});
