import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadHfTokenizer, type HfTokenizer } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { normalizeChatMessages, normalizeChatTools } from '../../model-format/chat-template/normalize-chat-messages.js';
import { chatTemplateSpecialTokens, renderChatTemplate } from '../../model-format/chat-template/render-chat-template.js';
import { countOccurrences, indexAfterOccurrence, type PromptRenderer, type PromptRequest } from './prompt-renderer.js';

interface LoadedModel {
  tokenizer: HfTokenizer;
  template: string;
}

/**
 * Renders prompts from a Hugging Face model folder, the way vLLM's chat endpoint does (messages and tools
 * normalized as vLLM hands them to the template, `chat_template_kwargs` passed in, no special tokens added).
 * The template comes from `chat_template.jinja` when the folder has one (newer transformers write it there),
 * else from `tokenizer_config.json`. The folder is loaded once, on first use.
 *
 * @example const renderer = createLocalPromptRenderer(qwen3TokenizerDir());
 */
export function createLocalPromptRenderer(modelDir: string): PromptRenderer {
  let loading: Promise<LoadedModel> | undefined;
  const load = (): Promise<LoadedModel> => {
    loading ??= loadModel(modelDir);
    return loading;
  };
  return {
    async renderFull(request) {
      const model = await load();
      return model.tokenizer.encode(renderText(model, request, request.messages, request.addGenerationPrompt));
    },
    async renderAfterTurn(request, prefixCount, endOfTurnId) {
      const model = await load();
      const marker = model.tokenizer.decode([endOfTurnId]);
      if (marker === '') return null;
      const before = renderText(model, request, request.messages.slice(0, prefixCount), false);
      const turns = countOccurrences(before, marker, marker.length);
      if (turns === 0) return null;
      const whole = renderText(model, request, request.messages, request.addGenerationPrompt);
      const cut = indexAfterOccurrence(whole, marker, turns, marker.length);
      // special tokens are split off before the rest is tokenized, so the text after one encodes on its own
      // exactly as it does inside the whole prompt
      return cut === -1 ? null : model.tokenizer.encode(whole.slice(cut));
    },
  };
}

async function loadModel(modelDir: string): Promise<LoadedModel> {
  const tokenizer = await loadHfTokenizer(modelDir);
  const template = await readFile(path.join(modelDir, 'chat_template.jinja'), 'utf8').catch(() => tokenizer.chatTemplate);
  if (template === null) throw new Error(`${modelDir} has no chat template (chat_template.jinja or tokenizer_config.json chat_template)`);
  return { tokenizer, template };
}

function renderText(model: LoadedModel, request: PromptRequest, messages: Array<Record<string, unknown>>, addGenerationPrompt: boolean): string {
  try {
    return renderChatTemplate({
      template: request.chatTemplate ?? model.template,
      messages: normalizeChatMessages(messages),
      tools: request.tools === null ? null : normalizeChatTools(request.tools),
      addGenerationPrompt,
      extraContext: request.chatTemplateKwargs ?? {},
      specialTokens: chatTemplateSpecialTokens(model.tokenizer),
    });
  } catch (error) {
    throw new Error(`the chat template cannot render this conversation: ${(error as Error).message}`, { cause: error });
  }
}
