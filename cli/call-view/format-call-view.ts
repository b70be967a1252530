import type { CallRow } from '../../store/index.js';
import { oneLine } from '../one-line.js';
import type { HarnessReply } from '../../ui/server/call-view/read-harness-response.js';
import type { ReadableMessage, ReadablePart } from '../../ui/server/call-view/readable-message.js';

/** Texts longer than this many characters are folded unless `--full`: their start and end are shown. */
export const FOLD_AT = 1200;
const FOLD_HEAD = 800;
const FOLD_TAIL = 200;

/** What `tokentap show SESSION --call N` prints: the call's row, its request as sent, its reply as received. */
export interface CallView {
  call: CallRow;
  messages: ReadableMessage[];
  tools: string[];
  /** null when no reply came (the call failed before one) */
  response: ReadableMessage | null;
  /** whether the reply was assembled from a stream's chunks */
  assembledFromStream: boolean;
  /** the reply in the harness's own protocol, rebuilt by the front door's renderer; null when it cannot be */
  harness: (HarnessReply & { notReproduced: string[] }) | null;
}

/**
 * The call as text: a header (front door, model, status, times, the backend replica and weight version beside the
 * policy version, tokens, flags, how token-faithful mode rendered it, the error), the request's messages
 * (role, content, reasoning, tool calls and results) and the reply, each text over FOLD_AT characters folded with a
 * note of how much was left out, unless `full`.
 *
 * @example process.stdout.write(formatCallView(view, { full: false }));
 */
export function formatCallView(view: CallView, options: { full: boolean }): string {
  const { call } = view;
  const lines = [
    `call #${call.seq} ${call.id} (session ${call.sessionId})`,
    `  ${call.frontDoor} ${call.path}  model ${call.requestedModel ?? '-'}${call.backendModel !== call.requestedModel ? ` (sent as ${call.backendModel ?? '-'})` : ''}  ${call.stream ? 'stream' : 'json'}`,
    `  status ${call.status}  http ${call.httpStatus ?? '-'}  finish ${call.finishReason ?? '-'}  ttft ${milliseconds(call.timeToFirstTokenMs)}  total ${milliseconds(call.totalMs)}`,
    // which replica sampled it, with which weights, beside the version tokentap tagged it with (a mismatch is flagged)
    `  backend ${call.backendId ?? '-'}  weight version ${call.weightVersion ?? '-'}  policy version ${call.policyVersion ?? '-'}`,
    `  tokens ${call.tokenSource ?? '-'}: prompt ${call.promptTokenIds?.length ?? '-'}, completion ${call.completionTokenIds?.length ?? '-'}${usageNote(call)}`,
    `  flags: ${call.flags.length === 0 ? 'none' : call.flags.join(', ')}`,
  ];
  const faithful = tokenFaithfulLine(call);
  if (faithful !== null) lines.push(`  token-faithful: ${faithful}`);
  if (call.error !== null) lines.push(`  error: ${formatCallError(call.error, Number.POSITIVE_INFINITY)}`);
  const count = view.messages.length === 1 ? '1 message, as the harness sent it' : `${view.messages.length} messages, as the harness sent them`;
  lines.push('', `request: ${count}${view.tools.length === 0 ? '' : `; tools: ${view.tools.join(', ')}`}`);
  for (const [index, message] of view.messages.entries()) lines.push(...messageLines(`[${index + 1}] ${message.role}`, message, options.full));
  lines.push('');
  if (view.response === null) lines.push('response: none (no reply was recorded)');
  else if (view.harness === null) {
    const title = `response (the backend's${view.assembledFromStream ? ', assembled from the stream' : ''}): ${view.response.role}`;
    lines.push(...messageLines(title, view.response, options.full));
  } else {
    // a stream's events are shown as the one body they add up to, in the same protocol
    const streamed = view.assembledFromStream ? ', streamed: shown as the non-streamed body of the same answer' : '';
    lines.push(`response as the harness received it: ${view.harness.summary}${streamed}`);
    lines.push(...messageLines(view.harness.message.role, view.harness.message, options.full));
    for (const note of view.harness.notReproduced) lines.push(`  not reproduced: ${note}`);
  }
  return lines.join('\n') + '\n';
}

/**
 * A call's error on one line: `CODE (HTTP n): message`, the message cut to `width` characters.
 *
 * @example formatCallError({ httpStatus: 404, code: 'TT_BACKEND_ERROR', message: 'The model `x` does not exist.' }, 80)
 * // 'TT_BACKEND_ERROR (HTTP 404): The model `x` does not exist.'
 */
