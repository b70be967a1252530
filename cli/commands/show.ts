import { parseArgs } from 'node:util';
import { reconstructCalls } from '../../reconstruct/reconstruct-calls.js';
import type { CallRow, Store } from '../../store/index.js';
import { FOLD_AT, formatCallError, formatCallView, type CallView } from '../call-view/format-call-view.js';
import { readRequestMessages, readToolNames } from '../../ui/server/call-view/read-request-messages.js';
import { readResponseMessage } from '../../ui/server/call-view/read-response-message.js';
import { readHarnessReply } from '../../ui/server/call-view/read-harness-response.js';
import { harnessResponseBody } from '../../gateway/index.js';
import { formatTable } from '../format-table.js';
import { formatDriftCounts } from './diagnose.js';
import { UsageError } from '../usage-error.js';
import { openStoreForReading } from './sessions.js';
import { resolveStorePath, STORE_PATH_OPTIONS } from '../resolve-store-path.js';

export const SHOW_HELP = `Usage: tokentap show SESSION [--call N [--full]] [--db FILE | --config FILE] [--json]

Shows the calls of one session in order: front door, model, status, token counts, timings, flags, the
error of each failed call, and a drift line: the breaks per kind where its calls do not merge into one
sample (tokentap diagnose). With --call, one call in full: the request's messages as the harness sent
them (role, content, reasoning, tool calls and results), the reply as the harness received it in its own
protocol (Anthropic content blocks, Responses output items, the OpenAI body; a stream as the non-streamed body
of the same answer), token counts, flags and the error.
  --db FILE|URL SQLite file or postgres:// URL (default ./tokentap.db; also TOKENTAP_DB, or "db" in the config file)
  --config FILE config file (YAML or JSON), as for tokentap serve (also TOKENTAP_CONFIG): its "db" is read
  --call N      the call with seq N in the session, or a call id (its first characters are enough)
  --full        with --call: every text in full (otherwise texts over ${FOLD_AT} characters are folded)
  --json        one JSON object per call (token ids included) instead of a table; with --call, one
                object with the call's messages, reply and bodies too:
                response.body is the backend's answer, response.harnessBody the harness's
`;

/** `tokentap show SESSION` */
export function runShow(args: string[], env: NodeJS.ProcessEnv): number {
  const options = {
    ...STORE_PATH_OPTIONS,
    call: { type: 'string' },
    full: { type: 'boolean' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options });
  if (values.help) {
    process.stdout.write(SHOW_HELP);
    return 0;
  }
  const sessionId = positionals[0];
  if (sessionId === undefined || positionals.length > 1) throw new UsageError('give exactly one SESSION (see tokentap sessions)');
  if (values.full === true && values.call === undefined) throw new UsageError('--full goes with --call N');
  const store = openStoreForReading(resolveStorePath(values, env));
  try {
    const session = store.getSession(sessionId);
    if (session === null) throw new UsageError(`no session ${JSON.stringify(sessionId)} in this database`);
    const calls = store.listCalls(sessionId);
    if (values.call !== undefined) {
      const call = findCall(calls, values.call, sessionId);
      const bodies = store.getCallBodies(call.id);
      // the front door's own renderer over the recorded answer: the body in the harness's protocol
      const harnessBody = bodies === null ? null : harnessResponseBody({ ...call, ...bodies });
      const harnessReply = harnessBody === null ? null : readHarnessReply(harnessBody);
      const view: CallView = {
        call,
        messages: readRequestMessages(call.frontDoor, bodies?.requestBody),
        tools: readToolNames(bodies?.requestBody),
        response: readResponseMessage(bodies?.responseBody),
        assembledFromStream: call.stream,
        harness: harnessReply === null || harnessBody === null ? null : { ...harnessReply, notReproduced: harnessBody.notReproduced },
      };
      if (!values.json) process.stdout.write(formatCallView(view, { full: values.full === true }));
      else {
        const request = { messages: view.messages, tools: view.tools, body: bodies?.requestBody ?? null };
        const response = {
          message: view.response,
          assembledFromStream: view.assembledFromStream,
          body: bodies?.responseBody ?? null,
          harnessProtocol: harnessBody?.protocol ?? null,
          harnessBody: harnessBody?.body ?? null,
          harnessNotReproduced: harnessBody?.notReproduced ?? [],
        };
        process.stdout.write(JSON.stringify({ ...callJson(call), request, response }) + '\n');
      }
      return 0;
    }
    if (values.json) {
      for (const call of calls) process.stdout.write(JSON.stringify(callJson(call)) + '\n');
      return 0;
    }
    process.stdout.write(
      `session ${session.id}: ${session.callCount} calls, ${session.promptTokens} prompt tokens, ${session.completionTokens} completion tokens\n`,
    );
    process.stdout.write(`${driftLine(store, sessionId, calls)}\n\n`);
    const rows = calls.map((call) => [
      call.seq,
      call.id.slice(0, 8),
      call.frontDoor,
      call.requestedModel,
      call.stream ? 'stream' : 'json',
      call.status,
      call.tokenSource,
      call.promptTokenIds?.length ?? null,
      call.completionTokenIds?.length ?? null,
      call.finishReason,
      call.timeToFirstTokenMs,
      call.totalMs,
      call.flags.join(',') || null,
      call.error === null ? null : formatCallError(call.error, ERROR_WIDTH),
    ]);
    process.stdout.write(
      formatTable(
        ['seq', 'call', 'front_door', 'model', 'mode', 'status', 'tokens', 'prompt', 'completion', 'finish', 'ttft_ms', 'total_ms', 'flags', 'error'],
        rows,
      ),
    );
    return 0;
  } finally {
    store.close();
  }
}

