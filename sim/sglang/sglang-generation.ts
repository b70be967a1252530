import type { FastifyReply } from 'fastify';
import { actEarlyFault } from '../act-early-fault.js';
import { decideReply, generateCompletion, type Generation } from '../generate-completion.js';
import type { SimReply } from '../render-reply-text.js';
import { decodeTokenFor } from '../respond.js';
import type { SimContext } from '../sim-context.js';
import type { ResolvedSimFault } from '../sim-fault.js';
import type { SimGenerationRecord } from '../sim-generation-record.js';
import type { RequestFacts } from '../sim-script.js';
import { VllmError } from '../vllm-error.js';
import type { SglangLogprobSource } from './sglang-logprobs.js';

/** SGLang's finish reasons as `BaseFinishReason.to_json()` writes them (schedule_batch.py). */
export type SglangFinishReason = { type: 'stop'; matched: number | string } | { type: 'length'; length: number };

export interface SglangGenerationSettings {
  thinking: boolean;
  maxNewTokens: number;
  stop: readonly string[];
  stopTokenIds: readonly number[];
  /** `no_stop_trim`: keep the matched stop string or stop token's text in `text` */
  noStopTrim: boolean;
  skipSpecialTokens: boolean;
  /**
   * the text honours `skipSpecialTokens` for every id, as SGLang's detokenizer does (`/generate`); unset: only the
   * matched stop token's text does, the rest is the family's text as rendered (the chat endpoint lays its fields out on it)
   */
  textSkipsSpecialTokens?: boolean;
  promptHash: number;
  /** refuses a decided reply the endpoint cannot answer (chat: raw text with tags, see check-chat-reply.ts) */
  checkReply?: (reply: SimReply | null, scriptEntry: number | null) => void;
}

/** The stop fields SGLang reads, under the same names in `/generate`'s `sampling_params` and the OpenAI bodies. */
export interface SglangStopFields {
  stop?: string | readonly string[] | null;
  stop_token_ids?: readonly number[] | null;
  no_stop_trim?: boolean | null;
  skip_special_tokens?: boolean | null;
}

/**
 * The stop settings of a generation from a request's stop fields (SamplingParams' defaults: no stops, trim the
 * matched stop, skip special tokens).
 *
 * @example
 * runSglangGeneration(context, record, reply, facts, { thinking, maxNewTokens, ...sglangStopSettings(body, hash) }, policy);
 */
export function sglangStopSettings(
  fields: SglangStopFields,
  promptHash: number,
): Pick<SglangGenerationSettings, 'stop' | 'stopTokenIds' | 'noStopTrim' | 'skipSpecialTokens' | 'promptHash'> {
  return {
    stop: typeof fields.stop === 'string' ? [fields.stop] : (fields.stop ?? []),
    stopTokenIds: fields.stop_token_ids ?? [],
    noStopTrim: fields.no_stop_trim === true,
    skipSpecialTokens: fields.skip_special_tokens !== false,
    promptHash,
  };
}

/** One finished generation, as SGLang's scheduler and detokenizer report it. */
export interface SglangGeneration {
  generation: Generation;
  fault: ResolvedSimFault | null;
  /** `req.output_ids_through_stop`: the ids through the stop condition, the matched EOS or stop token included */
  outputIds: readonly number[];
  /** the text each id adds (the detokenizer's trimming of a matched stop applied) */
  tokenTexts: readonly string[];
  text: string;
  finishReason: SglangFinishReason;
}

/**
 * Picks the reply (script, seeded policy or canned), acts out an early fault (true: answered), generates, and reports
 * the result in SGLang's terms: output ids through the stop (schedule_batch.py `output_ids_through_stop`, "Stop
 * position is included"), `finish_reason` `{type: "stop", matched}` with the EOS / stop token id or the stop string,
 * or `{type: "length", length}`, and the text trimmed as the detokenizer's `trim_matched_stop` does (the matched
 * token's text and everything from the stop string on left out, unless `no_stop_trim`). The finished sequence is
 * remembered for the next request's `cached_tokens` (see cachedPrefix).
 *
 * @example
 * const result = await runSglangGeneration(context, record, reply, facts, settings, () => policyReply);
 * if (result === null) return; // a fault answered
 */
