import { INT32_TOKEN_ID_MAX, isInt32TokenId } from '../../core/token-ids/is-int32-token-id.js';
import { isRecord } from '../../core/json/is-record.js';

/** What replaces a prompt-id array in stored bodies and streams: the ids live packed in the call row. */
export const ELIDED_PROMPT_IDS = "[tokentap: stored as the call's prompt ids]";

/**
 * Removes prompt token ids from a backend body before it is stored. vLLM repeats the whole prompt's ids in
 * every response (top-level for chat, per choice for completions); kept there, a long agent session would cost
 * quadratic space, while the call row already holds them exactly (as a delta against the previous call). A list
 * holding a number that is no token id stays: the row does not hold it (flag `invalid_token_ids`, token-tally.ts).
 *
 * @example store responseBody: elidePromptIdsFromBody(json)
 */
export function elidePromptIdsFromBody(body: unknown): unknown {
  if (!isRecord(body)) return body;
  const copy: Record<string, unknown> = { ...body };
  if (isStoredIds(copy.prompt_token_ids)) copy.prompt_token_ids = ELIDED_PROMPT_IDS;
  if (Array.isArray(copy.choices)) {
    copy.choices = copy.choices.map((choice) =>
      isRecord(choice) && isStoredIds(choice.prompt_token_ids) ? { ...choice, prompt_token_ids: ELIDED_PROMPT_IDS } : choice,
    );
  }
  return copy;
}

function isStoredIds(value: unknown): boolean {
  return Array.isArray(value) && value.every(isInt32TokenId);
}

/**
 * The same for a raw SSE stream: only the first chunk carries prompt ids (vLLM), so the first array is elided.
 * Digits only, so a negative or fractional id never matches; an id past Int32 is checked below.
 */
const PROMPT_IDS_IN_STREAM = /"prompt_token_ids":\s*\[[\d,\s]*\]/;
/** only a run of 10 digits or more can be past INT32_TOKEN_ID_MAX (JSON numbers have no leading zeros) */
const WIDE_NUMBER = /\d{10,}/g;

/** @example responseStream: elidePromptIdsFromStream(upstreamText) */
export function elidePromptIdsFromStream(stream: string): string {
  return stream.replace(PROMPT_IDS_IN_STREAM, (ids) => {
    for (const [digits] of ids.matchAll(WIDE_NUMBER)) if (Number(digits) > INT32_TOKEN_ID_MAX) return ids;
    return `"prompt_token_ids":${JSON.stringify(ELIDED_PROMPT_IDS)}`;
  });
}
