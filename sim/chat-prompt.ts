import type { HfTokenizer } from '../model-format/tokenizer/load-hf-tokenizer.js';
import { normalizeChatMessages, normalizeChatTools } from '../model-format/chat-template/normalize-chat-messages.js';
import { chatTemplateSpecialTokens, renderChatTemplate } from '../model-format/chat-template/render-chat-template.js';
import type { ChatRequest } from './read-generation-request.js';
import type { RequestFacts } from './sim-script.js';
import { VllmError } from './vllm-error.js';

/** How a chat request is templated and parsed. */
export interface ChatSettings {
  /** Qwen3 thinks unless `chat_template_kwargs.enable_thinking` is false */
  thinking: boolean;
  /** tool definitions as the template sees them */
  tools: Array<Record<string, unknown>>;
  /** the Hermes tool parser runs: tools present and tool_choice is not "none" */
  parseToolCalls: boolean;
  /** tool_choice names one function (vLLM then reports finish_reason "stop", not "tool_calls") */
  namedToolChoice: boolean;
}

/** @example chatSettings({ messages, tools: [tool] }).parseToolCalls // true */
export function chatSettings(request: ChatRequest): ChatSettings {
  const tools = normalizeChatTools(request.tools ?? []);
  const toolChoice = request.tool_choice;
  return {
    thinking: request.chat_template_kwargs?.enable_thinking !== false,
    tools,
    parseToolCalls: tools.length > 0 && toolChoice !== 'none',
    namedToolChoice: typeof toolChoice === 'object' && toolChoice !== null,
  };
}

/**
 * Renders the request through the model's chat template and tokenizes it, as vLLM's chat renderer does
 * (`add_generation_prompt` defaults to true, `chat_template_kwargs` reach the template, no special tokens
 * are added on top). Bad input becomes vLLM's 400.
 *
 * @example
 * const prompt = renderChatPrompt(tokenizer, request, settings); // { text: '<|im_start|>user\n…', tokenIds: [151644, …] }
 */
export function renderChatPrompt(tokenizer: HfTokenizer, request: ChatRequest, settings: ChatSettings): { text: string; tokenIds: number[] } {
  const addGenerationPrompt = request.add_generation_prompt ?? true;
  const continueFinalMessage = request.continue_final_message ?? false;
  if (addGenerationPrompt && continueFinalMessage) {
    throw new VllmError(400, 'Cannot set both `continue_final_message` and `add_generation_prompt` to True.');
  }
  if (tokenizer.chatTemplate === null) throw new VllmError(400, 'The tokenizer has no chat template.');
  let text: string;
  try {
    text = renderChatTemplate({
      template: tokenizer.chatTemplate,
      messages: normalizeChatMessages(request.messages),
      tools: settings.tools,
      addGenerationPrompt,
      continueFinalMessage,
      extraContext: request.chat_template_kwargs ?? {},
      specialTokens: chatTemplateSpecialTokens(tokenizer),
    });
  } catch (error) {
    throw new VllmError(400, error instanceof Error ? error.message : String(error));
  }
  return { text, tokenIds: tokenizer.encode(text) };
}

/**
 * The facts a script entry matches on, read straight from the messages (no template needed).
 *
 * @example
 * chatFacts(request, settings).lastUserText; // 'What is 2+2?'
 */
export function chatFacts(request: ChatRequest, settings: ChatSettings): RequestFacts {
  let lastUserText: string | null = null;
  let lastToolResultText: string | null = null;
  const promptTexts: string[] = [];
  for (const message of request.messages) {
    if (typeof message !== 'object' || message === null) continue;
    const { role, content } = message as { role?: unknown; content?: unknown };
    const text = messageText(content);
    promptTexts.push(text);
    if (role === 'user') lastUserText = text;
    if (role === 'tool') lastToolResultText = text;
  }
  return {
    endpoint: 'chat',
    stream: request.stream === true,
    model: request.model ?? null,
    hasTools: settings.tools.length > 0,
    lastUserText,
    lastToolResultText,
    promptTexts,
  };
}

function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) =>
      typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : '',
    )
    .join('\n');
}
