import { describe, expect, it } from 'vitest';
import { postProcessorFrame } from '../../../reconstruct/retokenize/post-processor-frame.js';
import type { AssistantOutput } from '../../../reconstruct/retokenize/retokenizer.js';
import { writeTemplateReply, type TemplateReplyFormat } from '../../../reconstruct/retokenize/write-template-reply.js';

const QWEN3: TemplateReplyFormat = { thinkTags: true, toolCallTags: true, endToken: '<|im_end|>' };
const GENERATION_PROMPT = '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n';

function reply(fields: Partial<AssistantOutput>): AssistantOutput {
  return { reasoning: null, content: null, toolCalls: [], endsTurn: true, ...fields };
}

describe('writing a reply back in the Qwen3 template layout', () => {
  it('does not write <think> again when the generation prompt already opened it (thinking-only templates)', () => {
    const promptText = `${GENERATION_PROMPT}<think>\n`;
    expect(writeTemplateReply(reply({ reasoning: 'sum it\n', content: '\n\n4' }), { promptText }, QWEN3)).toEqual({
      text: 'sum it\n</think>\n\n4',
      endToken: '<|im_end|>',
    });
    expect(writeTemplateReply(reply({ reasoning: 'sum it', content: '4' }), { promptText }, QWEN3)).toEqual({
      text: 'sum it\n</think>\n\n4',
      endToken: '<|im_end|>',
    });
  });

  it('puts the template\'s "\\n\\n" between </think> and a tool call when the server reported no content', () => {
    const call = { name: 'ls', arguments: '{"path": "."}' };
    expect(writeTemplateReply(reply({ reasoning: 'list', toolCalls: [call] }), { promptText: GENERATION_PROMPT }, QWEN3)).toEqual({
      text: '<think>\nlist\n</think>\n\n<tool_call>\n{"name": "ls", "arguments": {"path": "."}}\n</tool_call>',
      endToken: '<|im_end|>',
    });
    expect(writeTemplateReply(reply({ content: 'Listing.', toolCalls: [call], endsTurn: false }), { promptText: GENERATION_PROMPT }, QWEN3)).toEqual({
      text: 'Listing.\n<tool_call>\n{"name": "ls", "arguments": {"path": "."}}\n</tool_call>',
      endToken: null,
    });
  });

  it('refuses reasoning or tool calls a template without <think> or <tool_call> could not have produced', () => {
    const plain: TemplateReplyFormat = { thinkTags: false, toolCallTags: false, endToken: '<|eot_id|>' };
    expect(writeTemplateReply(reply({ reasoning: 'x', content: 'y' }), { promptText: '' }, plain)).toHaveProperty('refusal');
    expect(writeTemplateReply(reply({ toolCalls: [{ name: 'ls', arguments: '{}' }] }), { promptText: '' }, plain)).toHaveProperty('refusal');
    expect(writeTemplateReply(reply({ content: 'Hi.' }), { promptText: '' }, plain)).toEqual({ text: 'Hi.', endToken: '<|eot_id|>' });
  });
});

describe('the prompt frame a completions endpoint adds', () => {
  it('reads BOS from a TemplateProcessing inside a Sequence (Llama 3), CLS/SEP from BertProcessing, nothing from ByteLevel', () => {
    const llama3 = {
      type: 'Sequence',
      processors: [
        { type: 'ByteLevel', add_prefix_space: true },
        {
          type: 'TemplateProcessing',
          single: [{ SpecialToken: { id: '<|begin_of_text|>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
          special_tokens: { '<|begin_of_text|>': { id: '<|begin_of_text|>', ids: [128000], tokens: ['<|begin_of_text|>'] } },
        },
      ],
    };
    expect(postProcessorFrame(llama3)).toEqual({ prefix: [128000], suffix: [] });
    expect(postProcessorFrame({ type: 'BertProcessing', cls: ['[CLS]', 101], sep: ['[SEP]', 102] })).toEqual({ prefix: [101], suffix: [102] });
    expect(postProcessorFrame({ type: 'ByteLevel', add_prefix_space: false })).toEqual({ prefix: [], suffix: [] });
  });
});
