/** mistral_common's `SpecialTokens.begin_think` / `end_think`: control tokens of tokenizers v13 and later (Magistral). */
export const BEGIN_THINK = '[THINK]';
export const END_THINK = '[/THINK]';

/**
 * Splits a Mistral completion as vLLM's `mistral` reasoning parser does (`MistralReasoningParser.extract_reasoning`,
 * vllm/reasoning/mistral_reasoning_parser.py at 3ff2de9c): the text is cut at its first `[THINK]`; when a `[/THINK]`
 * follows, the text between is reasoning and what stood before `[THINK]` plus what follows `[/THINK]` is content (null
 * when empty); a `[THINK]` never closed makes the rest reasoning and what stood before it content; without `[THINK]`
 * all is content, a stray first `[/THINK]` taken out. An empty completion is no reasoning and empty content.
 *
 * @example splitMistralReasoning('[THINK]weigh it[/THINK]Yes.'); // { reasoning: 'weigh it', content: 'Yes.' }
 */
export function splitMistralReasoning(text: string): { reasoning: string | null; content: string | null } {
  if (text === '') return { reasoning: null, content: '' };
  const begin = text.indexOf(BEGIN_THINK);
  if (begin === -1) {
    const stray = text.indexOf(END_THINK);
    return { reasoning: null, content: stray === -1 ? text : text.slice(0, stray) + text.slice(stray + END_THINK.length) };
  }
  const before = text.slice(0, begin);
  const after = text.slice(begin + BEGIN_THINK.length);
  const end = after.indexOf(END_THINK);
  if (end === -1) return { reasoning: after, content: before === '' ? null : before };
  const content = before + after.slice(end + END_THINK.length);
  return { reasoning: after.slice(0, end), content: content === '' ? null : content };
}

/** Classifies streamed text deltas as reasoning or content; null when a delta carries neither. */
export interface MistralReasoningStream {
  push(deltaText: string): { reasoning?: string; content?: string } | null;
}

/**
 * The streaming half of vLLM's `mistral` reasoning parser, which is `BaseThinkingReasoningParser.
 * extract_reasoning_streaming` (vllm/reasoning/basic_parsers.py), its token-id tests read on text (`[THINK]` and
 * `[/THINK]` are single control tokens, so "the delta is one of them" is "the delta is exactly the tag"):
 * - a delta that is only a tag yields nothing;
 * - `[THINK]` already seen: a delta holding `[/THINK]` splits there; after `[/THINK]` all is content, before it reasoning;
 * - `[THINK]` in this delta: with `[/THINK]` too, the text between is reasoning and after it content; without, the
 *   whole delta is reasoning (the `[THINK]` text and anything before it included, as vLLM sends it);
 * - no `[THINK]` yet: content (the model did not think). Unlike the whole split, a stray `[/THINK]` stays in the content.
 *
 * @example
 * const stream = createMistralReasoningStream();
 * ['[THINK]', 'hm', '[/THINK]', 'Yes'].map((delta) => stream.push(delta)); // [null, { reasoning: 'hm' }, null, { content: 'Yes' }]
 */
export function createMistralReasoningStream(): MistralReasoningStream {
  let previous = '';
  return {
    push(deltaText) {
      const before = previous;
      previous += deltaText;
      if (deltaText === BEGIN_THINK || deltaText === END_THINK) return null;
      const split = splitDelta(before, deltaText);
      const delta: { reasoning?: string; content?: string } = {};
      if (split.reasoning !== undefined && split.reasoning !== '') delta.reasoning = split.reasoning;
      if (split.content !== undefined && split.content !== '') delta.content = split.content;
      return Object.keys(delta).length === 0 ? null : delta;
    },
  };
}

function splitDelta(before: string, deltaText: string): { reasoning?: string; content?: string } {
  const end = deltaText.indexOf(END_THINK);
  if (before.includes(BEGIN_THINK)) {
    if (end !== -1) return { reasoning: deltaText.slice(0, end), content: deltaText.slice(end + END_THINK.length) };
    return before.includes(END_THINK) ? { content: deltaText } : { reasoning: deltaText };
  }
  const begin = deltaText.indexOf(BEGIN_THINK);
  if (begin === -1) return { content: deltaText };
  if (end === -1) return { reasoning: deltaText };
  return { reasoning: deltaText.slice(begin + BEGIN_THINK.length, end), content: deltaText.slice(end + END_THINK.length) };
}
