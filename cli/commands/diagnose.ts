import { parseArgs } from 'node:util';
import { DRIFT_KINDS } from '../../reconstruct/count-drift.js';
import type { DriftTokenizer, SessionReconstruction } from '../../reconstruct/reconstruct-options.js';
import { reconstructSessionReport } from '../../reconstruct/reconstruct-session.js';
import type { DriftDiagnostic, DriftKind } from '../../reconstruct/sample.js';
import type { CallRow } from '../../store/index.js';
import { oneLine } from '../one-line.js';
import { UsageError } from '../usage-error.js';
import { openStoreForReading } from './sessions.js';
import { resolveStorePath, STORE_PATH_OPTIONS } from '../resolve-store-path.js';

export const DIAGNOSE_HELP = `Usage: tokentap diagnose SESSION [--db FILE | --config FILE] [--json] [--tokenizer DIR|qwen3]

Reconstructs one session with the merge strategy and explains every chain break: which call left which,
the drift kind (template-rerender, retokenized, history-edited, parallel-branch, truncated-completion),
the token position and the ids on both sides; also the calls that became no sample, and why.
  --db FILE|URL      SQLite file or postgres:// URL (default ./tokentap.db; also TOKENTAP_DB, or "db" in the config file)
  --config FILE      config file (YAML or JSON), as for tokentap serve (also TOKENTAP_CONFIG): its "db" is read
  --json             one JSON object: samples, skipped calls, breaks and counts
  --tokenizer DIR    a Hugging Face model folder (or "qwen3" for the bundled Qwen3 tokenizer): shows the
                     text of each side and tells a retokenization (same text, other ids) from a re-render
`;

/** `tokentap diagnose SESSION` */
export async function runDiagnose(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const options = { ...STORE_PATH_OPTIONS, json: { type: 'boolean' }, tokenizer: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options });
  if (values.help) {
    process.stdout.write(DIAGNOSE_HELP);
    return 0;
  }
  const sessionId = positionals[0];
  if (sessionId === undefined || positionals.length > 1) throw new UsageError('give exactly one SESSION (see tokentap sessions)');
  const tokenizer = values.tokenizer === undefined ? undefined : await loadTokenizer(values.tokenizer);
  const store = openStoreForReading(resolveStorePath(values, env));
  try {
    if (store.getSession(sessionId) === null) throw new UsageError(`no session ${JSON.stringify(sessionId)} in this database`);
    const calls = store.listCalls(sessionId);
    const report = reconstructSessionReport(store, sessionId, { strategy: 'merge', ...(tokenizer === undefined ? {} : { tokenizer }) });
    process.stdout.write(values.json ? JSON.stringify(reportJson(report)) + '\n' : reportText(report, calls));
    return 0;
  } finally {
    store.close();
  }
}

// loaded only when asked: the tokenizer library is large and `diagnose` must stay quick without it
async function loadTokenizer(where: string): Promise<DriftTokenizer> {
  const { loadHfTokenizer, qwen3TokenizerDir } = await import('../../model-format/tokenizer/load-hf-tokenizer.js');
  try {
    return await loadHfTokenizer(where === 'qwen3' ? qwen3TokenizerDir() : where);
  } catch (error) {
    throw new UsageError(`cannot load a tokenizer from ${where}: ${(error as Error).message}`);
  }
}

/**
 * One line: breaks per kind, e.g. `3 breaks: template-rerender 2, history-edited 1`, or `no breaks`.
 *
 * @example
 * formatDriftCounts(report.driftCounts); // '19 breaks: template-rerender 19'
 */
export function formatDriftCounts(counts: Record<DriftKind, number>): string {
  const total = DRIFT_KINDS.reduce((sum, kind) => sum + counts[kind], 0);
  if (total === 0) return 'no breaks';
  const parts = DRIFT_KINDS.filter((kind) => counts[kind] > 0).map((kind) => `${kind} ${counts[kind]}`);
  return `${total} break${total === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function reportText(report: SessionReconstruction, calls: readonly CallRow[]): string {
  const byId = new Map(calls.map((call) => [call.id, call]));
  const name = (callId: string | null): string => (callId === null ? 'nothing' : `#${byId.get(callId)?.seq ?? '?'} ${callId.slice(0, 8)}`);
  const lines = [
    `session ${report.sessionId}: ${plural(calls.length, 'call')} -> ${plural(report.samples.length, 'sample')} (merge), ${formatDriftCounts(report.driftCounts)}`,
  ];
  if (report.skipped.length > 0) {
    lines.push('', `skipped (no sample): ${report.skipped.length}`);
    for (const skipped of report.skipped) {
      lines.push(`  ${name(skipped.callId)} ${skipped.status}: ${skipped.reason}`);
      if (skipped.error !== undefined) lines.push(`     error: ${oneLine(skipped.error.message)}`);
    }
  }
  if (report.drift.length > 0) lines.push('', 'breaks:');
  for (const diagnostic of report.drift) lines.push(...breakLines(diagnostic, name));
  return lines.join('\n') + '\n';
}

function breakLines(diagnostic: DriftDiagnostic, name: (callId: string | null) => string): string[] {
  const side = (label: string, excerpt: DriftDiagnostic['expected']): string =>
    `     ${label} [${excerpt.tokenIds.join(', ')}]${excerpt.text === undefined ? '' : ` ${JSON.stringify(excerpt.text)}`}`;
  return [
    `  ${name(diagnostic.callId)} <- ${name(diagnostic.againstCallId)}  ${diagnostic.kind}  at token ${diagnostic.position}`,
    `     ${diagnostic.summary}`,
    side('expected:', diagnostic.expected),
    side('actual:  ', diagnostic.actual),
  ];
}

function reportJson(report: SessionReconstruction): Record<string, unknown> {
  return {
    sessionId: report.sessionId,
    strategy: report.strategy,
    samples: report.samples.map((sample) => ({
      chainIndex: sample.chainIndex,
      callIds: sample.callIds,
      tokens: sample.tokens.length,
      trainedTokens: sample.lossMask.reduce((sum, mask) => sum + mask, 0),
      status: sample.status,
      lossWeight: sample.lossWeight,
      faithful: sample.faithful,
    })),
    skipped: report.skipped,
    drift: report.drift,
    driftCounts: report.driftCounts,
  };
}
