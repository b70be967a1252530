import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  recordCall,
  sampleBeginInput,
  sampleFinishInput,
  storeErrorCode as codeOf,
  STORE_ENGINES,
  engineSuiteName,
  engineUnavailable,
  workspaceForEachTest,
} from './store-fixtures.js';

for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(engineSuiteName(engine), () => {
    const workspace = workspaceForEachTest(engine);

    describe('beginCall and seq', () => {
      it('beginCall creates the missing session and gives its first call seq 1 and a UUID', () => {
        const store = workspace.open();
        const { callId, seq } = store.beginCall(sampleBeginInput({ sessionId: 'fresh' }));
        expect(seq).toBe(1);
        expect(callId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(store.getSession('fresh')).toMatchObject({ id: 'fresh', callCount: 1, statusCounts: { in_progress: 1 } });
      });

      it('seq counts 1, 2, 3 per session in acceptance order, independent of startedAt and of other sessions', () => {
        const store = workspace.open();
        const order: Array<[string, number]> = [
          ['a', 500],
          ['b', 400],
          ['a', 300],
          ['a', 200],
          ['b', 100],
        ];
        const seqs = order.map(([sessionId, startedAt]) => store.beginCall(sampleBeginInput({ sessionId, startedAt })).seq);
        expect(seqs).toEqual([1, 1, 2, 3, 2]);
        expect(store.listCalls('a').map((call) => [call.seq, call.startedAt])).toEqual([
          [1, 500],
          [2, 300],
          [3, 200],
        ]);
      });

      it('ensureSession returns true only when it creates the session and keeps its metadata', () => {
        const store = workspace.open();
        expect(store.ensureSession('s', { harness: 'codex' })).toBe(true);
        expect(store.ensureSession('s', { harness: 'other' })).toBe(false);
        expect(store.getSession('s')).toMatchObject({ metadata: { harness: 'codex' }, callCount: 0, lastCallAt: null });
        expect(store.getSession('missing')).toBeNull();
      });
    });

    describe('finishCall round trip', () => {
      it('every begin and finish field reads back as written', () => {
        const store = workspace.open();
        const begin = sampleBeginInput({ policyVersion: 'policy-7', stream: false, backendId: 'sglang-0' });
        const finish = sampleFinishInput({
          status: 'backend_error',
          finishReason: 'length',
          stopReason: 'STOP',
          usage: { promptTokens: 5, completionTokens: 4 },
          error: { httpStatus: 400, code: 'context_length_exceeded', message: 'too long', body: { detail: [1, 2] } },
          httpStatus: 400,
          flags: ['completion_ids_mismatch_usage', 'logprobs_length_mismatch'],
          weightVersion: 'policy-6',
        });
        const { callId, seq } = store.beginCall(begin);
        store.finishCall(callId, finish);
        expect(store.getCall(callId)).toEqual({
          id: callId,
          sessionId: begin.sessionId,
          seq,
          frontDoor: begin.frontDoor,
          path: begin.path,
          requestedModel: begin.requestedModel,
          backendModel: begin.backendModel,
          stream: false,
          status: 'backend_error',
          tokenSource: 'backend',
          promptTokenIds: Int32Array.from(finish.promptTokenIds as number[]),
          completionTokenIds: Int32Array.from(finish.completionTokenIds as number[]),
          completionLogprobs: Float32Array.from(finish.completionLogprobs as number[]),
          finishReason: 'length',
          stopReason: 'STOP',
          samplingParams: begin.samplingParams,
          metadata: begin.metadata,
          usage: finish.usage,
          error: finish.error,
          httpStatus: 400,
          flags: finish.flags,
          policyVersion: 'policy-7',
          backendId: 'sglang-0',
          weightVersion: 'policy-6',
          startedAt: begin.startedAt,
          endedAt: finish.endedAt,
          timeToFirstTokenMs: 12.5,
          totalMs: 40.25,
        });
        expect(store.getCallBodies(callId)).toEqual({
          requestBody: begin.requestBody,
          backendRequestBody: begin.backendRequestBody,
          chatRequestBody: null,
          responseBody: finish.responseBody,
          responseStream: finish.responseStream,
        });
      });

      it("a token-faithful call's chat request (what its token-id prompt was rendered from) reads back beside the backend body", () => {
        const store = workspace.open();
        const chatRequestBody = {
          model: 'Qwen/Qwen3-8B',
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'hi' },
          ],
          chat_template_kwargs: { enable_thinking: false },
        };
        const begin = sampleBeginInput({
          backendRequestBody: { model: 'Qwen/Qwen3-8B', prompt: [1, 2, 3], return_token_ids: true },
          chatRequestBody,
        });
        const { callId } = store.beginCall(begin);
        expect(store.getCallBodies(callId)).toMatchObject({
          requestBody: begin.requestBody,
          backendRequestBody: begin.backendRequestBody,
          chatRequestBody,
        });
      });

      it('an in-progress call reads back with its begin fields and nothing from a finish', () => {
        const store = workspace.open();
        const { callId } = store.beginCall(sampleBeginInput());
        expect(store.getCall(callId)).toMatchObject({
          status: 'in_progress',
          tokenSource: null,
          promptTokenIds: null,
          completionTokenIds: null,
          completionLogprobs: null,
          stopReason: null,
          usage: null,
          error: null,
          flags: [],
          endedAt: null,
          totalMs: null,
        });
        expect(store.getCallBodies(callId)).toMatchObject({ responseBody: null, responseStream: null });
      });

      it('a numeric stop_reason stays a number and a numeric-looking string stays a string', () => {
        const store = workspace.open();
        const numeric = recordCall(store, {}, { stopReason: 151643 });
        const text = recordCall(store, {}, { stopReason: '151643' });
        const eos = recordCall(store, {}, { stopReason: null });
        expect(store.getCall(numeric)?.stopReason).toBe(151643);
        expect(store.getCall(text)?.stopReason).toBe('151643');
        expect(store.getCall(eos)?.stopReason).toBeNull();
      });

      it('null token arrays stay null and empty ones stay empty', () => {
        const store = workspace.open();
        const nulls = recordCall(store, {}, { tokenSource: 'none', promptTokenIds: null, completionTokenIds: null, completionLogprobs: null });
        const empties = recordCall(store, {}, { promptTokenIds: [], completionTokenIds: [], completionLogprobs: [] });
        expect(store.getCall(nulls)).toMatchObject({ promptTokenIds: null, completionTokenIds: null, completionLogprobs: null });
        const empty = store.getCall(empties);
        expect(empty?.promptTokenIds).toEqual(new Int32Array(0));
        expect(empty?.completionTokenIds).toEqual(new Int32Array(0));
        expect(empty?.completionLogprobs).toEqual(new Float32Array(0));
      });

      it('logprobs read back as their Float32 values, typed-array inputs included', () => {
        const store = workspace.open();
        fc.assert(
          fc.property(fc.array(fc.double({ noNaN: true }), { maxLength: 64 }), fc.boolean(), (logprobs, typed) => {
            const ids = logprobs.map((_, index) => index);
            const callId = recordCall(
              store,
              {},
              {
                completionTokenIds: typed ? Int32Array.from(ids) : ids,
                completionLogprobs: typed ? Float32Array.from(logprobs) : logprobs,
              },
            );
            const stored = store.getCall(callId)?.completionLogprobs;
            expect(stored).toBeInstanceOf(Float32Array);
            expect(Array.from(stored ?? [])).toEqual(logprobs.map((value) => Math.fround(value)));
          }),
          { numRuns: 50 },
        );
      });

      it('token ids an Int32 cannot hold are refused and the call stays in progress', () => {
        const store = workspace.open();
        const { callId } = store.beginCall(sampleBeginInput());
        expect(codeOf(() => store.finishCall(callId, sampleFinishInput({ completionTokenIds: [1, 2 ** 31] })))).toBe('STORE_INVALID_INPUT');
        expect(codeOf(() => store.finishCall(callId, sampleFinishInput({ promptTokenIds: [1.5] })))).toBe('STORE_INVALID_INPUT');
        expect(store.getCall(callId)?.status).toBe('in_progress');
      });

      it('negative token ids are refused as lists and as typed arrays: no tokenizer gives one (issue 12)', () => {
        const store = workspace.open();
        const { callId } = store.beginCall(sampleBeginInput());
        expect(codeOf(() => store.finishCall(callId, sampleFinishInput({ promptTokenIds: [1, -1] })))).toBe('STORE_INVALID_INPUT');
        expect(codeOf(() => store.finishCall(callId, sampleFinishInput({ completionTokenIds: Int32Array.of(7, -2) })))).toBe('STORE_INVALID_INPUT');
        expect(store.getCall(callId)?.status).toBe('in_progress');
      });
    });

    describe('finishing rules', () => {
      it('finishing a call twice throws STORE_CALL_ALREADY_FINISHED and keeps the first result', () => {
        const store = workspace.open();
        const callId = recordCall(store, {}, { finishReason: 'stop' });
        expect(codeOf(() => store.finishCall(callId, sampleFinishInput({ finishReason: 'length' })))).toBe('STORE_CALL_ALREADY_FINISHED');
        expect(store.getCall(callId)?.finishReason).toBe('stop');
      });

      it('finishing an unknown call throws STORE_CALL_NOT_FOUND', () => {
        const store = workspace.open();
        expect(codeOf(() => store.finishCall('no-such-call', sampleFinishInput()))).toBe('STORE_CALL_NOT_FOUND');
      });

      it('recoverOrphanedCalls, with no gateway live, turns only in_progress calls incomplete, which then cannot be finished', () => {
        const store = workspace.open();
        const finished = recordCall(store);
        const pending = [store.beginCall(sampleBeginInput()).callId, store.beginCall(sampleBeginInput({ sessionId: 'b' })).callId];
        expect(store.recoverOrphanedCalls(() => false).calls).toBe(2);
        expect(pending.map((callId) => store.getCall(callId)?.status)).toEqual(['incomplete', 'incomplete']);
        expect(store.getCall(finished)?.status).toBe('ok');
        expect(store.recoverOrphanedCalls(() => false).calls).toBe(0);
        expect(codeOf(() => store.finishCall(pending[0] as string, sampleFinishInput()))).toBe('STORE_CALL_ALREADY_FINISHED');
      });
    });
  });
}
