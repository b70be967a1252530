import { describe, expect, it } from 'vitest';
import {
  recordCall,
  sampleBeginInput,
  sampleFinishInput,
  STORE_ENGINES,
  engineSuiteName,
  engineUnavailable,
  workspaceForEachTest,
} from './store-fixtures.js';

for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(engineSuiteName(engine), () => {
    const workspace = workspaceForEachTest(engine);

    function countRows(table: 'blobs' | 'blob_lists'): number {
      return workspace.inspect((database) => (database.prepare(`SELECT count(*) AS count FROM ${table}`).get() as { count: number }).count);
    }

    /** A tools array far over the 256-byte threshold, identical every turn, as harnesses send it. */
    const TOOLS = Array.from({ length: 8 }, (_, index) => ({
      type: 'function',
      function: { name: `tool_${index}`, description: 'x'.repeat(200), parameters: { type: 'object', properties: {} } },
    }));

    describe('request bodies', () => {
      it('read back as their JSON round trip: same values, same key order, undefined fields dropped', () => {
        const store = workspace.open();
        const requestBody = {
          stream: true,
          model: 'm',
          '10': 'numeric keys come first, as in JSON.parse',
          messages: [
            { role: 'user', content: 'é 中文 🙂', extra: undefined },
            { role: 'assistant', content: null },
          ],
          tools: TOOLS,
          system: 'short',
          dropped: undefined,
          nested: { z: 1, a: [1, 2.5, -0, 1e300, 'two', null, true] },
          input: [],
        };
        const backendRequestBody = JSON.parse('{"__proto__": {"polluted": true}, "model": "b", "messages": "not an array"}');
        const { callId } = store.beginCall(sampleBeginInput({ requestBody, backendRequestBody }));
        const bodies = store.getCallBodies(callId);
        expect(JSON.stringify(bodies?.requestBody)).toBe(JSON.stringify(requestBody));
        expect(bodies?.requestBody).toStrictEqual(JSON.parse(JSON.stringify(requestBody)));
        expect(Object.keys(bodies?.backendRequestBody as object)).toEqual(['__proto__', 'model', 'messages']);
        expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
        expect(JSON.stringify(bodies?.backendRequestBody)).toBe(JSON.stringify(backendRequestBody));
      });

      it('bodies that are not JSON objects read back as written', () => {
        const store = workspace.open();
        for (const body of ['a string body', [1, { a: 2 }], null, 42]) {
          const { callId } = store.beginCall(sampleBeginInput({ requestBody: body, backendRequestBody: body }));
          expect(store.getCallBodies(callId)).toMatchObject({ requestBody: body, backendRequestBody: body });
        }
      });

      it('a 100-turn session resending every message stores each distinct message once, plus the tools once', () => {
        const store = workspace.open();
        const system = { role: 'system', content: 'You are an agent. '.repeat(500) };
        const messages: Array<{ role: string; content: string }> = [system];
        for (let turn = 1; turn <= 100; turn++) {
          messages.push({ role: 'user', content: `tool result ${turn}: ${'data '.repeat(50)}` });
          const requestBody = { model: 'claude', messages: [...messages], tools: TOOLS, stream: true };
          const backendRequestBody = { ...requestBody, model: 'Qwen/Qwen3-8B', return_token_ids: true };
          const { callId } = store.beginCall(sampleBeginInput({ sessionId: 'agent', startedAt: turn, requestBody, backendRequestBody }));
          store.finishCall(callId, sampleFinishInput());
          expect(store.getCallBodies(callId)?.backendRequestBody).toEqual(backendRequestBody);
          messages.push({ role: 'assistant', content: `answer ${turn}` });
        }
        store.close();
        const distinctMessages = 1 + 100 + 99; // system, 100 tool results, 99 answers resent in a later turn
        expect(countRows('blobs')).toBe(distinctMessages + 1);
        // One list cell per distinct prefix of the history: linear, not the quadratic sum of resent lists.
        expect(countRows('blob_lists')).toBe(distinctMessages);
      });

      it('a long history seen first whole, then cut short and changed early, shares exactly its stored prefix', () => {
        const store = workspace.open();
        // 50 messages, longer than the lookup's window of a list's last cells; the same text three times in a row
        const history = Array.from({ length: 50 }, (_, index) => ({
          role: index % 2 === 0 ? 'user' : 'assistant',
          content: `m${Math.max(3, index)}`,
        }));
        const write = (messages: unknown[], startedAt: number): unknown => {
          const requestBody = { model: 'm', messages };
          const { callId } = store.beginCall(sampleBeginInput({ sessionId: 'long', startedAt, requestBody, backendRequestBody: requestBody }));
          return store.getCallBodies(callId)?.requestBody;
        };
        expect(write(history, 1)).toEqual({ model: 'm', messages: history });
        // the first 47 messages and 3 new ones: 3 new cells, 3 new blobs
        const extended = [...history.slice(0, 47), ...['x1', 'x2', 'x3'].map((content) => ({ role: 'user', content }))];
        expect(write(extended, 2)).toEqual({ model: 'm', messages: extended });
        // changed at message 6: the search for its stored prefix goes past the last cells; 44 new cells, 1 new blob
        const changed = history.map((message, index) => (index === 6 ? { ...message, content: 'changed' } : message));
        expect(write(changed, 3)).toEqual({ model: 'm', messages: changed });
        store.close();
        // distinct texts: m3..m49 per role (m3 as user and as assistant), then x1..x3 and 'changed'
        expect(countRows('blobs')).toBe(48 + 3 + 1);
        expect(countRows('blob_lists')).toBe(50 + 3 + 44);
      });

      it('two long histories of one call, each changed early, are searched further back together and read back whole', () => {
        const store = workspace.open();
        const history = (prefix: string): Array<{ role: string; content: string }> =>
          Array.from({ length: 40 }, (_, index) => ({ role: 'user', content: `${prefix} ${index}` }));
        const write = (request: unknown[], backend: unknown[], startedAt: number): unknown[] => {
          const { callId } = store.beginCall(
            sampleBeginInput({ sessionId: 'two', startedAt, requestBody: { messages: request }, backendRequestBody: { messages: backend } }),
          );
          const bodies = store.getCallBodies(callId);
          return [bodies?.requestBody, bodies?.backendRequestBody];
        };
        const [request, backend] = [history('harness'), history('backend')];
        write(request, backend, 1);
        // both changed at message 3: each list's stored prefix lies past its last 16 cells, the lookups of both at once
        const changed = (messages: Array<{ role: string; content: string }>) =>
          messages.map((message, index) => (index === 3 ? { ...message, content: 'x' } : message));
        expect(write(changed(request), changed(backend), 2)).toEqual([{ messages: changed(request) }, { messages: changed(backend) }]);
        store.close();
        expect(countRows('blob_lists')).toBe(2 * 40 + 2 * 37);
      });

      it('the response body and raw SSE stream read back as written', () => {
        const store = workspace.open();
        const responseStream = 'data: {"choices":[{"delta":{"content":"é"}}]}\r\n\r\n: keep-alive\n\ndata: [DONE]\n\n';
        const responseBody = { id: 'x', choices: [{ message: { content: 'é' } }], usage: { prompt_tokens: 3 } };
        const callId = recordCall(store, {}, { responseBody, responseStream });
        expect(store.getCallBodies(callId)).toMatchObject({ responseBody, responseStream });
        const streamless = recordCall(store, {}, { responseBody: null, responseStream: null });
        expect(store.getCallBodies(streamless)).toMatchObject({ responseBody: null, responseStream: null });
      });

      it('with lazy: true each body is rebuilt when first read, and equals what the eager read gives', () => {
        const store = workspace.open();
        const callId = recordCall(store, { requestBody: { model: 'm', messages: [{ role: 'user', content: 'lazy' }], tools: TOOLS } });
        const eager = store.getCallBodies(callId);
        const lazy = store.getCallBodies(callId, { lazy: true });
        const fresh = store.getCallBodies(callId, { lazy: true });
        expect({ ...lazy }).toEqual(eager);
        expect(JSON.stringify(fresh)).toBe(JSON.stringify(eager));
        // take the message lists away underneath: only a lazy body not read yet notices (read by a store that has
        // walked no list yet: a store remembers the lists it walked, and their texts)
        const late = workspace.open({ readonly: true }).getCallBodies(callId, { lazy: true });
        workspace.inspect((database) => database.prepare('DELETE FROM blob_lists').run());
        expect(late?.responseBody).toEqual(eager?.responseBody);
        expect(() => late?.requestBody).toThrow(/body list .* is missing or broken/);
        expect(lazy?.requestBody).toEqual(eager?.requestBody);
      });

      it('bodies read twice are equal and independent: changing one read leaves the next as stored', () => {
        const store = workspace.open();
        const callId = recordCall(store);
        const first = store.getCallBodies(callId)?.requestBody as { messages: Array<{ content: string }> };
        (first.messages[0] as { content: string }).content = 'changed by a caller';
        first.messages.push({ content: 'added' });
        expect(store.getCallBodies(callId)?.requestBody).toEqual(sampleBeginInput().requestBody);
      });

      it('getCallBodies of an unknown call is null', () => {
        expect(workspace.open().getCallBodies('nope')).toBeNull();
      });
    });
  });
}
