import { THINK_END, THINK_START } from './split-qwen3-reasoning.js';

export interface ReasoningStreamDelta {
  reasoning?: string;
  content?: string;
}

/** Classifies streamed text deltas as reasoning or content; null when a delta carries neither. */
export interface Qwen3ReasoningStream {
  push(deltaText: string): ReasoningStreamDelta | null;
  /** true once `</think>` went by (what follows is content) */
  readonly ended: boolean;
}

/**
 * The streaming half of vLLM's `qwen3` reasoning parser, consistent with `splitQwen3Reasoning`: the
 * `<think>` and `</think>` tokens themselves yield nothing, text between them is reasoning, text after is
 * content, and text of a completion that never opened `<think>` is content. Like vLLM's parser (which looks
 * for the tag token ids) it expects each tag whole inside one delta: both are single tokens in Qwen3's vocabulary.
 *
 * @example
 * const stream = createQwen3ReasoningStream();
 * ['<think>', '\n', 'hm', '</think>', '\n\n', 'Hi'].map((delta) => stream.push(delta));
 * // [null, { reasoning: '\n' }, { reasoning: 'hm' }, null, { content: '\n\n' }, { content: 'Hi' }]
 */
export function createQwen3ReasoningStream(): Qwen3ReasoningStream {
  let phase: 'before' | 'reasoning' | 'content' = 'before';
  return {
    get ended() {
      return phase === 'content';
    },
    push(deltaText) {
      let text = deltaText;
      let reasoning = '';
      let content = '';
      if (phase === 'before') {
        const start = text.indexOf(THINK_START);
        if (start !== -1) {
          content = text.slice(0, start);
          text = text.slice(start + THINK_START.length);
          phase = 'reasoning';
        }
      }
      if (phase === 'reasoning') {
        const end = text.indexOf(THINK_END);
        if (end === -1) {
          reasoning = text;
        } else {
          reasoning = text.slice(0, end);
          content += text.slice(end + THINK_END.length);
          phase = 'content';
        }
      } else {
        content += text;
      }
      if (reasoning === '' && content === '') return null;
      const delta: ReasoningStreamDelta = {};
      if (reasoning !== '') delta.reasoning = reasoning;
      if (content !== '') delta.content = content;
      return delta;
    },
  };
}
