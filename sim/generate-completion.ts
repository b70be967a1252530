import { createIncrementalDetokenizer } from '../model-format/tokenizer/create-incremental-detokenizer.js';
import type { HfTokenizer } from '../model-format/tokenizer/load-hf-tokenizer.js';
import { CANNED_REPLIES, QWEN_IM_END_ID } from './fast-canned-replies.js';
import { planCompletion, type CompletionPlan } from './plan-completion.js';
import { contentLayout, renderReply, TOOL_CALL_OPEN, type ReplyLayout, type SimReply } from './render-reply-text.js';
import { renderGptOssReply } from './render-gpt-oss-reply.js';
import { renderDeepSeekV3FirstReply } from './render-deepseek-v3-first-reply.js';
import { renderDeepSeekV3Reply } from './render-deepseek-v3-reply.js';
import { renderDeepSeekV32Reply } from './render-deepseek-v32-reply.js';
import { renderLlama3Reply } from './render-llama3-reply.js';
import { renderMistralReply } from './render-mistral-reply.js';
import { renderGlm45Reply } from './render-glm45-reply.js';
import { renderKimiK2Reply } from './render-kimi-k2-reply.js';
import { renderQwen35Reply } from './render-qwen35-reply.js';
import type { SimFamily } from './sim-options.js';
import { appendRecord, type SimContext } from './sim-context.js';
import type { ResolvedSimFault } from './sim-fault.js';
import type { SimGenerationRecord } from './sim-generation-record.js';
import type { RequestFacts } from './sim-script.js';
import { sampledLogprobs } from './seeded-logprobs.js';
import { VllmError } from './vllm-error.js';

/** Who answers a request: a script entry, the seeded policy, or (fast mode) a canned reply. */
export interface ReplyDecision {
  fault: ResolvedSimFault | null;
  scriptEntry: number | null;
  /** null: fast mode's canned reply */
  reply: SimReply | null;
}

/**
 * Takes the first matching script entry (its fault, else the `fault` option, applies). An entry with only a
 * fault still needs words to stream, so the policy (or a canned reply) provides them.
 *
 * @example
 * const decision = decideReply(context, facts, () => seededPolicyReply(policyInput));
 */
export function decideReply(context: SimContext, facts: RequestFacts, policy: () => SimReply): ReplyDecision {
  const picked = context.script?.take(facts) ?? null;
  if (picked === null && context.script?.otherwise === 'error') {
    throw new VllmError(500, `No script entry matches this ${facts.endpoint} request (last user message: ${JSON.stringify(facts.lastUserText)}).`);
  }
  const entry = picked?.entry;
  const hasWords = entry !== undefined && [entry.text, entry.reasoning, entry.content, entry.toolCalls].some((field) => field !== undefined);
  let reply: SimReply | null;
  if (hasWords) reply = entry;
  else reply = context.fast ? null : policy();
  return { fault: entry?.fault ?? context.fault, scriptEntry: picked?.index ?? null, reply };
}

export interface GenerationSettings {
  thinking: boolean;
  maxTokens: number;
  stop: readonly string[];
  stopTokenIds: readonly number[];
  /** seeds the logprobs together with the run's seed */
  promptHash: number;
  /** the number of the reply's first call where the model numbers its calls across the conversation (Kimi K2); unset: 0 */
  firstCallIndex?: number;
}

export interface Generation {
  plan: CompletionPlan;
  /** the whole reply as rendered, and where its parts sit: the answer's fields and deltas are cut from it */
  layout: ReplyLayout;
  /** sampled logprob per completion position */
  logprobs: number[];
  /** the streamed text joined */
  text: string;
}

/**
 * Turns the decided reply into completion ids (model text, then the end-of-turn token unless the reply was
 * cut) and applies the request's stop conditions and max_tokens.
 *
 * @example
 * const generation = await generateCompletion(context, decision, settings);
 */
export async function generateCompletion(context: SimContext, decision: ReplyDecision, settings: GenerationSettings): Promise<Generation> {
  const reply =
    decision.reply === null ? cannedTokens(context) : await replyTokens(context, decision.reply, settings.thinking, settings.firstCallIndex ?? 0);
  const plan = planCompletion({ ...reply, maxTokens: settings.maxTokens, stop: settings.stop, stopTokenIds: settings.stopTokenIds });
  return {
    plan,
    layout: reply.layout,
    logprobs: sampledLogprobs({ seed: context.seed, promptHash: settings.promptHash }, plan.tokenIds),
    text: plan.tokenTexts.join(''),
  };
}

interface ReplyTokens {
  layout: ReplyLayout;
  tokenIds: readonly number[];
  tokenTexts: readonly string[];
  endsTurn: boolean;
  /** the end-of-turn id when stop_reason names it (a stop token id, not the tokenizer's EOS) */
  endStopReason?: number;
}

const cannedWithEnd = CANNED_REPLIES.map((canned) => ({
  layout: contentLayout(canned.tokenTexts.join(''), TOOL_CALL_OPEN),
  tokenIds: [...canned.tokenIds, QWEN_IM_END_ID],
  tokenTexts: [...canned.tokenTexts, ''],
  endsTurn: true,
}));

function cannedTokens(context: SimContext): ReplyTokens {
  // requestCount already counts this request: the first one gets the first reply
  return cannedWithEnd[(context.requestCount - 1) % cannedWithEnd.length] ?? cannedWithEnd[0]!;
}

// fast mode tokenizes each script entry once; the seeded policy's replies are unique and never cached
const tokenizedEntries = new WeakMap<object, Map<string, ReplyTokens>>();

