import { normalizeChatMessages, normalizeChatTools } from '../../model-format/chat-template/normalize-chat-messages.js';
import { chatTemplateSpecialTokens, renderChatTemplate } from '../../model-format/chat-template/render-chat-template.js';
import { loadModelDir, modelDirError, type LoadedModelDir as LoadedModel } from './load-model-dir.js';
import type { ModelFamily } from '../../model-format/families/model-family.js';
import { closesSameTurn, countOccurrences, indexAfterOccurrence, type PromptRenderer, type PromptRequest } from './prompt-renderer.js';

/** The conversation `check()` renders: the least a chat template must take. */
const CHECK_REQUEST: PromptRequest = {
  model: null,
  messages: [{ role: 'user', content: 'Hello' }],
  tools: null,
  chatTemplateKwargs: null,
  chatTemplate: null,
  addGenerationPrompt: true,
};

/**
 * Renders prompts from a Hugging Face model folder, the way vLLM's chat endpoint does (messages and tools
 * normalized as vLLM hands them to the template, `chat_template_kwargs` passed in, no special tokens added).
 * The template comes from `chat_template.jinja` when the folder has one (newer transformers write it there),
 * else from `tokenizer_config.json`. The folder is loaded once, by `check()` at the gateway's start (or the first call).
 * A family with its own renderer (gpt-oss: vLLM renders Harmony with openai_harmony, not a template; DeepSeek V3.2
 * without a template: vLLM runs DeepSeek's encoder) renders instead of the template, and the folder then needs none.
 *
 * @example const renderer = createLocalPromptRenderer(qwen3TokenizerDir());
 */
export function createLocalPromptRenderer(modelDir: string, family?: ModelFamily): PromptRenderer {
  let loading: Promise<LoadedModel> | undefined;
  const renderPrompt = family?.renderPrompt;
  const load = (): Promise<LoadedModel> => {
    loading ??= loadModelDir(modelDir, { templateRequired: renderPrompt === undefined }).then((model) => ({ ...model, renderPrompt }));
    return loading;
  };
  return {
    async check() {
      const model = await load();
      let text: string;
      try {
        text = renderText(model, CHECK_REQUEST, CHECK_REQUEST.messages, true);
      } catch (error) {
        const reason = ((error as Error).cause ?? error) as Error;
        throw modelDirError(modelDir, `the chat template cannot render a one-message conversation (${reason.message})`, error);
      }
      let ids: number[];
      try {
        ids = model.tokenizer.encode(text);
      } catch (error) {
        throw modelDirError(modelDir, `tokenizer.json cannot tokenize a rendered prompt (${(error as Error).message})`, error);
      }
      if (ids.length === 0) throw modelDirError(modelDir, 'the chat template renders a one-message conversation as no text');
    },
    async renderFull(request) {
      const model = await load();
      return model.tokenizer.encode(renderText(model, request, request.messages, request.addGenerationPrompt));
    },
    async renderAfterTurn(request, prefixCount, endOfTurnId) {
      const model = await load();
      const { markers, opensNext } = endOfTurnMarkers(model.tokenizer.decode([endOfTurnId]), family);
      if (markers.length === 0) return null;
      const before = renderText(model, request, request.messages.slice(0, prefixCount), false);
      // a turn ended by the next message's role token (GLM) ends at the first role token after it
      const turns = countOccurrences(before, markers) + (opensNext ? 1 : 0);
      if (turns === 0) return null;
      const whole = renderText(model, request, request.messages, request.addGenerationPrompt);
      const cut = indexAfterOccurrence(whole, markers, turns);
      if (cut === -1 || (!opensNext && markers.length > 1 && !closesSameTurn(before, whole, markers, turns))) return null;
      // special tokens are split off before the rest is tokenized, so the text after one encodes on its own
      // exactly as it does inside the whole prompt
      return model.tokenizer.encode(whole.slice(cut));
    },
  };
}

/**
 * What may close the earlier turn in the rendering: the sampled end-of-turn token, or, when it is one of the family's
 * `history.endOfTurnTokens`, any of those (Llama 3's JSON templates write `<|eot_id|>` after a turn the model ended
 * with `<|eom_id|>`); when it is one of `history.nextRoleTokens`, all of those, and the turn then ends at the next
 * (`opensNext`: GLM's template writes nothing after a turn, the next message opens with the role token the model
 * stopped at). None for an id that decodes to no text.
 */
function endOfTurnMarkers(sampled: string, family: ModelFamily | undefined): { markers: string[]; opensNext: boolean } {
  if (sampled === '') return { markers: [], opensNext: false };
  const roles = family?.history.nextRoleTokens ?? [];
  if (roles.includes(sampled)) return { markers: [...roles], opensNext: true };
  const named = family?.history.endOfTurnTokens ?? [];
  return { markers: named.includes(sampled) ? named.filter((token) => token !== '') : [sampled], opensNext: false };
}

function renderText(
  model: LoadedModel & { renderPrompt?: ModelFamily['renderPrompt'] },
  request: PromptRequest,
  messages: Array<Record<string, unknown>>,
  addGenerationPrompt: boolean,
): string {
  try {
    // vLLM hands openai_harmony the messages and tools as sent (arguments as their strings) and today's date;
    // DeepSeek V3.2's encoder reads thinking from chat_template_kwargs
    if (model.renderPrompt !== undefined) {
      return model.renderPrompt(messages, request.tools, {
        addGenerationPrompt,
        templateKwargs: request.chatTemplateKwargs ?? {},
        date: new Date().toISOString().slice(0, 10),
        ...harmonyEffort(request),
      });
    }
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

/** `chat_template_kwargs.reasoning_effort` (`low`, `medium`, `high`), as vLLM's gpt-oss reads the request's reasoning effort. */
function harmonyEffort(request: PromptRequest): { reasoningEffort?: 'low' | 'medium' | 'high' } {
  const effort = request.chatTemplateKwargs?.reasoning_effort;
  return effort === 'low' || effort === 'medium' || effort === 'high' ? { reasoningEffort: effort } : {};
}