/** Characters of an error message in the session listing (`--call N` shows it whole). */
const ERROR_WIDTH = 120;

/** The call's row as JSON, its token arrays as plain arrays. */
function callJson(call: CallRow): Record<string, unknown> {
  return {
    ...call,
    promptTokenIds: call.promptTokenIds === null ? null : Array.from(call.promptTokenIds),
    completionTokenIds: call.completionTokenIds === null ? null : Array.from(call.completionTokenIds),
    completionLogprobs: call.completionLogprobs === null ? null : Array.from(call.completionLogprobs),
  };
}

/**
 * `--call N`: a seq, a call id, or the start of one (the listing shows eight characters) naming one call. Digits
 * shorter than the listing's eight are a seq only: `--call 9` must not pick a call whose id happens to start with 9.
 */
function findCall(calls: readonly CallRow[], which: string, sessionId: string): CallRow {
  const isSeq = /^\d{1,7}$/.test(which);
  const bySeq = isSeq ? calls.find((call) => call.seq === Number(which)) : undefined;
  if (bySeq !== undefined) return bySeq;
  const byId = isSeq ? [] : calls.filter((call) => call.id.startsWith(which));
  if (byId.length === 1) return byId[0] as CallRow;
  if (byId.length > 1) throw new UsageError(`${JSON.stringify(which)} starts ${byId.length} call ids in session ${sessionId}: give more of it`);
  const known = calls.length === 0 ? 'it has no calls' : `its calls are #1 to #${calls.length}`;
  throw new UsageError(`no call ${JSON.stringify(which)} in session ${sessionId} (${known}; see tokentap show ${sessionId})`);
}

/** e.g. `drift: 2 samples (merge), 1 break: template-rerender 1; 1 call without a sample` */
function driftLine(store: Store, sessionId: string, calls: CallRow[]): string {
  const report = reconstructCalls(sessionId, calls, (callId) => store.getCallBodies(callId, { lazy: true }), { strategy: 'merge' });
  const skipped = report.skipped.length === 0 ? '' : `; ${report.skipped.length} call${report.skipped.length === 1 ? '' : 's'} without a sample`;
  return `drift: ${report.samples.length} sample${report.samples.length === 1 ? '' : 's'} (merge), ${formatDriftCounts(report.driftCounts)}${skipped}`;
}
