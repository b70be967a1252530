import { parseArgs } from 'node:util';
import { reconstructCalls } from '../../reconstruct/reconstruct-calls.js';
import type { CallRow, Store } from '../../store/index.js';
import { formatTable } from '../format-table.js';
import { formatDriftCounts } from './diagnose.js';
import { UsageError } from '../usage-error.js';
import { openStoreForReading } from './sessions.js';
import { resolveStorePath, STORE_PATH_OPTIONS } from '../resolve-store-path.js';

export const SHOW_HELP = `Usage: tokentap show SESSION [--db FILE | --config FILE] [--json]

Shows the calls of one session in order: front door, model, status, token counts, timings, flags,
and a drift line: the breaks per kind where its calls do not merge into one sample (tokentap diagnose).
  --db FILE     database (default ./tokentap.db; also TOKENTAP_DB, or "db" in the config file)
  --config FILE JSON config file, as for tokentap serve (also TOKENTAP_CONFIG): its "db" is read
  --json        one JSON object per call (token ids included) instead of a table
`;

/** `tokentap show SESSION` */
export function runShow(args: string[], env: NodeJS.ProcessEnv): number {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...STORE_PATH_OPTIONS, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    process.stdout.write(SHOW_HELP);
    return 0;
  }
  const sessionId = positionals[0];
  if (sessionId === undefined || positionals.length > 1) throw new UsageError('give exactly one SESSION (see tokentap sessions)');
  const store = openStoreForReading(resolveStorePath(values, env));
  try {
    const session = store.getSession(sessionId);
    if (session === null) throw new UsageError(`no session ${JSON.stringify(sessionId)} in this database`);
    const calls = store.listCalls(sessionId);
    if (values.json) {
      for (const call of calls) {
        process.stdout.write(JSON.stringify({
          ...call,
          promptTokenIds: call.promptTokenIds === null ? null : Array.from(call.promptTokenIds),
          completionTokenIds: call.completionTokenIds === null ? null : Array.from(call.completionTokenIds),
          completionLogprobs: call.completionLogprobs === null ? null : Array.from(call.completionLogprobs),
        }) + '\n');
      }
      return 0;
    }
    process.stdout.write(`session ${session.id}: ${session.callCount} calls, ${session.promptTokens} prompt tokens, ${session.completionTokens} completion tokens\n`);
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
    ]);
    process.stdout.write(formatTable(['seq', 'call', 'front_door', 'model', 'mode', 'status', 'tokens', 'prompt', 'completion', 'finish', 'ttft_ms', 'total_ms', 'flags'], rows));
    return 0;
  } finally {
    store.close();
  }
}

/** e.g. `drift: 2 samples (merge), 1 break: template-rerender 1; 1 call without a sample` */
function driftLine(store: Store, sessionId: string, calls: CallRow[]): string {
  const report = reconstructCalls(sessionId, calls, (callId) => store.getCallBodies(callId, { lazy: true }), { strategy: 'merge' });
  const skipped = report.skipped.length === 0 ? '' : `; ${report.skipped.length} call${report.skipped.length === 1 ? '' : 's'} without a sample`;
  return `drift: ${report.samples.length} sample${report.samples.length === 1 ? '' : 's'} (merge), ${formatDriftCounts(report.driftCounts)}${skipped}`;
}