export function formatCallError(error: NonNullable<CallRow['error']>, width: number): string {
  const message = oneLine(error.message);
  const shown = message.length > width ? `${message.slice(0, width - 1)}…` : message;
  const status = error.httpStatus === undefined ? '' : ` (HTTP ${error.httpStatus})`;
  return `${error.code ?? 'error'}${status}: ${shown}`;
}

/**
 * How a call of a token-faithful model got its prompt (its metadata's `tokenFaithful`, docs/token-faithful.md), or
 * null for other calls: `extends call <id> (+n tokens)`, `rendered fresh (reason)`, `fell back to plain (reason: error)`
 * for a fallback (flagged `token_faithful_fallback`), `sent plain by design (reason)` for a request the mode does not take.
 */
function tokenFaithfulLine(call: CallRow): string | null {
  const faithful = call.metadata.tokenFaithful;
  if (faithful === null || typeof faithful !== 'object') return null;
  const { mode, reason, extends: extended, newTokens, error } = faithful as Record<string, unknown>;
  const why = typeof reason === 'string' ? reason : 'no reason recorded';
  if (mode === 'extend') return `extends call ${String(extended)}${typeof newTokens === 'number' ? ` (+${newTokens} tokens)` : ''}`;
  if (mode === 'fresh') return `rendered fresh (${why})`;
  if (mode !== 'plain') return String(mode);
  if (!call.flags.includes('token_faithful_fallback')) return `sent plain by design (${why})`;
  return `fell back to plain (${why}${typeof error === 'string' ? `: ${oneLine(error)}` : ''})`;
}

function messageLines(title: string, message: ReadableMessage, full: boolean): string[] {
  const lines = [title];
  if (message.parts.length === 0) lines.push('    (empty)');
  for (const part of message.parts) lines.push(...partLines(part, full));
  return lines;
}

function partLines(part: ReadablePart, full: boolean): string[] {
  const id = part.id === undefined ? '' : ` ${part.id}`;
  switch (part.kind) {
    case 'text':
      return indent(fold(part.text, full), 4);
    case 'reasoning':
      return ['    reasoning:', ...indent(fold(part.text, full), 6)];
    case 'tool_call':
      return [`    tool call ${part.name ?? '?'}${id}:`, ...indent(fold(part.text, full), 6)];
    case 'tool_result':
      return [`    tool result${id === '' ? '' : ` for${id}`}:`, ...indent(fold(part.text, full), 6)];
    case 'image':
      return [`    [${part.name ?? 'image'}]`];
    default:
      return [`    [${part.name ?? 'other'}]`, ...indent(fold(part.text, full), 6)];
  }
}

/**
 * A long text's first FOLD_HEAD and last FOLD_TAIL characters around a note of how many were left out.
 *
 * @example fold('x'.repeat(5000), false) // 'xxx…\n… [4000 characters folded; --full shows all] …\n…xxx'
 */
export function fold(text: string, full: boolean): string {
  if (full || text.length <= FOLD_AT) return text;
  const folded = text.length - FOLD_HEAD - FOLD_TAIL;
  return `${text.slice(0, FOLD_HEAD)}\n… [${folded} characters folded; --full shows all] …\n${text.slice(-FOLD_TAIL)}`;
}

/** The text's lines, indented; blank lines around it (Qwen3 opens its reasoning and content with some) left out. */
function indent(text: string, width: number): string[] {
  const pad = ' '.repeat(width);
  return text
    .replace(/^(?:[ \t]*\r?\n)+|(?:\r?\n[ \t]*)+$/g, '')
    .split(/\r?\n/)
    .map((line) => (line.trim() === '' ? '' : pad + line));
}

function milliseconds(value: number | null): string {
  return value === null ? '-' : `${Math.round(value)} ms`;
}

/** The backend's own counts, when they differ from the ids recorded (a flag says why). */
function usageNote(call: CallRow): string {
  const usage = call.usage;
  if (usage === null) return '';
  const same = usage.promptTokens === call.promptTokenIds?.length && usage.completionTokens === call.completionTokenIds?.length;
  return same ? '' : ` (backend usage: prompt ${usage.promptTokens ?? '-'}, completion ${usage.completionTokens ?? '-'})`;
}