export async function runSglangGeneration(
  context: SimContext,
  record: SimGenerationRecord,
  reply: FastifyReply,
  facts: RequestFacts,
  settings: SglangGenerationSettings,
  policy: () => SimReply,
): Promise<SglangGeneration | null> {
  const decision = decideReply(context, facts, policy);
  record.scriptEntry = decision.scriptEntry;
  settings.checkReply?.(decision.reply, decision.scriptEntry);
  if (actEarlyFault(context, record, decision.fault, reply)) return null;
  const generation = await generateCompletion(context, decision, {
    thinking: settings.thinking,
    maxTokens: settings.maxNewTokens,
    promptHash: settings.promptHash,
    stop: settings.stop,
    stopTokenIds: settings.stopTokenIds,
  });
  const { plan } = generation;
  const outputIds = plan.tokenIds;
  const last = outputIds.length - 1;
  const tokenTexts = [...plan.tokenTexts];
  // a family whose text keeps its special tokens (Harmony's <|channel|>) loses them unless asked skip_special_tokens: false
  if (settings.textSkipsSpecialTokens === true && settings.skipSpecialTokens) dropSpecialTokenTexts(context, outputIds, tokenTexts);
  let finishReason: SglangFinishReason;
  if (plan.finishReason === 'length') finishReason = { type: 'length', length: outputIds.length };
  else if (typeof plan.stopReason === 'string') {
    finishReason = { type: 'stop', matched: plan.stopReason };
    if (settings.noStopTrim) tokenTexts[last] = untrimmedLastText(context, outputIds, tokenTexts, plan.stopReason);
  } else {
    const matched = outputIds[last] ?? 0;
    finishReason = { type: 'stop', matched };
    tokenTexts[last] = settings.noStopTrim ? keptTokenText(context, matched, settings.skipSpecialTokens) : '';
  }
  const text = tokenTexts.join('');
  Object.assign(record, {
    completionTokenIds: [...outputIds],
    logprobs: generation.logprobs,
    finishReason: plan.finishReason,
    stopReason: plan.stopReason,
    text,
    ...(decision.fault === null ? {} : { fault: decision.fault }),
  });
  rememberSequence(context, [...record.promptTokenIds, ...outputIds]);
  return { generation, fault: decision.fault, outputIds, tokenTexts, text, finishReason };
}

// with no_stop_trim the text runs to the end of the token that completed the stop string
function untrimmedLastText(context: SimContext, ids: readonly number[], texts: readonly string[], stop: string): string {
  const before = texts.slice(0, -1).join('');
  const tokenizer = context.loadedTokenizer();
  const full = tokenizer === null ? `${texts.join('')}${stop}` : tokenizer.decode([...ids], { skipSpecialTokens: true });
  if (!full.startsWith(before)) throw new VllmError(500, 'The simulator cannot lay out this no_stop_trim reply.');
  return full.slice(before.length);
}

function dropSpecialTokenTexts(context: SimContext, ids: readonly number[], texts: string[]): void {
  const tokenizer = context.loadedTokenizer();
  if (tokenizer === null) return;
  ids.forEach((id, index) => {
    if (tokenizer.isSpecialId(id)) texts[index] = '';
  });
}

function keptTokenText(context: SimContext, id: number, skipSpecialTokens: boolean): string {
  const text = decodeTokenFor(context)(id);
  return skipSpecialTokens && /^<\|.*\|>$/u.test(text) ? '' : text;
}

/**
 * `cached_tokens`: the longest prefix of this prompt that an earlier request's prompt and output share, as SGLang's
 * radix cache (page size 1) would hold it; at least the last prompt token is always computed. The finished sequence is
 * then remembered (the newest 64).
 *
 * @example
 * const cached = cachedPrefix(context, promptIds); remember(context, [...promptIds, ...outputIds]);
 */
export function cachedPrefix(context: SimContext, promptIds: readonly number[]): number {
  let best = 0;
  for (const earlier of context.recentPrompts) {
    let shared = 0;
    const limit = Math.min(earlier.length, promptIds.length);
    while (shared < limit && earlier[shared] === promptIds[shared]) shared++;
    best = Math.max(best, shared);
  }
  return Math.max(0, Math.min(best, promptIds.length - 1));
}

/**
 * What a request's logprob fields are built from: the seeded scores of this prompt and the generation's sampled
 * logprobs; the endpoint says where scoring starts, how many alternatives and whether token texts come along.
 *
 * @example
 * sglangLogprobSource(context, record, result, hash, { logprobStartLen: -1, topLogprobsNum: 2, returnText: true });
 */
export function sglangLogprobSource(
  context: SimContext,
  record: SimGenerationRecord,
  result: SglangGeneration,
  promptHash: number,
  fields: Pick<SglangLogprobSource, 'logprobStartLen' | 'topLogprobsNum' | 'returnText'>,
): SglangLogprobSource {
  return {
    source: { seed: context.seed, promptHash },
    outputLogprobs: result.generation.logprobs,
    promptTokenIds: record.promptTokenIds,
    ...fields,
    decodeToken: decodeTokenFor(context),
  };
}

/** @example rememberSequence(context, [...promptIds, ...outputIds]); */
export function rememberSequence(context: SimContext, ids: readonly number[]): void {
  context.recentPrompts.push([...ids]);
  if (context.recentPrompts.length > 64) context.recentPrompts.shift();
}

/**
 * How many output tokens are reasoning (SGLang's `reasoning_tokens`): those up to and including the one that closes
 * the think block, counted when a chat request runs the reasoning parser; 0 otherwise.
 *
 * @example
 * reasoningTokenCount(result, true); // 12
 */
export function reasoningTokenCount(result: SglangGeneration, counted: boolean): number {
  const think = result.generation.layout.think;
  if (!counted || think === null) return 0;
  const contentStart = result.generation.layout.contentStart;
  let length = 0;
  for (const [index, text] of result.generation.plan.tokenTexts.entries()) {
    length += text.length;
    if (length >= contentStart) return index + 1;
  }
  return result.outputIds.length;
}
