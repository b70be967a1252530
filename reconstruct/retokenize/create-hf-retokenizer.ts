import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadHfTokenizer } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { normalizeChatMessages, normalizeChatTools } from '../../model-format/chat-template/normalize-chat-messages.js';
import { chatTemplateSpecialTokens, renderChatTemplate } from '../../model-format/chat-template/render-chat-template.js';
import { postProcessorFrame } from './post-processor-frame.js';
import type { RenderChatOptions, Retokenizer } from './retokenizer.js';
import { writeTemplateReply, type TemplateReplyFormat } from './write-template-reply.js';

/**
 * A retokenizer over a Hugging Face model folder (`tokenizer.json` + `tokenizer_config.json`): ids exactly as
 * the model's tokenizer gives them, chat prompts through the folder's chat template rendered the way vLLM renders
 * it (messages and tools normalized as vLLM does), replies written in the template's own layout (`<think>`,
 * Hermes `<tool_call>`, the config's `eos_token` ending the turn). `hash` is the sha256 of both files: the
 * vocabulary and the template decide the ids.
 *
 * @example
 * const retokenizer = await createHfRetokenizer(qwen3TokenizerDir());
 * retokenizer.encode('Hello<|im_end|>'); // Int32Array [9707, 151645]
 */
export async function createHfRetokenizer(directory: string): Promise<Retokenizer> {
  const tokenizer = await loadHfTokenizer(directory);
  const [tokenizerFile, configFile] = await Promise.all([
    readFile(path.join(directory, 'tokenizer.json')),
    readFile(path.join(directory, 'tokenizer_config.json')),
  ]);
  const hash = createHash('sha256').update(tokenizerFile).update(configFile).digest('hex');
  const frame = postProcessorFrame((JSON.parse(tokenizerFile.toString('utf8')) as { post_processor?: unknown }).post_processor);
  const template = tokenizer.chatTemplate;
  const replyFormat: TemplateReplyFormat = {
    thinkTags: template?.includes('<think>') ?? false,
    toolCallTags: template?.includes('<tool_call>') ?? false,
    endToken: tokenizer.eosToken,
  };
  const encode = (text: string): Int32Array => Int32Array.from(tokenizer.encode(text));
  const retokenizer: Retokenizer = {
    kind: 'hf',
    name: `hf:${path.basename(path.resolve(directory))}`,
    hash: `sha256:${hash}`,
    eosToken: tokenizer.eosToken,
    encode,
    encodePrompt: (text) => Int32Array.from([...frame.prefix, ...tokenizer.encode(text), ...frame.suffix]),
    decode: (ids) => tokenizer.decode(Array.from(ids)),
    writeReply: (output, context) => writeTemplateReply(output, context, replyFormat),
  };
  if (template !== null) {
    retokenizer.renderChat = (messages, tools, options: RenderChatOptions = {}) =>
      renderChatTemplate({
        template: options.template ?? template,
        messages: normalizeChatMessages(messages),
        tools: normalizeChatTools(tools ?? []),
        addGenerationPrompt: options.addGenerationPrompt ?? true,
        continueFinalMessage: options.continueFinalMessage ?? false,
        extraContext: options.templateKwargs ?? {},
        specialTokens: chatTemplateSpecialTokens(tokenizer),
      });
  }
  return retokenizer;
}
