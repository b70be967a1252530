import type { BackendClient } from '../backends/vllm.js';
import { readBackendBody } from '../backends/read-backend-body.js';
import { isRecord } from '../../core/json/is-record.js';
import { isInt32TokenId } from '../../core/token-ids/is-int32-token-id.js';
import type { ModelFamily } from '../../model-format/families/model-family.js';
import { closesSameTurn, countOccurrences, indexAfterOccurrence, type PromptRenderer, type PromptRequest } from './prompt-renderer.js';

/**
 * Renders prompts with the backend's own tokenizer and chat template through vLLM's `POST /tokenize`
 * (`{model, messages, tools, add_generation_prompt, chat_template_kwargs, ...}` -> `{tokens}`), for a gateway
 * started without `--model-dir`. Two requests per extended call (the conversation up to the earlier assistant
 * turn, and the whole of it), one per fresh call; a family that names several end-of-turn tokens (Llama 3) or role
 * tokens (GLM) asks their ids once more each, with the first extended call.
 *
 * @example const renderer = createBackendPromptRenderer(backend);
 */
export function createBackendPromptRenderer(backend: BackendClient, family?: ModelFamily): PromptRenderer {
  const named = family?.history.endOfTurnTokens ?? [];
  const roles = family?.history.nextRoleTokens ?? [];
  let namedIds: number[] | undefined;
  let roleIds: number[] | undefined;
  return {
    renderFull: (request, signal) => tokenize(backend, request, request.messages, request.addGenerationPrompt, signal),
    async renderAfterTurn(request, prefixCount, endOfTurnId, signal) {
      const [before, whole, ids, opening] = await Promise.all([
        tokenize(backend, request, request.messages.slice(0, prefixCount), false, signal),
        tokenize(backend, request, request.messages, request.addGenerationPrompt, signal),
        namedIds ?? (named.length === 0 ? [] : tokenIdsOf(backend, request.model, named, signal)),
        roleIds ?? (roles.length === 0 ? [] : tokenIdsOf(backend, request.model, roles, signal)),
      ]);
      namedIds = ids;
      roleIds = opening;
      // GLM's template writes nothing after a turn: the next message opens with the role token the model stopped at,
      // so the turn ends at the first role token after it; Llama 3's templates write <|eot_id|> after a turn the
      // model ended with <|eom_id|> (model-family.ts)
      const opensNext = opening.includes(endOfTurnId);
      const markers = opensNext ? opening : ids.includes(endOfTurnId) ? ids : [endOfTurnId];
      const turns = countOccurrences(before, markers) + (opensNext ? 1 : 0);
      if (turns === 0) return null;
      const cut = indexAfterOccurrence(whole, markers, turns);
      if (cut === -1 || (!opensNext && markers.length > 1 && !closesSameTurn(before, whole, markers, turns))) return null;
      return whole.slice(cut);
    },
  };
}

/** The id of each special token, asked once of `/tokenize`; none where one of them is not one token. */
async function tokenIdsOf(backend: BackendClient, model: string | null, tokens: readonly string[], signal: AbortSignal): Promise<number[]> {
  const ids = await postTokenize(backend, { model, prompt: tokens.join(''), add_special_tokens: false }, signal);
  return ids.length === tokens.length ? ids : [];
}

async function tokenize(
  backend: BackendClient,
  request: PromptRequest,
  messages: unknown[],
  addGenerationPrompt: boolean,
  signal: AbortSignal,
): Promise<number[]> {
  const body: Record<string, unknown> = { model: request.model, messages, add_generation_prompt: addGenerationPrompt, add_special_tokens: false };
  if (request.tools !== null) body.tools = request.tools;
  if (request.chatTemplateKwargs !== null) body.chat_template_kwargs = request.chatTemplateKwargs;
  if (request.chatTemplate !== null) body.chat_template = request.chatTemplate;
  return postTokenize(backend, body, signal);
}

async function postTokenize(backend: BackendClient, body: Record<string, unknown>, signal: AbortSignal): Promise<number[]> {
  const response = await backend.postJson('/tokenize', body, signal);
  const { text, json } = await readBackendBody(response);
  if (response.statusCode >= 400 || !isRecord(json) || !Array.isArray(json.tokens)) {
    throw new Error(`the backend's /tokenize answered ${response.statusCode}: ${text.slice(0, 300)}`);
  }
  // these ids go to the backend as the prompt and into the store as what the model saw: a string or a fraction
  // must not become some other id through Number()
  const bad = json.tokens.findIndex((id) => !isInt32TokenId(id));
  if (bad !== -1) throw new Error(`the backend's /tokenize answered ${JSON.stringify(json.tokens[bad])} at index ${bad}, not a token id`);
  return json.tokens as number[];
}
