import { createHash } from 'node:crypto';
import { canonicalJson } from '../../core/json/canonical-json.js';
import { isRecord } from '../../core/json/is-record.js';
import type { PromptRequest } from './prompt-renderer.js';

/**
 * One message in the form two requests are compared in (docs/token-faithful.md, "the extension rule"):
 * content normalized as vLLM does (text parts joined with "\n", null -> ""), reasoning dropped (templates drop
 * it from earlier turns, harnesses drop it or send it back), tool-call arguments compared as parsed JSON with
 * ids ignored (front doors rename them), and an assistant turn's content compared without its leading and
 * trailing whitespace (Qwen3 returns "\n\n" before a tool call, harnesses send "" or nothing back).
 *
 * @example canonicalMessage({ role: 'assistant', content: '\n\nHi', reasoning: 'x' }) === canonicalMessage({ role: 'assistant', content: 'Hi' })
 */
export function canonicalMessage(message: Record<string, unknown>): string {
  const role = String(message.role);
  const { text, parts } = contentOf(message.content);
  const canonical: Record<string, unknown> = { role, content: role === 'assistant' ? text.trim() : text };
  if (parts.length > 0) canonical.parts = parts;
  if (typeof message.name === 'string') canonical.name = message.name;
  if (role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
    canonical.toolCalls = message.tool_calls.map(canonicalToolCall);
  }
  return canonicalJson(canonical);
}

/**
 * Hashes of every prefix of the conversation: entry i stands for messages 0..i, so two conversations share their
 * first n messages exactly when their entries n-1 are equal.
 *
 * @example const hashes = prefixHashes(messages); hashes.length === messages.length
 */
export function prefixHashes(messages: ReadonlyArray<Record<string, unknown>>, start = ''): string[] {
  const hashes: string[] = [];
  let previous = start;
  for (const message of messages) {
    previous = extendPrefixHash(previous, canonicalMessage(message));
    hashes.push(previous);
  }
  return hashes;
}

/**
 * The hash of a prefix one message longer.
 *
 * @example extendPrefixHash(hashes.at(-1) ?? '', canonicalMessage(assistantMessage))
 */
export function extendPrefixHash(previous: string, canonical: string): string {
  return createHash('sha256').update(previous).update('\u0000').update(canonical).digest('base64');
}

/**
 * What must stay the same for one call to extend another, besides the messages: the model, the tools, the
 * template switches and a per-request template.
 *
 * @example renderSettingsKey(request).tools // a hash of the tool definitions
 */
export function renderSettingsKey(request: PromptRequest): { model: string; tools: string; templateKwargs: string; template: string } {
  const digest = (value: unknown): string => createHash('sha256').update(canonicalJson(value)).digest('base64');
  return {
    model: request.model ?? '',
    tools: digest(request.tools),
    templateKwargs: digest(request.chatTemplateKwargs),
    template: digest(request.chatTemplate),
  };
}

function contentOf(content: unknown): { text: string; parts: unknown[] } {
  if (typeof content === 'string') return { text: content, parts: [] };
  if (!Array.isArray(content)) return { text: '', parts: [] };
  const texts: string[] = [];
  const parts: unknown[] = [];
  for (const part of content) {
    if (typeof part === 'string') texts.push(part);
    else if (isRecord(part) && typeof part.text === 'string') texts.push(part.text);
    else parts.push(part);
  }
  return { text: texts.join('\n'), parts };
}

function canonicalToolCall(call: unknown): unknown {
  const fn = isRecord(call) && isRecord(call.function) ? call.function : {};
  const raw = fn.arguments;
  let parsed: unknown = {};
  if (typeof raw === 'string' && raw.trim() !== '') {
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = raw.trim();
    }
  } else if (raw !== undefined && raw !== null && raw !== '') parsed = raw;
  return { name: fn.name ?? null, arguments: parsed };
}