async function replyTokens(context: SimContext, reply: SimReply, thinking: boolean, firstCallIndex: number): Promise<ReplyTokens> {
  const key = `${thinking}:${firstCallIndex}`;
  const cached = context.fast ? tokenizedEntries.get(reply)?.get(key) : undefined;
  if (cached !== undefined) return cached;
  const tokens = tokenizeReply(await context.tokenizer(), reply, { thinking, firstCallIndex }, context.family);
  if (context.fast) {
    const byThinking = tokenizedEntries.get(reply) ?? new Map<string, ReplyTokens>();
    byThinking.set(key, tokens);
    tokenizedEntries.set(reply, byThinking);
  }
  return tokens;
}

function tokenizeReply(
  tokenizer: HfTokenizer,
  reply: SimReply,
  { thinking, firstCallIndex }: { thinking: boolean; firstCallIndex: number },
  family: SimFamily,
): ReplyTokens {
  const harmony = family === 'gpt-oss' ? renderGptOssReply(reply) : null;
  const llama3 = family === 'llama3' ? renderLlama3Reply(reply) : null;
  const deepSeekV3First = family === 'deepseek-v3-first' ? renderDeepSeekV3FirstReply(reply, { thinking }) : null;
  const kimi = family === 'kimi-k2' ? renderKimiK2Reply(reply, { thinking, firstCallIndex }) : null;
  const glm45 = family === 'glm45' ? renderGlm45Reply(reply, { thinking }) : null;
  const layout =
    harmony ??
    llama3 ??
    deepSeekV3First ??
    kimi ??
    glm45 ??
    (family === 'deepseek-v3'
      ? renderDeepSeekV3Reply(reply, { thinking })
      : family === 'deepseek-v32'
        ? renderDeepSeekV32Reply(reply, { thinking })
        : family === 'qwen3.5'
          ? renderQwen35Reply(reply, { thinking })
          : family === 'mistral'
            ? // a tokenizer of v11 or later has [ARGS] (vLLM's test for a Hugging Face tokenizer) and writes each call with it;
              // one of v13 or later has [THINK] and thinks first
              renderMistralReply(reply, {
                v11: tokenizer.tokenToId('[ARGS]') !== undefined,
                think: tokenizer.tokenToId('[THINK]') !== undefined,
              })
            : renderReply(reply, { thinking }));
  // Llama 3's <|python_tag|> opens the turn's ids without being in its text (a special token, skipped)
  const tokenIds = [...(llama3?.openToken === undefined ? [] : tokenizer.encode(llama3.openToken)), ...tokenizer.encode(layout.text)];
  // vLLM skips special tokens in output text (`skip_special_tokens: true`); Qwen3's tags are not special. Harmony's
  // are, and are read back from the text: gpt-oss's text keeps them (the gateway asks `skip_special_tokens: false`), and
  // so does Mistral's (`[TOOL_CALLS]` is special) and Kimi K2's (its section markers)
  const detokenizer = createIncrementalDetokenizer(tokenizer, {
    skipSpecialTokens: harmony === null && family !== 'mistral' && family !== 'kimi-k2',
  });
  const tokenTexts = tokenIds.map((id) => detokenizer.push(id));
  if (tokenTexts.length > 0) tokenTexts[tokenTexts.length - 1] += detokenizer.flush();
  // the parts' offsets index the rendered text, so the streamed text must be that text
  if (tokenTexts.join('') !== layout.text) {
    throw new VllmError(
      500,
      'The simulator cannot stream this reply: its tokens do not decode back to the rendered text (a tokenizer that normalizes text differently).',
    );
  }
  const endsTurn = reply.finishReason !== 'length';
  let endStopReason: number | undefined;
  if (endsTurn) {
    // gpt-oss stops at <|call|> after a tool call (generation_config's eos_token_id lists it), else at <|return|>
    const callId = harmony?.endsWithCall === true ? tokenizer.encode('<|call|>')[0] : undefined;
    // Llama 3.1's <|eom_id|> is one of generation_config's eos_token_id besides the tokenizer's EOS: vLLM makes those
    // stop token ids (SamplingParams.update_from_generation_config), so stop_reason names it
    // Kimi K2 ends its turn with <|im_end|>, its generation_config's eos_token_id (the tokenizer's EOS is [EOS])
    // GLM stops at the next message's role token (<|observation|>, <|user|>), where the tokenizer has them
    const glmEnd = glm45 !== null && tokenizer.tokenToId(glm45.endToken) !== undefined ? glm45.endToken : undefined;
    const endToken = llama3?.endToken ?? kimi?.endToken ?? glmEnd;
    const endId = endToken === undefined ? undefined : tokenizer.encode(endToken)[0];
    // the tokenizer's own EOS is no stop token id: vLLM names none in stop_reason then
    endStopReason = endId === tokenizer.eosTokenId ? undefined : endId;
    tokenIds.push(endId ?? callId ?? tokenizer.eosTokenId ?? QWEN_IM_END_ID);
    tokenTexts.push('');
  }
  return { layout, tokenIds, tokenTexts, endsTurn, ...(endStopReason === undefined ? {} : { endStopReason }) };
}

/**
 * Records a request answered by a fault that happens before any generation (refuse, http-error, stall).
 *
 * @example
 * recordEarlyFault(context, record, fault, 429);
 */
export function recordEarlyFault(context: SimContext, record: SimGenerationRecord, fault: ResolvedSimFault, status: number): void {
  record.fault = fault;
  record.status = status;
  appendRecord(context, record);
}
