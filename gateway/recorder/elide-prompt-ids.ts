import { isRecord } from '../json/is-record.js';

/** What replaces a prompt-id array in stored bodies and streams: the ids live packed in the call row. */
export const ELIDED_PROMPT_IDS = '[tokentap: stored as the call\'s prompt ids]';

/**
 * Removes prompt token ids from a backend body before it is stored. vLLM repeats the whole prompt's ids in
 * every response (top-level for chat, per choice for completions); kept there, a long agent session would cost
 * quadratic space, while the call row already holds them exactly (as a delta against the previous call).
 *
 * @example store responseBody: elidePromptIdsFromBody(json)
 */
export function elidePromptIdsFromBody(body: unknown): unknown {
  if (!isRecord(body)) return body;
  const copy: Record<string, unknown> = { ...body };
  if (Array.isArray(copy.prompt_token_ids)) copy.prompt_token_ids = ELIDED_PROMPT_IDS;
  if (Array.isArray(copy.choices)) {
    copy.choices = copy.choices.map((choice) =>
      isRecord(choice) && Array.isArray(choice.prompt_token_ids) ? { ...choice, prompt_token_ids: ELIDED_PROMPT_IDS } : choice);
  }
  return copy;
}

/** The same for a raw SSE stream: only the first chunk carries prompt ids (vLLM), so the first array is elided. */
const PROMPT_IDS_IN_STREAM = /"prompt_token_ids":\s*\[[\d,\s]*\]/;

/** @example responseStream: elidePromptIdsFromStream(upstreamText) */
export function elidePromptIdsFromStream(stream: string): string {
  return stream.replace(PROMPT_IDS_IN_STREAM, `"prompt_token_ids":${JSON.stringify(ELIDED_PROMPT_IDS)}`);
}
